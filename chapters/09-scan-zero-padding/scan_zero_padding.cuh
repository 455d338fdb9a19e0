// Chapter 09: ScanThenFan with a zero-padded Kogge-Stone warp scan.
// After "CUDA high-performance classic problem: prefix sum" (OneFlow, Will Zhang, 2022), §7.
//
// Inclusive scan of n int32 in three kernels:
//   1. scan_parts_kernel     cut the input into parts of kPartSize elements; scan each part on its
//                            own and write the part's total to part_sums[part];
//   2. scan_part_sums_kernel scan part_sums in place, so part_sums[p] = total of parts 0..p;
//   3. add_base_kernel       add part_sums[p - 1] (the sum of everything before part p) to every
//                            element of part p.
// The Kogge-Stone warp scan of the previous stage, without its `lane >= d` guards: 16 zeros are
// kept in shared memory in front of every warp's 32 values (and in front of the 32 warp totals),
// so a lane below d reads a zero and adds it instead of being masked off. Every lane runs the same
// instructions, with no compare and no predicate per step.
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

namespace scan_zero_padding {

// The zero-padded warp scan (SyncedWarpScan), the block scan and scan_parts_kernel that this chapter
// introduces are used unchanged by chapter 10, so they live in common/scan_zero_padded.cuh (read them there):
//
//   | 16 zeros | 32 warp totals | 16 zeros | warp 0's 32 values | 16 zeros | warp 1's ... | warp 31's |
//
// Each Kogge-Stone step reads slot[-d], __syncwarp(), adds, __syncwarp(); lanes below d read a zero.
using tut::zero_padded::scan_parts_kernel;
using tut::zero_padded::SyncedWarpScan;

// Steps 2 and 3 (scan_part_sums_kernel<<<1, 1>>>, add_base_kernel) and the launches are the same in
// chapters 05-09: common/scan_then_fan.cuh. This chapter gives them its scan_parts_kernel.
using tut::scan_then_fan::workspace_bytes;

inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  tut::scan_then_fan::inclusive_scan<scan_parts_kernel<SyncedWarpScan>>(d_in, d_out, n, d_workspace, stream);
}

}  // namespace scan_zero_padding
