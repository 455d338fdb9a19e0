// Chapter 02, experiment 1: peak FP32 throughput ("Optimisation techniques for GPU programs", §1.2).
// Register-only FMA chains; nothing touches memory between the first load and the last store.
#pragma once

#include <cstddef>

#include "principles.cuh"

namespace principles {

constexpr int kFmaBlock = 256;  // threads per block of experiment 1 (experiment 2 varies it)

// Every thread runs kChains independent copies of the article's chain for `steps` steps, starting
// from its values in `init`, and stores the results in `out` (same layout, planes `stride` apart).
// The launch covers exactly the threads it has data for. Launch bounds: blocks of up to 1024
// threads (experiment 2 launches those), and registers few enough for a full SM of threads.
template <int kChains>
__global__ void __launch_bounds__(1024, PRINCIPLES_MAX_THREADS_PER_SM / 1024)
fma_chains(const float* __restrict__ init, float* __restrict__ out, std::size_t stride, long long steps) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float a[kChains], b[kChains];
  load_chains(init, stride, t, a, b);
  run_chains(a, b, steps, ArticleStep{});
  store_chains(out, stride, t, a, b);
}

using FmaKernel = void (*)(const float*, float*, std::size_t, long long);

// The fma_chains instantiation for 1, 2, 4 or 8 chains.
inline FmaKernel fma_kernel_for(int chains) {
  switch (chains) {
    case 1: return fma_chains<1>;
    case 2: return fma_chains<2>;
    case 4: return fma_chains<4>;
    default: return fma_chains<8>;
  }
}

// The GPU's nanosecond clock (%globaltimer), to convert SM cycles into a frequency.
__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

// Not an experiment: reads the SM clock while every lane runs FMAs as in experiment 1, since a GPU
// under full FMA load may run below the boost clock that cudaDevAttrClockRate reports. Thread 0 of
// each block counts the block's SM cycles (clock64) and nanoseconds (globaltimer).
__global__ void __launch_bounds__(kFmaBlock)
sm_clock_probe(float* __restrict__ sink, unsigned long long* __restrict__ cycles,
               unsigned long long* __restrict__ nanoseconds, long long steps) {
  const long long start_cycle = clock64();
  const unsigned long long start_ns = global_timer_ns();
  constexpr int kChains = 8;
  float a[kChains], b[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) {
    a[c] = -0.5f - 0.05f * c;
    b[c] = -0.25f;
  }
  run_chains(a, b, steps, ArticleStep{});
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += a[c] + b[c];
  sink[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
  __syncthreads();  // the block's time ends when its last warp is done
  if (threadIdx.x == 0) {
    cycles[blockIdx.x] = static_cast<unsigned long long>(clock64() - start_cycle);
    nanoseconds[blockIdx.x] = global_timer_ns() - start_ns;
  }
}

}  // namespace principles
