// Chapter 12: ScanThenFan with a warp scan in inline PTX: the shuffle's own predicate guards the add.
// After "CUDA high-performance classic problem: prefix sum" (OneFlow, Will Zhang, 2022), §10.
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
// The block scan keeps each thread's value in a register and the Kogge-Stone warp scan reads its
// neighbour's value with a shuffle, as in chapter 11; shared memory holds only the 32 warp totals.
// NEW: each warp-scan step is written in PTX. shfl.sync.up.b32 returns, besides the value, a
// predicate that is true when the source lane exists (lane >= d); that predicate guards the add,
// so the `lane >= d` test of chapter 11 (a compare and a select or branch per step) disappears.
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

namespace scan_inline_ptx {

constexpr int kPartSize = tut::scan_then_fan::kPartSize;  // elements per part = threads per block
constexpr int kWarpSize = 32;
constexpr int kWarpsPerPart = kPartSize / kWarpSize;
static_assert(kWarpsPerPart == kWarpSize, "a part is 32 warps, so that one warp scans the 32 warp totals");

// NEW, and used unchanged by chapters 13-17, so it lives once in common/warp_scan.cuh (read it there):
//   shfl_up_add(val, d)  one Kogge-Stone step as one predicated PTX pair,
//                        `shfl.sync.up.b32 left|has_left` then `@has_left add.u32`;
//   scan_warp(val)       chapter 11's loop with each step's shuffle, lane test and add replaced by
//                        one shfl_up_add: no lane index, no compare, no branch;
//   PredicatedWarpScan   scan_warp as the warp scan of chapter 11's block scan and kernel
//                        (scan_block_32_warps, scan_parts_kernel, also in common/warp_scan.cuh).
using tut::warp::PredicatedWarpScan;
using tut::warp::scan_parts_kernel;
using tut::warp::scan_warp;  // warp_scan_probe.cu compiles scan_inline_ptx::scan_warp

// The recursion of chapter 10 (ScanThenFan run again on the part sums), add_base_kernel and the
// launches are the same in chapters 10-12: common/scan_then_fan.cuh. This chapter gives them its
// scan_parts_kernel, which reads each element before the same thread writes it (in may be out).
inline std::size_t workspace_bytes(std::size_t n) { return tut::scan_then_fan::recursive_workspace_bytes(n); }

inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  tut::scan_then_fan::inclusive_scan_recursive<scan_parts_kernel<PredicatedWarpScan>>(d_in, d_out, n, d_workspace,
                                                                                      stream);
}

}  // namespace scan_inline_ptx
