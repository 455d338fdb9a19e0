// Exercise 07 (chapter 07-scan-block): a block scan built from warp scans.
//
// A block of W warps scans its W * 32 values in three steps:
//
//   1. every warp scans its own 32 values                  warp 0  warp 1  warp 2  ...
//   2. the last lane of each warp writes the warp's total  -> warp_sums[0..W) in shared memory
//   3. warp 0 scans warp_sums (at most 32 of them: one warp scan)
//   4. every warp w > 0 adds warp_sums[w - 1], the total of the warps before it
//
// with barriers wherever one warp reads what another wrote.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace block_scan {

constexpr int kWarpSize = 32;
constexpr int kMaxWarps = 1024 / kWarpSize;  // warps in the largest block
constexpr unsigned kFullMask = 0xffffffffu;

// a + b with two's-complement wrap-around (signed overflow is undefined; unsigned wraps).
__device__ __forceinline__ std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// Given: the inclusive scan of the 32 lanes' values of a full warp, in registers (chapter 11).
__device__ __forceinline__ std::int32_t scan_warp(std::int32_t value) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const std::int32_t below = __shfl_up_sync(kFullMask, value, offset);
    if (lane >= offset) value = wrap_add(value, below);
  }
  return value;
}

// The inclusive scan of one value per thread across the block: returns the sum of the values of
// threads 0..threadIdx.x. Every thread of the block calls it; blockDim.x is a multiple of 32, at
// most 1024. It may be called again and again (a loop over tiles), so it leaves warp_sums free.
__device__ std::int32_t scan_block(std::int32_t value) {
  __shared__ std::int32_t warp_sums[kMaxWarps];
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  const int warps = static_cast<int>(blockDim.x) / kWarpSize;

  value = scan_warp(value);                                // 1. each warp on its own
  if (lane == kWarpSize - 1) warp_sums[warp] = value;      // 2. the warp's total
  __syncthreads();                                         //    all totals written before warp 0 reads them
  if (warp == 0) {                                         // 3. scan the totals (lanes past the last warp add 0)
    const std::int32_t total = scan_warp(lane < warps ? warp_sums[lane] : 0);
    if (lane < warps) warp_sums[lane] = total;             //    each lane rewrites only the slot it read
  }
  __syncthreads();                                         //    scanned totals visible to every warp
  if (warp > 0) value = wrap_add(value, warp_sums[warp - 1]);  // 4. the warps before this one
  __syncthreads();  // every warp has read warp_sums before the next call's step 2 overwrites it
  return value;
}

}  // namespace block_scan
