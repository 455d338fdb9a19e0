// Exercise 20 (chapter 20-sgemm-naive): the naive SGEMM, one thread per element of C.
//
// Row-major C[m x n] = alpha * A[m x k] * B[k x n] + beta * C (leading dimensions k, n, n), any m, n, k.
// Blocks of 32 x 8 threads; threadIdx.x must run along N (the columns), so that a warp's loads of B are
// one 128-byte line and its load of A one broadcast address.
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.cuh"

namespace sgemm_naive_kernel {

constexpr int kBlockX = 32;  // threads along N: one warp
constexpr int kBlockY = 8;   // rows of C per block

__global__ void __launch_bounds__(kBlockX * kBlockY)
    sgemm_naive_kernel(int m, int n, int k, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                       float beta, float* __restrict__ C) {
  const int row = blockIdx.y * kBlockY + threadIdx.y;
  const int col = blockIdx.x * kBlockX + threadIdx.x;
  if (row >= m || col >= n) return;
  float acc = 0.0f;
  for (int p = 0; p < k; ++p)
    acc = fmaf(A[static_cast<long long>(row) * k + p], B[static_cast<long long>(p) * n + col], acc);
  float* c = C + static_cast<long long>(row) * n + col;
  // BLAS semantics: with beta == 0, C is output only and must not be read (it may hold NaN).
  *c = beta == 0.0f ? alpha * acc : fmaf(beta, *c, alpha * acc);
}

// Enqueues the kernel on `stream`. m == 0 or n == 0: nothing to do (and a grid of 0 blocks is an error).
inline void sgemm(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                  cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid((n + kBlockX - 1) / kBlockX, (m + kBlockY - 1) / kBlockY);
  sgemm_naive_kernel<<<grid, block, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  TUT_CHECK_LAUNCH();
}

}  // namespace sgemm_naive_kernel
