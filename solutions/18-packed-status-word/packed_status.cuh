// Exercise 18 (chapter 18-scan-any-type-copy-bound): the status word that packs a 4-byte value and its flag.
//
// The solution: chapter 18's packed_status.cuh as it is.
//
// Chapter 18: the tile status word of the 4-byte types (int32, uint32, float): the flag and the value's 32 bits
// in one 64-bit word, so that one relaxed device-scope 64-bit atomic store publishes both together and one
// relaxed load reads both together (chapter 17's word, for any 4-byte T). The 8-byte types cannot do this (a
// 64-bit value leaves no room for the flag in one atomic access): their PairedStatus, in scan_copy_bound.cuh,
// puts each 32-bit half of the value in a word of this layout, each with a copy of the flag.
//
//   bit 63 ............ 32 | 31 ............ 0
//        flag (X, A, P)    |  the value's 32 bits (memcpy: a float's bits, not a conversion)
#pragma once

#include <cuda/atomic>
#include <cstdint>
#include <cstring>

#include "decoupled_lookback.cuh"

namespace scan_copy_bound {

// 4-byte values: flag and value in one 64-bit word, relaxed device-scope atomics (chapter 17).
template <class T>
struct PackedStatus {
  using Flag = unsigned long long;  // the word the status reset clears
  using Observed = unsigned long long;
  Flag* words;

  __device__ static std::uint32_t bits(T v) {
    std::uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
  }
  __device__ void publish(int tile, std::uint32_t flag, T value) const {
    cuda::atomic_ref<Flag, cuda::thread_scope_device>(words[static_cast<unsigned>(tile)])  // own tile: >= 0
        .store((static_cast<Flag>(flag) << 32) | bits(value), cuda::memory_order_relaxed);
  }
  __device__ Observed observe(int tile) const {
    return cuda::atomic_ref<Flag, cuda::thread_scope_device>(words[tile]).load(cuda::memory_order_relaxed);
  }
  __device__ static std::uint32_t flag(Observed o) { return static_cast<std::uint32_t>(o >> 32); }
  __device__ T value(Observed o, int) const {
    const auto b = static_cast<std::uint32_t>(o);
    T v;
    std::memcpy(&v, &b, sizeof v);
    return v;
  }
  __device__ static Observed virtual_inclusive() { return static_cast<Observed>(tut::lookback::kInclusive) << 32; }
};

}  // namespace scan_copy_bound
