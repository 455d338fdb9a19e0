// Chapter 02, experiment 5b: the shared-memory halving trick ("Optimisation techniques for GPU
// programs", §1.1 and §3.2). A block of 128 threads holds a tile of 2048 floats in registers, 16 per
// thread, and exchanges it through shared memory, as the article's 2048-point FFT does between its
// radix-16, 16 and 8 passes. One exchange here is a transpose of the tile (exchange_source).
//
//   full buffer:   all 4 warps store 16 values          -> barrier -> all read 16 -> barrier
//                  buffer: 16 x 128 floats (8 KiB)
//   halved buffer: warps 0-1 store         -> barrier -> all read values 0-7  -> barrier
//                  warps 2-3 store         -> barrier -> all read values 8-15 -> barrier
//                  buffer: 16 x 64 floats (4 KiB), one branch on the warp index picks who stores
//
// Halving the buffer lets more blocks share an SM when shared memory is what limits them; it costs
// twice the barriers, and registers: every thread keeps its 16 old values until its group has
// stored them, plus the 8 new ones it has already read.
#pragma once

#include <cstddef>
#include <cstdint>

#include "principles.cuh"

namespace principles {

constexpr int kExchangeWarps = kExchangeThreads / kWarpSize;
static_assert(kExchangeValues == 16 && kExchangeThreads % kExchangeValues == 0,
              "the bank analysis below assumes 16 values per thread");

// Shared-memory layout: row r holds value r of every thread of the buffer, with a row length of
// (threads + 2) floats. Stores (a row, consecutive threads) hit consecutive banks. A warp's reads
// take value t % 16 (16 rows) of threads 8r + t / 16 (2 columns): with the row length = 2 (mod 32)
// the 32 lanes land on 2 * (t % 16) + t / 16 + const, 32 different banks.
template <int kBufferThreads>
struct ExchangeBuffer {
  static constexpr int kRow = kBufferThreads + 2;
  static_assert(kRow % 32 == 2, "row length must be 2 mod 32 for conflict-free column reads");
  static constexpr int kFloats = kExchangeValues * kRow;
};

// All 128 threads store, then all read.
__device__ __forceinline__ void exchange_full(float (&v)[kExchangeValues], float* buffer) {
  using Buffer = ExchangeBuffer<kExchangeThreads>;
  const int t = threadIdx.x;
#pragma unroll
  for (int r = 0; r < kExchangeValues; ++r) buffer[r * Buffer::kRow + t] = v[r];
  __syncthreads();
#pragma unroll
  for (int r = 0; r < kExchangeValues; ++r) v[r] = buffer[exchange_read_offset(t, r, Buffer::kRow)];
  __syncthreads();  // the next exchange overwrites the buffer
}

// Two turns through a buffer for 64 threads. Output values 0-7 of every thread come from threads
// 0-63 (warps 0-1) and values 8-15 from threads 64-127 (warps 2-3), so in each turn one warp group
// stores and every thread reads half of its new values.
__device__ __forceinline__ void exchange_halved(float (&v)[kExchangeValues], float* buffer) {
  constexpr int kHalf = kExchangeThreads / 2;
  constexpr int kHalfValues = kExchangeValues / 2;
  using Buffer = ExchangeBuffer<kHalf>;
  const int t = threadIdx.x;
  const int warp = t / kWarpSize;
  float first[kHalfValues];  // new values 0-7, held until this thread's own group has stored
#pragma unroll
  for (int turn = 0; turn < 2; ++turn) {
    if (warp / (kExchangeWarps / 2) == turn) {  // MIMD by warp: only this turn's group stores
#pragma unroll
      for (int r = 0; r < kExchangeValues; ++r) buffer[r * Buffer::kRow + (t - turn * kHalf)] = v[r];
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kHalfValues; ++j) {
      // New value turn * 8 + j comes from thread turn * 64 + j * 8 + t / 16, which its group stored
      // in column j * 8 + t / 16 of this turn's buffer.
      const float x = buffer[exchange_read_offset(t, j, Buffer::kRow)];
      if (turn == 0) first[j] = x;
      else v[kHalfValues + j] = x;
    }
    __syncthreads();  // the next turn (or exchange) overwrites the buffer
  }
#pragma unroll
  for (int j = 0; j < kHalfValues; ++j) v[j] = first[j];
}

// Transposes every whole tile of 2048 floats `rounds` times through registers and shared memory; a
// trailing partial tile is copied unchanged. One block per tile. Loads and stores are coalesced:
// value r of thread t is tile element r * 128 + t. Dynamic shared memory, if the launch gives any,
// is not used: it stands in for the shared memory the rest of a real kernel would need.
template <bool kHalved>
__global__ void __launch_bounds__(kExchangeThreads)
exchange_tiles(const float* __restrict__ in, float* __restrict__ out, std::uint64_t n, int rounds) {
  __shared__ float buffer[ExchangeBuffer<kHalved ? kExchangeThreads / 2 : kExchangeThreads>::kFloats];
  const std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * kExchangeTile;
  const int t = threadIdx.x;
  if (base + kExchangeTile > n) {  // the partial tile: the whole block takes this branch or none does
    for (std::uint64_t i = base + t; i < n; i += kExchangeThreads) out[i] = in[i];
    return;
  }
  float v[kExchangeValues];
#pragma unroll
  for (int r = 0; r < kExchangeValues; ++r) v[r] = in[base + r * kExchangeThreads + t];
  for (int round = 0; round < rounds; ++round) {
    if constexpr (kHalved) exchange_halved(v, buffer);
    else exchange_full(v, buffer);
  }
#pragma unroll
  for (int r = 0; r < kExchangeValues; ++r) out[base + r * kExchangeThreads + t] = v[r];
}

}  // namespace principles
