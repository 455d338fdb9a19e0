// The zero-padded block scan of the scan chapters 09 and 10 (after "CUDA high-performance classic problem:
// prefix sum", OneFlow, Will Zhang, 2022, §7), introduced by chapter 09 and used unchanged by chapter 10:
// ScanThenFan's step 1 (common/scan_then_fan.cuh) with a Kogge-Stone warp scan in shared memory without
// `lane >= d` guards. 16 zeros are kept in front of every warp's 32 values (and in front of the 32 warp
// totals), so a lane below d reads a zero and adds it instead of being masked off: every lane runs the same
// instructions, with no compare and no predicate per step.
//
//   SyncedWarpScan              the warp scan, each step between two __syncwarp()s
//   scan_block<WarpScan>        chapter 07's block scan (common/scan_block_shared.cuh) around it
//   scan_parts_kernel<WarpScan> ScanThenFan's step 1: each part staged, scanned in place, written back
// The warp scan is a template parameter so that chapter 09's "article" variant can put back the article's
// unsynchronised one.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "scan_block_shared.cuh"
#include "scan_then_fan.cuh"

namespace tut::zero_padded {

using tut::shared_block::kPartSize;      // elements per part = threads per block
using tut::shared_block::kWarpsPerPart;  // 32: one warp scans the 32 warp totals
using tut::shared_block::kWarpSize;

// Shared memory of scan_parts_kernel, in words (the article's (16 + 32) + warps * (16 + 32)):
//
//   | 16 zeros | 32 warp totals | 16 zeros | warp 0's 32 values | 16 zeros | warp 1's ... | warp 31's |
//
constexpr int kPadding = kWarpSize / 2;                                   // the farthest step reads 16 back
constexpr int kPaddedWarp = kPadding + kWarpSize;                         // 48 words
constexpr int kSharedWords = kPaddedWarp + kWarpsPerPart * kPaddedWarp;  // 1584 words, 6336 bytes

// Inclusive scan of the warp's 32 values in shared memory. `slot` is this lane's value; the warp's
// 32 slots are consecutive, so slot[-d] is lane (lane - d)'s value. Kogge-Stone: after the step
// with distance d, slot holds the sum of the 2d values ending at this lane (fewer near lane 0).
//
//   d = 1:  x1 += x0, x2 += x1, x3 += x2, ...   (values read BEFORE this step's writes)
//   d = 2:  x2 += x0, x3 += x1, ...
//   ...     lanes below d read one of the kPadding zeros in front of lane 0: no guard needed.
//
// Each step reads, __syncwarp(), writes, __syncwarp(). Since Volta the lanes of a warp are
// scheduled independently, so without the first barrier lane i might read slot[i - d] after lane
// i - d has already added to it; without the second, the next step might read before this one's
// write. __syncwarp() orders shared memory among the warp's lanes, so no `volatile` is needed.
struct SyncedWarpScan {
  __device__ __forceinline__ static void scan(std::uint32_t* slot, int /*lane: no guard needed*/) {
#pragma unroll
    for (int d = 1; d < kWarpSize; d *= 2) {
      const std::uint32_t left = slot[-d];
      __syncwarp();
      *slot += left;
      __syncwarp();
    }
  }
};

// The block scan is chapter 07's (common/scan_block_shared.cuh): both the warps' slots and warp_sums here
// have kPadding zeros in front of them, which the warp scan reads.
using tut::shared_block::scan_block;
using tut::shared_block::scan_parts_in_place;

// Step 1 with chapter 07's loop over the parts (scan_parts_in_place) on the padded layout above.
template <class WarpScan>
__global__ void scan_parts_kernel(const std::uint32_t* in, std::uint32_t* out, std::uint32_t* part_sums,
                                  std::int64_t n, std::int64_t parts) {
  __shared__ std::uint32_t smem[kSharedWords];
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  std::uint32_t* const warp_sums = smem + kPadding;
  std::uint32_t* const slot = smem + kPaddedWarp * (1 + warp) + kPadding + lane;  // this thread's value
  // The zeros, written once: the scans write only values and warp totals, never the padding. The
  // first __syncthreads() in the loop makes them visible to the whole block.
  if (threadIdx.x < kPadding) smem[threadIdx.x] = 0;  // in front of warp_sums
  if (lane < kPadding) slot[-kPadding] = 0;            // in front of this warp's values
  scan_parts_in_place<WarpScan>(in, out, part_sums, n, parts, slot, warp_sums);
}

}  // namespace tut::zero_padded
