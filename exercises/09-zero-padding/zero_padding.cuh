// Exercise 09 (chapter 09-scan-zero-padding): zeros in front of each warp's slots remove the lane guards.
//
// The Kogge-Stone warp scan adds s[lane - k] only when lane >= k: a branch (or a predicate) in each
// of its 5 steps. With 16 zeros stored in front of each warp's 32 slots, s[lane - k] for lane < k
// reads a zero (k <= 16), and every lane can add unconditionally:
//
//   shared:  | 16 zeros | 32 slots of warp 0 | 16 zeros | 32 slots of warp 1 | ...
//                        ^ s for warp 0                  ^ s for warp 1
//
// The barrier discipline of exercise 08 stays: read, __syncwarp, write, __syncwarp. (The article's
// padded version dropped it; compute-sanitizer's racecheck reports the race.)
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace zero_padding {

constexpr int kWarpSize = 32;
constexpr int kPad = kWarpSize / 2;           // the largest step reaches 16 slots below
constexpr int kWarpStride = kPad + kWarpSize; // shared ints per warp: padding, then slots
static_assert(kPad >= kWarpSize / 2, "the step of 16 must land in the padding for every lane");

// a + b with two's-complement wrap-around (signed overflow is undefined; unsigned wraps).
__device__ __forceinline__ std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// Warp `warp`'s 32 slots in a padded array of kWarpStride ints per warp: s[-kPad .. -1] is its padding.
__device__ __forceinline__ std::int32_t* warp_slots(std::int32_t* padded, int warp) {
  return padded + warp * kWarpStride + kPad;
}

// Inclusive scan of this warp's 32 slots s[0..32) in place, where s[-16..-1] hold zeros (and stay
// zero). All 32 lanes call it; returns s[0] + ... + s[lane] (of the values on entry).
//
// TODO: the five Kogge-Stone steps (offset 1, 2, 4, 8, 16) with NO `lane >= offset` test: for small
// lanes s[lane - offset] is one of the padding zeros. Keep the order of exercise 08 in every step:
// read, __syncwarp(), write, __syncwarp(). Never write the padding. Add with wrap_add.
__device__ __forceinline__ std::int32_t scan_warp(std::int32_t* s, int lane) {
  return s[lane];
}

}  // namespace zero_padding
