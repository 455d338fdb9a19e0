// Exercise 29: the split-K reduction (chapter 29). The partial-sum kernel left `splits` slices of `count`
// floats, slice s at ws + s * count, each laid out like C; sum them into C:
//     C[i] = alpha * (ws[0][i] + ws[1][i] + ... + ws[splits-1][i]) + beta * C[i]
// in split order (so that every run gives the same bits), and with beta == 0 never reading C (it may hold NaN).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "cuda_check.cuh"

namespace split_k_sum {

constexpr int kThreads = 256;

// One thread per element i, over a grid-stride loop (the grid is capped, so a thread may take several i).
__global__ void split_k_sum_kernel(std::size_t count, int splits, const float* __restrict__ ws, float alpha,
                                   float beta, float* __restrict__ C) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    float sum = 0.0f;
    for (int s = 0; s < splits; ++s) sum += ws[static_cast<std::size_t>(s) * count + i];  // split 0 first
    const float scaled = alpha * sum;
    C[i] = beta == 0.0f ? scaled : fmaf(beta, C[i], scaled);  // beta == 0: C is not read
  }
}

inline void split_k_sum(std::size_t count, int splits, const float* ws, float alpha, float beta, float* C,
                        cudaStream_t stream) {
  if (count == 0) return;
  const std::size_t blocks = std::min<std::size_t>((count + kThreads - 1) / kThreads, 1024);
  split_k_sum_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(count, splits, ws, alpha, beta, C);
  TUT_CHECK_LAUNCH();
}

}  // namespace split_k_sum
