// Exercise 11 (chapter 11-scan-warp-shuffle): the warp scan in registers, with __shfl_up_sync.
//
// The Kogge-Stone steps of exercises 08 and 09 moved values between lanes through shared memory:
// a store, a barrier, a load. A shuffle moves a register from one lane to another in one instruction,
// with no shared memory and no race to guard against: __shfl_up_sync(mask, v, k) returns lane
// (lane - k)'s v, or the caller's own v when lane < k, which the scan must not add.
//
//   lane:      0    1      2       3       ...
//   k = 1:    x0  x0+x1  x1+x2   x2+x3     (lane 0 keeps x0: nothing below it)
//   k = 2:    x0  x0+x1  x0..x2  x0..x3    ...
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace warp_shuffle {

constexpr int kWarpSize = 32;
constexpr int kMaxWarps = 1024 / kWarpSize;
constexpr unsigned kFullMask = 0xffffffffu;

// a + b with two's-complement wrap-around (signed overflow is undefined; unsigned wraps).
__device__ __forceinline__ std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// Inclusive scan across the 32 lanes of a full warp: returns the sum of lanes 0..lane's values.
// All 32 lanes call it (the shuffles name the full mask).
__device__ __forceinline__ std::int32_t scan_warp(std::int32_t value) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const std::int32_t below = __shfl_up_sync(kFullMask, value, offset);  // lane - offset's value
    if (lane >= offset) value = wrap_add(value, below);                    // (own value when lane < offset)
  }
  return value;
}

// Given: the block scan of exercise 07, on top of scan_warp (blockDim.x a multiple of 32, <= 1024).
__device__ std::int32_t scan_block(std::int32_t value) {
  __shared__ std::int32_t warp_sums[kMaxWarps];
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize, warp = static_cast<int>(threadIdx.x) / kWarpSize;
  const int warps = static_cast<int>(blockDim.x) / kWarpSize;
  value = scan_warp(value);
  if (lane == kWarpSize - 1) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    const std::int32_t total = scan_warp(lane < warps ? warp_sums[lane] : 0);
    if (lane < warps) warp_sums[lane] = total;
  }
  __syncthreads();
  if (warp > 0) value = wrap_add(value, warp_sums[warp - 1]);
  __syncthreads();
  return value;
}

}  // namespace warp_shuffle
