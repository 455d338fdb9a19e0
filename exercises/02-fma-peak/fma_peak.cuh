// Exercise 02 (chapter 02-gpu-principles): how close can a kernel get to the FP32 peak?
//
// Every thread runs `Chains` independent chains of fused multiply-adds in registers, `iterations`
// steps each, and writes the sum of its chains: no memory traffic to speak of, so the time is the
// FMA pipes' time. A chain step depends on the previous step of the same chain (4 or so cycles of
// latency), so one chain per thread leaves the pipes idle unless many warps take turns; several
// independent chains let one warp issue an FMA every cycle (instruction-level parallelism).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"

namespace fma_peak {

// x <- x * kMultiplier + chain_addend(k): contracts towards the fixed point (k + 1), so no chain
// overflows however many iterations run. Both constants are exact binary fractions.
constexpr float kMultiplier = 1.0f - 1.0f / 1024.0f;
__host__ __device__ constexpr float chain_addend(int k) { return static_cast<float>(k + 1) / 1024.0f; }

// The starting value of chain k in a thread whose seed is `seed`.
__host__ __device__ constexpr float chain_start(float seed, int k) { return seed + static_cast<float>(k); }

// One thread per seed. Writes out[t] = the sum over k = 0 .. Chains-1, in that order, of chain k
// after `iterations` steps.
template <int Chains>
__global__ void fma_chains_kernel(const float* __restrict__ seeds, float* __restrict__ out, std::int64_t n,
                                  int iterations) {
  static_assert(Chains >= 1 && Chains <= 16, "chains live in registers");
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float x[Chains];
#pragma unroll
  for (int k = 0; k < Chains; ++k) x[k] = chain_start(seeds[t], k);

  // TODO: run `iterations` steps of every chain: x[k] = fmaf(x[k], kMultiplier, chain_addend(k)).
  //       The chains do not depend on each other: arrange the loops so that consecutive FMAs belong
  //       to different chains, and keep x[] in registers (a loop over k with a compile-time bound,
  //       unrolled, indexes registers; any other indexing puts x[] in local memory).
  (void)iterations;

  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < Chains; ++k) sum += x[k];
  out[t] = sum;
}

template <int Chains>
inline void fma_chains(const float* seeds, float* out, std::int64_t n, int iterations, int block,
                       cudaStream_t stream) {
  if (n == 0) return;
  const std::int64_t blocks = (n + block - 1) / block;
  fma_chains_kernel<Chains><<<static_cast<unsigned>(blocks), block, 0, stream>>>(seeds, out, n, iterations);
  TUT_CHECK_LAUNCH();
}

}  // namespace fma_peak
