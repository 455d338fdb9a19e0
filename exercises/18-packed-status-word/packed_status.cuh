// Exercise 18 (chapter 18-scan-any-type-copy-bound): the status word that packs a 4-byte value and its flag.
//
// This is chapter 18's packed_status.cuh with the body of PackedStatus removed; chapter 18's scan_copy_bound.cuh
// (kernel, look-back, PairedStatus for the 8-byte types, status reset, workspace) includes it, unchanged.
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

  // TODO: publish, observe, flag and value of the packed word (see the top of the file):
  //   - publish(tile, flag, value): ONE relaxed device-scope 64-bit atomic store into words[tile] of
  //     (flag << 32) | (the 32 bits of value). Two stores (flag, then value) would let a reader see a flag
  //     with the old value. (Index with static_cast<unsigned>(tile): tile >= 0, no sign extension to keep.)
  //   - observe(tile): one relaxed device-scope atomic load of words[tile] (another SM writes it: a plain load
  //     could be cached and never see the change).
  //   - value(o, tile): the low 32 bits, as a T (memcpy: bits, not a conversion); flag(o), the high 32, is given.
  // The stubs below compile and never hang (every predecessor reads as P with value 0), but every tile after the
  // first misses its prefix.
  __device__ void publish(int tile, std::uint32_t flag, T value) const { (void)tile, (void)flag, (void)value; }
  __device__ Observed observe(int tile) const { return (void)tile, virtual_inclusive(); }
  __device__ static std::uint32_t flag(Observed o) { return static_cast<std::uint32_t>(o >> 32); }
  __device__ T value(Observed o, int) const { return (void)o, T{}; }
  __device__ static Observed virtual_inclusive() { return static_cast<Observed>(tut::lookback::kInclusive) << 32; }
};

}  // namespace scan_copy_bound
