// Exercise 08 (chapter 08-scan-warp): a Kogge-Stone warp scan in shared memory, free of data races.
//
// The 32 lanes of a warp scan their 32 slots of shared memory in 5 steps; at step k every lane adds
// the slot k places below its own, if there is one (k = 1, 2, 4, 8, 16):
//
//   slot:     0    1    2    3    4  ...
//   k = 1:   x0  x0+x1 x1+x2 x2+x3 ...        each slot now holds the sum of 2 values
//   k = 2:   ..  ..    x0..x2 x0..x3 ...      4 values
//   ...      after k = 16 slot i holds x0 + ... + xi
//
// The article relied on the 32 lanes running in lockstep (a `volatile` pointer and no barrier). Since
// Volta, lanes of a warp may run apart (independent thread scheduling), so a lane can overwrite its
// slot before its upper neighbour has read the old value: a data race. Each step therefore reads
// into a register, waits for the whole warp (__syncwarp), and only then writes.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace kogge_stone {

constexpr int kWarpSize = 32;

// a + b with two's-complement wrap-around (signed overflow is undefined; unsigned wraps).
__device__ __forceinline__ std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// Inclusive scan of this warp's 32 slots s[0..32) in place; lane `lane` owns s[lane]. All 32 lanes
// call it. On return s[lane] = s[0] + ... + s[lane] (of the values on entry), also the return value.
//
// TODO: five Kogge-Stone steps, offset = 1, 2, 4, 8, 16: each lane adds the slot `offset` below its
// own (lanes below `offset` add nothing). Every step reads old values and writes new ones in the
// same 32 slots: make sure no lane writes its slot before the lane above it has read the old value,
// and that every write is visible before the next step reads (__syncwarp() is both a barrier and a
// memory fence for the warp). Add with wrap_add.
__device__ __forceinline__ std::int32_t scan_warp(std::int32_t* s, int lane) {
  return s[lane];
}

}  // namespace kogge_stone
