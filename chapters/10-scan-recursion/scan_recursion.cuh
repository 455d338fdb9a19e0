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

namespace scan_recursion {

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
__device__ __forceinline__ void scan_warp(std::uint32_t* slot) {
#pragma unroll
  for (int d = 1; d < kWarpSize; d *= 2) {
    const std::uint32_t left = slot[-d];
    __syncwarp();
    *slot += left;
    __syncwarp();
  }
}

// Inclusive scan of the block's kPartSize values in shared memory; `slot` is this thread's value.
// On return *slot holds the scan up to and including this thread. warp_sums: kWarpsPerPart words
// of scratch. Call it after a __syncthreads() that follows any earlier reads of warp_sums.
// Both the warp's slots and warp_sums must have kPadding zeros in front of them.
__device__ __forceinline__ void scan_block(std::uint32_t* slot, std::uint32_t* warp_sums) {
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  scan_warp(slot);                                        // 1. each warp scans its 32 values
  if (lane == kWarpSize - 1) warp_sums[warp] = *slot;     //    and publishes its total
  __syncthreads();
  if (warp == 0) scan_warp(warp_sums + lane);             // 2. warp 0 scans the 32 totals
  __syncthreads();
  if (warp > 0) *slot += warp_sums[warp - 1];             // 3. add the totals of the warps before
}

// Each block takes parts blockIdx.x, blockIdx.x + gridDim.x, ...; the block stages the part in
// shared memory, scans it there with all its warps, and writes the scanned part and its total.
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
    scan_block(slot, warp_sums);  // in place, on shared memory
    if (i < n) out[i] = *slot;
    if (threadIdx.x == kPartSize - 1) part_sums[part] = *slot;
    // No barrier needed before the next part: after scan_block each thread reads only its own
    // slot, and the barrier above comes before anyone writes warp_sums again.
  }
}

// NEW: the recursion. Chapters 11 and 12 keep it unchanged, so it lives once in common/scan_then_fan.cuh
// (read scan_then_fan_recursive there), with add_base_kernel and the launches. This chapter gives it its
// scan_parts_kernel, which reads each element before the same thread writes it (in may be out).
inline std::size_t workspace_bytes(std::size_t n) { return tut::scan_then_fan::recursive_workspace_bytes(n); }

inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  tut::scan_then_fan::inclusive_scan_recursive<scan_parts_kernel>(d_in, d_out, n, d_workspace, stream);
}

}  // namespace scan_recursion
