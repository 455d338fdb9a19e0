// Chapter 09, variant "article": this chapter's scan with the article's §7 warp scan put back as
// published, kept to show its defect. NOT a correct scan; do not copy it. The only difference from
// the chapter's scan is the warp scan: ArticleWarpScan here, SyncedWarpScan in common/scan_zero_padded.cuh.
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

namespace scan_zero_padding_article {

// Everything but the warp scan is the chapter's (common/scan_zero_padded.cuh): the same padded layout, block
// scan and scan_parts_kernel, given this warp scan instead of SyncedWarpScan.
//
// THE DEFECT: the article does each step as one `x[0] += x[-d]` on `volatile` memory, with no
// __syncwarp() anywhere. `volatile` only makes every access a real load or store; it does not order
// one lane's accesses against another's. The code assumes the 32 lanes run in lockstep, so that all
// of them read before any of them writes. Since Volta (independent thread scheduling) that is not
// guaranteed: lane i may read slot[i - d] after lane i - d has already added to it in the same step
// (counting some values twice), or before lane i - d has finished the step before (missing some).
// A warp that happens to run converged issues all 32 loads of a step before any store, so the
// output may well be right, but nothing guarantees it: it is a data race, and
// `compute-sanitizer --tool racecheck` reports it.
struct ArticleWarpScan {
  __device__ __forceinline__ static void scan(std::uint32_t* slot, int /*lane*/) {
    volatile std::uint32_t* const v = slot;
#pragma unroll
    for (int d = 1; d < tut::zero_padded::kWarpSize; d *= 2) {
      v[0] = v[0] + v[-d];  // read and write with no barrier between lanes: the race
    }
  }
};

// Steps 2 and 3 (scan_part_sums_kernel<<<1, 1>>>, add_base_kernel) and the launches are the same in
// chapters 05-09: common/scan_then_fan.cuh. This chapter gives them its scan_parts_kernel.
using tut::scan_then_fan::workspace_bytes;

inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  tut::scan_then_fan::inclusive_scan<tut::zero_padded::scan_parts_kernel<ArticleWarpScan>>(d_in, d_out, n,
                                                                                         d_workspace, stream);
}

}  // namespace scan_zero_padding_article
