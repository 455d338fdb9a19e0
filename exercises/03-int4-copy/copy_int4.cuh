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
//
// TODO: copy n ints from src to dst, moving the bulk with int4 (16-byte) loads and stores.
//   - An int4 access needs an address that is a multiple of 16 bytes. Find how many ints come before
//     dst's first 16-byte boundary (the head), how many whole int4 vectors follow (the body), and the
//     0-3 ints left after them (the tail).
//   - If src is not at the same offset from a 16-byte boundary as dst, no int4 access can serve both:
//     copy one int at a time instead.
//   - Use a grid-stride loop (the grid is capped at kMaxBlocks blocks) and 64-bit indices.
//   - Write nothing outside dst[0, n): the test checks the ints around the destination too.
__global__ void copy_int4_kernel(const int* __restrict__ src, int* __restrict__ dst, std::int64_t n) {
  (void)src;
  (void)dst;
  (void)n;
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
