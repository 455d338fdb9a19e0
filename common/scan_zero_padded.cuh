// The zero-padded block scan of the scan chapters 09 and 10 (after "CUDA high-performance classic problem:
// prefix sum", OneFlow, Will Zhang, 2022, §7), introduced by chapter 09 and used unchanged by chapter 10:
// ScanThenFan's step 1 (common/scan_then_fan.cuh) with a Kogge-Stone warp scan in shared memory without
// `lane >= d` guards. 16 zeros are kept in front of every warp's 32 values (and in front of the 32 warp
// totals), so a lane below d reads a zero and adds it instead of being masked off: every lane runs the same
// instructions, with no compare and no predicate per step.
//
//   SyncedWarpScan              the warp scan, each step between two __syncwarp()s
//   scan_block<WarpScan>        the 32 warps' scans, warp 0's scan of their totals, the add
//   scan_parts_kernel<WarpScan> ScanThenFan's step 1: each part staged, scanned in place, written back
// The warp scan is a template parameter so that chapter 09's "article" variant can put back the article's
// unsynchronised one.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "scan_then_fan.cuh"

namespace tut::zero_padded {

constexpr int kPartSize = tut::scan_then_fan::kPartSize;  // elements per part = threads per block
constexpr int kWarpSize = 32;
constexpr int kWarpsPerPart = kPartSize / kWarpSize;
static_assert(kWarpsPerPart == kWarpSize, "a part is 32 warps, so that one warp scans the 32 warp totals");

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
  __device__ __forceinline__ static void scan(std::uint32_t* slot) {
#pragma unroll
    for (int d = 1; d < kWarpSize; d *= 2) {
      const std::uint32_t left = slot[-d];
      __syncwarp();
      *slot += left;
      __syncwarp();
    }
  }
};

// Inclusive scan of the block's kPartSize values in shared memory; `slot` is this thread's value.
// On return *slot holds the scan up to and including this thread. warp_sums: kWarpsPerPart words
// of scratch. Call it after a __syncthreads() that follows any earlier reads of warp_sums.
// Both the warp's slots and warp_sums must have kPadding zeros in front of them.
template <class WarpScan>
__device__ __forceinline__ void scan_block(std::uint32_t* slot, std::uint32_t* warp_sums) {
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  WarpScan::scan(slot);                                   // 1. each warp scans its 32 values
  if (lane == kWarpSize - 1) warp_sums[warp] = *slot;     //    and publishes its total
  __syncthreads();
  if (warp == 0) WarpScan::scan(warp_sums + lane);        // 2. warp 0 scans the 32 totals
  __syncthreads();
  if (warp > 0) *slot += warp_sums[warp - 1];             // 3. add the totals of the warps before
}

// Each block takes parts blockIdx.x, blockIdx.x + gridDim.x, ...; the block stages the part in
// shared memory, scans it there with all its warps, and writes the scanned part and its total.
template <class WarpScan>
__global__ void scan_parts_kernel(const std::uint32_t* in, std::uint32_t* out, std::uint32_t* part_sums,
                                  std::int64_t n, std::int64_t parts) {
  __shared__ std::uint32_t smem[kSharedWords];
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  std::uint32_t* const warp_sums = smem + kPadding;
  std::uint32_t* const slot = smem + kPaddedWarp * (1 + warp) + kPadding + lane;  // this thread's value
  // The zeros, written once: the scans write only values and warp totals, never the padding. The
  // first __syncthreads() below makes them visible to the whole block.
  if (threadIdx.x < kPadding) smem[threadIdx.x] = 0;  // in front of warp_sums
  if (lane < kPadding) slot[-kPadding] = 0;            // in front of this warp's values
  for (std::int64_t part = blockIdx.x; part < parts; part += gridDim.x) {
    const std::int64_t i = part * kPartSize + threadIdx.x;
    // Element i to this thread's slot: a warp's 32 loads are 32 consecutive words, one 128-byte
    // request. Past the end, 0 (the identity of +) keeps the scan and the total right.
    *slot = i < n ? in[i] : 0;
    __syncthreads();  // also orders the previous part's reads of warp_sums before this part's writes
    scan_block<WarpScan>(slot, warp_sums);  // in place, on shared memory
    if (i < n) out[i] = *slot;
    if (threadIdx.x == kPartSize - 1) part_sums[part] = *slot;
    // No barrier needed before the next part: after scan_block each thread reads only its own
    // slot, and the barrier above comes before anyone writes warp_sums again.
  }
}

}  // namespace tut::zero_padded
