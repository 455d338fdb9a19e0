// Chapter 02, experiment 3: hiding __syncthreads() behind other blocks ("Optimisation techniques for
// GPU programs", §1.4). The FMA chains of experiment 1 with a block-wide barrier every few steps.
#pragma once

#include <cstddef>

#include "principles.cuh"

namespace principles {

constexpr int kBarrierChains = 4;  // 4 independent chains: with 4+ warps per scheduler the FMA pipes stay full

// Runs `steps` chain steps with a __syncthreads() after every kStepsPerBarrier of them (0: none).
// At a barrier a warp stops issuing until every warp of its block has arrived, so the block's
// last FMAs drain from the pipeline with nothing behind them; a second block on the SM, not at its
// barrier at the same moment, can fill those cycles. The barrier is the only thing it synchronises:
// the chains are per thread.
template <int kStepsPerBarrier>
__global__ void __launch_bounds__(1024)
fma_with_barriers(const float* __restrict__ init, float* __restrict__ out, std::size_t stride, long long steps) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float a[kBarrierChains], b[kBarrierChains];
  load_chains(init, stride, t, a, b);
  if constexpr (kStepsPerBarrier == 0) {
    run_chains(a, b, steps, ArticleStep{});
  } else {
    for (long long i = steps / kStepsPerBarrier; i > 0; --i) {
#pragma unroll
      for (int s = 0; s < kStepsPerBarrier; ++s) {
#pragma unroll
        for (int c = 0; c < kBarrierChains; ++c) ArticleStep{}(a[c], b[c]);
      }
      __syncthreads();
    }
    run_chains(a, b, steps % kStepsPerBarrier, ArticleStep{});  // the remainder, no barrier
  }
  store_chains(out, stride, t, a, b);
}

}  // namespace principles
