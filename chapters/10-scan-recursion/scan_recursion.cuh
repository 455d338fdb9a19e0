// Chapter 10: ScanThenFan with a recursive scan of the part sums.
// After "CUDA high-performance classic problem: prefix sum" (OneFlow, Will Zhang, 2022), §8.
//
// Inclusive scan of n int32, ScanThenFan as in chapter 09:
//   1. scan_parts_kernel     cut the input into parts of kPartSize elements; scan each part on its
//                            own and write the part's total to part_sums[part];
//   2. (recursion)           scan part_sums in place, so part_sums[p] = total of parts 0..p.
//                            NEW: with this same algorithm, run on part_sums, instead of one
//                            thread (chapter 09's scan_part_sums_kernel<<<1, 1>>>);
//   3. add_base_kernel       add part_sums[p - 1] (the sum of everything before part p) to every
//                            element of part p.
// Each level has 1024 times fewer elements than the one before, so 2^28 ints take three levels:
// 2^28 -> 2^18 part sums -> 2^8 -> 1. The workspace holds the part sums of every level.
//
// The block scan is chapter 09's: a Kogge-Stone warp scan with 16 zeros in shared memory in
// front of every warp's 32 values (and in front of the 32 warp totals) instead of lane guards.
//
// Values are scanned as uint32_t: the same bits as int32_t, and unsigned addition wraps by
// definition (signed overflow would be undefined behaviour), matching the CPU reference.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "scan_then_fan.cuh"
#include "scan_zero_padded.cuh"

namespace scan_recursion {

// Chapter 09's scan_parts_kernel, unchanged: common/scan_zero_padded.cuh.
using tut::zero_padded::scan_parts_kernel;
using tut::zero_padded::SyncedWarpScan;

// NEW: the recursion. Chapters 11 and 12 keep it unchanged, so it lives once in common/scan_then_fan.cuh
// (read scan_then_fan_recursive there), with add_base_kernel and the launches. This chapter gives it its
// scan_parts_kernel, which reads each element before the same thread writes it (in may be out).
inline std::size_t workspace_bytes(std::size_t n) { return tut::scan_then_fan::recursive_workspace_bytes(n); }

inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  tut::scan_then_fan::inclusive_scan_recursive<scan_parts_kernel<SyncedWarpScan>>(d_in, d_out, n, d_workspace,
                                                                                  stream);
}

}  // namespace scan_recursion
