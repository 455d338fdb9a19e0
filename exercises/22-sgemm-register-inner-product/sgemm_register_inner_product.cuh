// Exercise 22 (chapter 22-sgemm-register-blocking): the register-blocked inner product of the article's
// SGEMM ("Optimisation techniques for GPU programs", seed 002, §2).
//
// Row-major C[m x n] = alpha * A[m x k] * B[k x n] + beta * C (leading dimensions k, n, n), any m, n, k.
// A block of 128 threads computes a 16 x 256 tile of C; thread t owns columns 2t and 2t + 1 of it and all
// 16 rows, in 16 float2 accumulators. Per K step of 32, the block stages Asub (16 x 32 of A) in shared
// memory; then, for each of the 32 K values, every thread reads its two values of B straight from global
// memory and does 32 FMAs.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"

namespace sgemm_register_inner_product {

constexpr int kTileM = 16;   // rows of Csub and Asub
constexpr int kTileN = 256;  // columns of Csub
constexpr int kTileK = 32;   // K values per Asub
constexpr int kThreads = kTileN / 2;
static_assert(kTileM * kTileK % kThreads == 0, "every thread copies the same number of Asub values");

// Copies Asub = A[row0 .. row0+15][p0 .. p0+31] into shared memory, zero past m and k.
__device__ __forceinline__ void stage_asub(float (&As)[kTileM][kTileK], const float* __restrict__ A, int m, int k,
                                           int row0, int p0) {
#pragma unroll
  for (int i = 0; i < kTileM * kTileK / kThreads; ++i) {
    const int e = static_cast<int>(threadIdx.x) + i * kThreads;
    const int r = e / kTileK, c = e % kTileK;
    As[r][c] = row0 + r < m && p0 + c < k ? A[static_cast<long long>(row0 + r) * k + p0 + c] : 0.0f;
  }
}

// The inner product of one Asub: for each of the `steps` K values p (kTileK, or fewer in the last step of
// K), read this thread's two values of B, row p of `b` (b points at row p0 of B), columns col and col + 1,
// then for each row r of Asub: acc[r].x += Asub[r][p] * B[p][col], acc[r].y += Asub[r][p] * B[p][col + 1].
// vector: both columns are inside N and 8-byte aligned, so one float2 load reads them; otherwise read
// each one that is inside N (has_x: col < n, has_y: col + 1 < n) and use 0 for the other.
__device__ __forceinline__ void multiply_asub(float2 (&acc)[kTileM], const float (&As)[kTileM][kTileK],
                                              const float* __restrict__ b, int n, int col, bool has_x, bool has_y,
                                              bool vector, int steps) {
  // TODO: for each K value p < steps (at most kTileK; unroll the loop with #pragma unroll):
  //   1. this thread's two values of B: row p of b (b + p * n), columns col and col + 1; one float2 load
  //      when `vector`, else two guarded float loads (0.0f for a column outside N);
  //   2. for each row r of Asub (0 .. kTileM - 1): a = As[r][p]; acc[r].x += a * b.x; acc[r].y += a * b.y
  //      (fmaf). Every thread reads the same As[r][p]: a broadcast.
  (void)acc, (void)As, (void)b, (void)n, (void)col, (void)has_x, (void)has_y, (void)vector, (void)steps;
}

__global__ void __launch_bounds__(kThreads)
    sgemm_register_inner_product_kernel(int m, int n, int k, float alpha, const float* __restrict__ A,
                                        const float* __restrict__ B, float beta, float* __restrict__ C,
                                        bool pairs_aligned) {
  __shared__ float As[kTileM][kTileK];
  const int row0 = blockIdx.y * kTileM;
  const int col = blockIdx.x * kTileN + 2 * static_cast<int>(threadIdx.x);
  const bool has_x = col < n, has_y = col + 1 < n;
  const bool vector = pairs_aligned && has_y;

  float2 acc[kTileM];
#pragma unroll
  for (int r = 0; r < kTileM; ++r) acc[r] = make_float2(0.0f, 0.0f);

  for (int p0 = 0; p0 < k; p0 += kTileK) {
    stage_asub(As, A, m, k, row0, p0);
    __syncthreads();
    const float* b = B + static_cast<long long>(p0) * n;
    const int steps = min(kTileK, k - p0);
    // Constant arguments where possible: once inlined, the compiler drops the branches they decide.
    if (steps == kTileK) {
      if (vector) multiply_asub(acc, As, b, n, col, true, true, true, kTileK);
      else multiply_asub(acc, As, b, n, col, has_x, has_y, false, kTileK);
    } else {
      if (vector) multiply_asub(acc, As, b, n, col, true, true, true, steps);
      else multiply_asub(acc, As, b, n, col, has_x, has_y, false, steps);
    }
    __syncthreads();
  }

#pragma unroll
  for (int r = 0; r < kTileM; ++r) {
    const int row = row0 + r;
    if (row >= m) break;
    float* c = C + static_cast<long long>(row) * n + col;
    // beta == 0: C is output only and is not read
    if (has_x) c[0] = beta == 0.0f ? alpha * acc[r].x : fmaf(beta, c[0], alpha * acc[r].x);
    if (has_y) c[1] = beta == 0.0f ? alpha * acc[r].y : fmaf(beta, c[1], alpha * acc[r].y);
  }
}

inline void sgemm(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                  cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  const bool pairs_aligned = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(B) % 8 == 0;
  const dim3 grid((n + kTileN - 1) / kTileN, (m + kTileM - 1) / kTileM);
  sgemm_register_inner_product_kernel<<<grid, kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C, pairs_aligned);
  TUT_CHECK_LAUNCH();
}

}  // namespace sgemm_register_inner_product
