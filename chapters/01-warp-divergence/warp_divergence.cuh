// Chapter 01: warp divergence.
// Reproduces the kernels of "Understanding the essence of warp execution (1)" (seed 003, §2 "warp
// divergence"): every thread writes 100 or 200 depending on a branch; what differs is whether the
// branch condition is uniform across each warp of 32 threads.
#pragma once

#include <cstdint>

namespace warp_divergence {

constexpr float kTaken = 100.0f;     // written by threads that take the if-branch
constexpr float kNotTaken = 200.0f;  // written by threads that take the else-branch
constexpr int kWarpSize = 32;

// Global thread index in 64 bits: grids of more than 2^31 threads are legal.
__device__ __forceinline__ std::int64_t global_thread_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// Warm-up (the article's `warmingup`): the same work as the warp-uniform kernel, run first so that
// the first timed kernel does not pay for module loading and clock ramp-up.
__global__ void warm_up(float* c, std::int64_t n) {
  const std::int64_t tid = global_thread_index();
  if (tid >= n) return;
  float a = 0.0f, b = 0.0f;
  if ((tid / kWarpSize) % 2 == 0) a = kTaken;
  else b = kNotTaken;
  c[tid] = a + b;
}

// mathKernel1: even and odd threads take different paths, so every warp diverges: the warp runs
// the if-path with the odd lanes masked off, then the else-path with the even lanes masked off.
__global__ void even_odd_branch(float* c, std::int64_t n) {
  const std::int64_t tid = global_thread_index();
  if (tid >= n) return;
  float a = 0.0f, b = 0.0f;
  if (tid % 2 == 0) a = kTaken;
  else b = kNotTaken;
  c[tid] = a + b;
}

// mathKernel2: the condition changes only every 32 threads, so all lanes of a warp agree and no
// warp diverges; the output differs from mathKernel1 (a warp-sized stripe pattern) but the work is
// the same.
__global__ void warp_uniform_branch(float* c, std::int64_t n) {
  const std::int64_t tid = global_thread_index();
  if (tid >= n) return;
  float a = 0.0f, b = 0.0f;
  if ((tid / kWarpSize) % 2 == 0) a = kTaken;
  else b = kNotTaken;
  c[tid] = a + b;
}

// mathKernel3: mathKernel1 with the if/else split into two ifs on a saved predicate. In a -G build
// this doubles the divergent branches (two divergent ifs instead of one); an optimised build
// turns both into predicated or select instructions.
__global__ void split_predicate_branch(float* c, std::int64_t n) {
  const std::int64_t tid = global_thread_index();
  if (tid >= n) return;
  float a = 0.0f, b = 0.0f;
  const bool even = (tid % 2 == 0);
  if (even) a = kTaken;
  if (!even) b = kNotTaken;
  c[tid] = a + b;
}

// mathKernel4, corrected: the warp index is tid >> 5 and its low bit picks the branch, which is
// warp-uniform like mathKernel2. The parentheses are the fix (see warp_shift_branch_article).
__global__ void warp_shift_branch(float* c, std::int64_t n) {
  const std::int64_t tid = global_thread_index();
  if (tid >= n) return;
  float a = 0.0f, b = 0.0f;
  const std::int64_t warp = tid >> 5;
  if ((warp & 0x01) == 0) a = kTaken;
  else b = kNotTaken;
  c[tid] = a + b;
}

// mathKernel4 as published: `warp & 0x01 == 0` parses as `warp & (0x01 == 0)`, i.e. `warp & 0`,
// which is always false, so every thread takes the else-branch and writes 200. It never diverges,
// but only because it never branches on anything. Kept to show the defect; the check flags it.
__global__ void warp_shift_branch_article(float* c, std::int64_t n) {
  const std::int64_t tid = global_thread_index();
  if (tid >= n) return;
  float a = 0.0f, b = 0.0f;
  const std::int64_t warp = tid >> 5;
  if (warp & 0x01 == 0)  // NOLINT: the article's precedence bug, reproduced on purpose
    a = kTaken;
  else
    b = kNotTaken;
  c[tid] = a + b;
}

}  // namespace warp_divergence
