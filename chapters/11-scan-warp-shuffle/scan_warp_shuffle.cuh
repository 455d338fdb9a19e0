// Chapter 11: ScanThenFan with a warp scan in registers (warp shuffles).
// After "CUDA high-performance classic problem: prefix sum" (OneFlow, Will Zhang, 2022), §9.
//
// Inclusive scan of n int32, ScanThenFan as in chapter 10:
//   1. scan_parts_kernel     cut the input into parts of kPartSize elements; scan each part on its
//                            own and write the part's total to part_sums[part];
//   2. (recursion)           scan part_sums in place, so part_sums[p] = total of parts 0..p,
//                            with this same algorithm, run on part_sums;
//   3. add_base_kernel       add part_sums[p - 1] (the sum of everything before part p) to every
//                            element of part p.
// Each level has 1024 times fewer elements than the one before, so 2^28 ints take three levels:
// 2^28 -> 2^18 part sums -> 2^8 -> 1. The workspace holds the part sums of every level.
//
// NEW: the block scan keeps each thread's value in a register. The Kogge-Stone warp scan reads its
// neighbour's value with __shfl_up_sync (a register-to-register exchange inside the warp) instead
// of through shared memory, so the part is no longer staged in shared memory and the zero padding
// is gone; shared memory holds only the 32 warp totals.
//
// Values are scanned as uint32_t: the same bits as int32_t, and unsigned addition wraps by
// definition (signed overflow would be undefined behaviour), matching the CPU reference.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "scan_then_fan.cuh"
#include "warp_scan.cuh"

namespace scan_warp_shuffle {

constexpr int kPartSize = tut::scan_then_fan::kPartSize;  // elements per part = threads per block
constexpr int kWarpSize = 32;
constexpr int kWarpsPerPart = kPartSize / kWarpSize;
static_assert(kWarpsPerPart == kWarpSize, "a part is 32 warps, so that one warp scans the 32 warp totals");
constexpr unsigned kFullMask = 0xffffffffu;  // all 32 lanes take part in every shuffle

// Inclusive scan of one value per lane across the warp, in registers. Kogge-Stone as before: after
// the step with distance d, val holds the sum of the 2d values ending at this lane (fewer near
// lane 0). __shfl_up_sync(mask, val, d) returns lane (lane - d)'s val; lanes below d have no such
// lane (they get their own val back) and must not add it: the `lane >= d` guard is back, since
// there is no padding to read a zero from. The shuffle reads every lane's val before any lane
// changes it, and all lanes of the mask take part, so there is no race and no __syncwarp().
__device__ __forceinline__ std::uint32_t scan_warp(std::uint32_t val) {
  const int lane = threadIdx.x % kWarpSize;
#pragma unroll
  for (int d = 1; d < kWarpSize; d *= 2) {
    const std::uint32_t left = __shfl_up_sync(kFullMask, val, d);
    if (lane >= d) val += left;
  }
  return val;
}

// The warp scan above as a type, for the block scan and the kernel.
struct ShuffleWarpScan {
  __device__ __forceinline__ static std::uint32_t scan(std::uint32_t val) { return scan_warp(val); }
};

// NEW as well, and used unchanged by chapter 12 (with its warp scan), so they live in common/warp_scan.cuh:
//   scan_block_32_warps<WarpScan>(val, warp_sums)   the block scan in registers: each warp scans its 32
//                     values, warp 0 scans the 32 warp totals (shared memory holds only those), each warp
//                     adds the totals before it;
//   scan_parts_kernel<WarpScan>      each thread loads one element of the part into a register,
//                     the block scans the part, and writes the scanned part and its total.
using tut::warp::scan_parts_kernel;

// The recursion of chapter 10 (ScanThenFan run again on the part sums), add_base_kernel and the
// launches are the same in chapters 10-12: common/scan_then_fan.cuh. This chapter gives them its
// scan_parts_kernel, which reads each element before the same thread writes it (in may be out).
inline std::size_t workspace_bytes(std::size_t n) { return tut::scan_then_fan::recursive_workspace_bytes(n); }

inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  tut::scan_then_fan::inclusive_scan_recursive<scan_parts_kernel<ShuffleWarpScan>>(d_in, d_out, n, d_workspace,
                                                                                   stream);
}

}  // namespace scan_warp_shuffle
