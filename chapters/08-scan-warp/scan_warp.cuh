// Chapter 08: ScanThenFan with a Kogge-Stone warp scan in shared memory.
// After "CUDA high-performance classic problem: prefix sum" (OneFlow, Will Zhang, 2022), §6.
//
// Inclusive scan of n int32 in three kernels:
//   1. scan_parts_kernel     cut the input into parts of kPartSize elements; scan each part on its
//                            own and write the part's total to part_sums[part];
//   2. scan_part_sums_kernel scan part_sums in place, so part_sums[p] = total of parts 0..p;
//   3. add_base_kernel       add part_sums[p - 1] (the sum of everything before part p) to every
//                            element of part p.
// The block scan is unchanged (warps scan their 32 values, warp 0 scans the 32 warp totals, each
// warp adds its base), but the warp scan no longer leaves 31 lanes idle: all 32 lanes take part in
// 5 Kogge-Stone steps, x[lane] += x[lane - d] for d = 1, 2, 4, 8, 16, on shared memory. 5 parallel
// steps replace 32 serial additions.
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

namespace scan_warp {

constexpr int kPartSize = tut::scan_then_fan::kPartSize;  // elements per part = threads per block
constexpr int kWarpSize = 32;
constexpr int kWarpsPerPart = kPartSize / kWarpSize;
static_assert(kWarpsPerPart == kWarpSize, "a part is 32 warps, so that one warp scans the 32 warp totals");

// Inclusive scan of the warp's 32 values in shared memory. `slot` is this lane's value; the warp's
// 32 slots are consecutive, so slot[-d] is lane (lane - d)'s value. Kogge-Stone: after the step
// with distance d, slot holds the sum of the 2d values ending at this lane (fewer near lane 0).
//
//   d = 1:  x1 += x0, x2 += x1, x3 += x2, ...   (values read BEFORE this step's writes)
//   d = 2:  x2 += x0, x3 += x1, ...
//   ...     lanes below d have nothing to add: the `lane >= d` guard.
//
// Each step reads, __syncwarp(), writes, __syncwarp(). Since Volta the lanes of a warp are
// scheduled independently, so without the first barrier lane i might read slot[i - d] after lane
// i - d has already added to it; without the second, the next step might read before this one's
// write. __syncwarp() orders shared memory among the warp's lanes, so no `volatile` is needed.
__device__ __forceinline__ void scan_warp(std::uint32_t* slot, int lane) {
#pragma unroll
  for (int d = 1; d < kWarpSize; d *= 2) {
    std::uint32_t left = 0;
    if (lane >= d) left = slot[-d];
    __syncwarp();
    if (lane >= d) *slot += left;
    __syncwarp();
  }
}

// Chapter 07's block scan and scan_parts_kernel, unchanged (common/scan_block_shared.cuh), given this warp
// scan.
using tut::shared_block::scan_parts_kernel;

struct KoggeStoneWarpScan {
  __device__ __forceinline__ static void scan(std::uint32_t* slot, int lane) { scan_warp(slot, lane); }
};

// Steps 2 and 3 (scan_part_sums_kernel<<<1, 1>>>, add_base_kernel) and the launches are the same in
// chapters 05-09: common/scan_then_fan.cuh. This chapter gives them its scan_parts_kernel.
using tut::scan_then_fan::workspace_bytes;

inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  tut::scan_then_fan::inclusive_scan<scan_parts_kernel<KoggeStoneWarpScan>>(d_in, d_out, n, d_workspace, stream);
}

}  // namespace scan_warp
