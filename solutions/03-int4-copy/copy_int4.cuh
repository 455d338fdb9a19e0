// Exercise 03 (chapter 03-vectorized-loads): an int4 copy that is right for every length and every
// pointer alignment.
//
// One 128-bit access (LDG.E.128 / STG.E.128) moves four ints with one instruction instead of four,
// but only from an address that is a multiple of 16 bytes. A copy that takes arbitrary pointers and
// lengths therefore has three parts:
//
//   dst:  | head (0-3 ints) |  body: whole int4 vectors, 16-byte aligned  | tail (0-3 ints) |
//          ^ dst             ^ first 16-byte boundary of dst
//
// and the body can use int4 for both sides only when src sits at the same offset from a 16-byte
// boundary as dst; otherwise the copy falls back to one int per access.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda_check.cuh"

namespace copy_int4 {

constexpr int kBlock = 128;       // threads per block (the slides' choice)
constexpr int kMaxBlocks = 4096;  // grid cap: the grid-stride loop covers the rest
constexpr int kVector = 4;        // ints per int4

// Threads of the whole grid, and this thread's index among them, in 64 bits.
__device__ __forceinline__ std::int64_t grid_thread() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::int64_t grid_threads() {
  return static_cast<std::int64_t>(gridDim.x) * blockDim.x;
}

// The scalar grid-stride copy: one int per access.
__global__ void copy_scalar_kernel(const int* __restrict__ src, int* __restrict__ dst, std::int64_t n) {
  for (std::int64_t i = grid_thread(); i < n; i += grid_threads()) dst[i] = src[i];
}

// The vector copy: any n >= 0, any int-aligned src and dst (that do not overlap).
__global__ void copy_int4_kernel(const int* __restrict__ src, int* __restrict__ dst, std::int64_t n) {
  const std::int64_t tid = grid_thread(), stride = grid_threads();
  const auto src_offset = reinterpret_cast<std::uintptr_t>(src) % 16;
  const auto dst_offset = reinterpret_cast<std::uintptr_t>(dst) % 16;
  if (src_offset != dst_offset) {
    // No shift makes both sides 16-byte aligned at once: copy one int at a time.
    for (std::int64_t i = tid; i < n; i += stride) dst[i] = src[i];
    return;
  }
  // Ints before dst's (and so src's) first 16-byte boundary, at most 3, at most n.
  const std::int64_t to_boundary = static_cast<std::int64_t>((16 - dst_offset) % 16) / 4;
  const std::int64_t head = to_boundary < n ? to_boundary : n;
  const std::int64_t vectors = (n - head) / kVector;
  const std::int64_t tail_begin = head + vectors * kVector;  // the last 0-3 ints start here

  const int4* src4 = reinterpret_cast<const int4*>(src + head);
  int4* dst4 = reinterpret_cast<int4*>(dst + head);
  for (std::int64_t v = tid; v < vectors; v += stride) dst4[v] = src4[v];

  // Head and tail: at most 3 ints each, one per thread of the first few threads.
  if (tid < head) dst[tid] = src[tid];
  if (tid < n - tail_begin) dst[tail_begin + tid] = src[tail_begin + tid];
}

// Blocks for a grid-stride loop over `items` items: enough for one item per thread, at most kMaxBlocks.
inline unsigned blocks_for(std::int64_t items) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((items + kBlock - 1) / kBlock, 1, kMaxBlocks));
}

// Copies n ints from src to dst with the int4 kernel.
inline void copy(const int* src, int* dst, std::int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  copy_int4_kernel<<<blocks_for((n + kVector - 1) / kVector), kBlock, 0, stream>>>(src, dst, n);
  TUT_CHECK_LAUNCH();
}

// The same with the scalar kernel (for the measurement).
inline void copy_scalar(const int* src, int* dst, std::int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  copy_scalar_kernel<<<blocks_for(n), kBlock, 0, stream>>>(src, dst, n);
  TUT_CHECK_LAUNCH();
}

}  // namespace copy_int4
