// Exercise 01 (chapter 01-warp-divergence): give every warp one side of a branch.
//
// Element i of the output is even_side(i) for even i and odd_side(i) for odd i. With one thread per
// element in index order, every warp holds 16 even and 16 odd elements, so every warp runs both sides
// one after the other, half its lanes idle each time (divergence). The output does not care which
// thread computes which element: hand each warp elements of one parity only and no warp diverges.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"

namespace uniform_branch {

constexpr int kWarpSize = 32;
constexpr int kGroup = 2 * kWarpSize;   // threads (and elements) per pair of warps
constexpr int kBlock = 256;             // threads per block
constexpr int kRounds = 48;             // length of each side's loop: too long to predicate
static_assert(kBlock % kGroup == 0, "a block must hold whole pairs of warps");

// The two sides of the branch: different integer hash chains, long enough that the compiler keeps a
// real branch instead of computing both sides and selecting one. Unsigned arithmetic wraps.
__host__ __device__ inline std::uint32_t even_side(std::uint64_t i) {
  std::uint32_t x = static_cast<std::uint32_t>(i) ^ 0x9E3779B9u;
  for (int r = 0; r < kRounds; ++r) x = (x ^ (x >> 15)) * 0x2C1B3C6Du + static_cast<std::uint32_t>(r);
  return x;
}
__host__ __device__ inline std::uint32_t odd_side(std::uint64_t i) {
  std::uint32_t x = static_cast<std::uint32_t>(i) ^ 0x85EBCA6Bu;
  for (int r = 0; r < kRounds; ++r) x = (x ^ (x >> 13)) * 0x297A2D39u ^ static_cast<std::uint32_t>(r);
  return x;
}

// The element thread t (global index) computes.
//
// TODO: return an element index such that
//   - the 64 threads [64g, 64g + 64) of every group g compute exactly the 64 elements
//     [64g, 64g + 64), each element once (the grid has n rounded up to whole groups), and
//   - the 32 threads of every warp (threads [32w, 32w + 32)) all get elements of the same parity.
// The version below is the identity: correct elements, but every warp mixes even and odd ones.
__host__ __device__ inline std::int64_t element_for_thread(std::int64_t t) {
  return t;
}

// One thread per element, through element_for_thread. The grid has the element count rounded up to
// whole groups of 64 threads; the threads whose element lies past n do nothing.
__global__ void compute_kernel(std::uint32_t* out, std::int64_t n) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t i = element_for_thread(t);
  if (i >= n) return;
  if (i % 2 == 0) out[i] = even_side(static_cast<std::uint64_t>(i));
  else out[i] = odd_side(static_cast<std::uint64_t>(i));
}

// The divergent original, one thread per element in index order (for the measurement).
__global__ void compute_divergent_kernel(std::uint32_t* out, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (i % 2 == 0) out[i] = even_side(static_cast<std::uint64_t>(i));
  else out[i] = odd_side(static_cast<std::uint64_t>(i));
}

// Threads launched for n elements: n rounded up to whole groups of two warps.
inline std::int64_t threads_for(std::int64_t n) { return (n + kGroup - 1) / kGroup * kGroup; }

inline void compute(std::uint32_t* out, std::int64_t n, bool divergent, cudaStream_t stream) {
  if (n == 0) return;
  const std::int64_t blocks = (threads_for(n) + kBlock - 1) / kBlock;
  if (divergent) compute_divergent_kernel<<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(out, n);
  else compute_kernel<<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(out, n);
  TUT_CHECK_LAUNCH();
}

}  // namespace uniform_branch
