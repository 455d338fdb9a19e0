// Chapter 07: ScanThenFan with a warp-organised block scan.
// After "CUDA high-performance classic problem: prefix sum" (OneFlow, Will Zhang, 2022), §5.
//
// Inclusive scan of n int32 in three kernels:
//   1. scan_parts_kernel     cut the input into parts of kPartSize elements; scan each part on its
//                            own and write the part's total to part_sums[part];
//   2. scan_part_sums_kernel scan part_sums in place, so part_sums[p] = total of parts 0..p;
//   3. add_base_kernel       add part_sums[p - 1] (the sum of everything before part p) to every
//                            element of part p.
// The part is staged in shared memory as before, but no longer scanned by one thread: each of the
// block's 32 warps scans its own 32 values (still serially, by its lane 0), one warp scans the 32
// warp totals, and every warp adds the total of the warps before it. 32 threads scan at once where
// one did, and the longest serial chain drops from 1024 additions to 32 + 32 + 1.
//
// Values are scanned as uint32_t: the same bits as int32_t, and unsigned addition wraps by
// definition (signed overflow would be undefined behaviour), matching the CPU reference.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "scan_block_shared.cuh"
#include "scan_then_fan.cuh"

namespace scan_block {

constexpr int kPartSize = tut::scan_then_fan::kPartSize;  // elements per part = threads per block
constexpr int kWarpSize = 32;
constexpr int kWarpsPerPart = kPartSize / kWarpSize;
static_assert(kWarpsPerPart == kWarpSize, "a part is 32 warps, so that one warp scans the 32 warp totals");

// Inclusive scan of the warp's 32 values in shared memory. `slot` is this lane's value; the warp's
// 32 slots are consecutive, so lane 0's slot is the first. Lane 0 alone scans them (the article's
// stand-in, replaced in the next stage); the __syncwarp() makes its writes visible to the other lanes.
__device__ __forceinline__ void scan_warp(std::uint32_t* slot, int lane) {
  if (lane == 0) {
    std::uint32_t acc = 0;
    for (int i = 0; i < kWarpSize; ++i) {
      acc += slot[i];
      slot[i] = acc;
    }
  }
  __syncwarp();
}

// This chapter's block scan (scan_block: each warp scans its 32 values, warp 0 scans the 32 warp totals, each
// warp adds the totals before it) and its scan_parts_kernel (the part staged in shared memory, scanned in
// place) are used unchanged by chapter 08, so they live in common/scan_block_shared.cuh, templated on the
// warp scan, which is what chapter 08 changes.
using tut::shared_block::scan_parts_kernel;

struct SerialWarpScan {
  __device__ __forceinline__ static void scan(std::uint32_t* slot, int lane) { scan_warp(slot, lane); }
};

// Steps 2 and 3 (scan_part_sums_kernel<<<1, 1>>>, add_base_kernel) and the launches are the same in
// chapters 05-09: common/scan_then_fan.cuh. This chapter gives them its scan_parts_kernel.
using tut::scan_then_fan::workspace_bytes;

inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  tut::scan_then_fan::inclusive_scan<scan_parts_kernel<SerialWarpScan>>(d_in, d_out, n, d_workspace, stream);
}

}  // namespace scan_block
