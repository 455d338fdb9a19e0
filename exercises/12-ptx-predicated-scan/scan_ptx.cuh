// Exercise 12 (chapter 12-scan-inline-ptx): a warp scan whose steps are predicated, not branched.
//
// In exercise 11 each step is `below = __shfl_up_sync(...); if (lane >= k) value += below;`. The
// compiler computes `lane >= k` separately, and may branch on it. But the PTX shuffle already knows
// whether the source lane exists: `shfl.sync.up.b32 d|p, a, b, c, mask` sets the predicate p to
// true exactly when lane - b is a valid lane. Guarding the add with that predicate (`@p add`) gives
// one shuffle and one predicated add per step, with no comparison and no branch:
//
//   shfl.sync.up.b32  below|p, value, k, 0, 0xffffffff;   // p: lane >= k (c = 0 for up-shuffles)
//   @p add.u32        below, below, value;                // below = (lane - k)'s value + own value
//                                                          // (if !p, below already holds own value)
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace scan_ptx {

constexpr int kWarpSize = 32;
constexpr int kMaxWarps = 1024 / kWarpSize;

// One step: returns value + (value of lane - offset) if that lane exists, else value. All 32 lanes
// of the warp call it. u32 addition wraps like the CPU reference.
//
// TODO: one inline-PTX block (asm volatile) with
//   - a shfl.sync.up.b32 that writes both the shuffled value and its predicate (the `d|p` form;
//     for up-shuffles the clamp operand c is 0, the member mask 0xffffffff), and
//   - an add guarded by that predicate (@p), so that lanes with no lane below keep their own value,
// and no C++ `if`. Declare the PTX registers you need inside { } with .reg .u32 / .reg .pred.
__device__ __forceinline__ std::int32_t shfl_up_add(std::int32_t value, int offset) {
  (void)offset;
  return value;
}

// Given: the warp scan from five predicated steps.
__device__ __forceinline__ std::int32_t scan_warp(std::int32_t value) {
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) value = shfl_up_add(value, offset);
  return value;
}

// a + b with two's-complement wrap-around (signed overflow is undefined; unsigned wraps).
__device__ __forceinline__ std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// Given: the block scan of exercise 07 on top of scan_warp (blockDim.x a multiple of 32, <= 1024).
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

}  // namespace scan_ptx
