// Exercise 21 (chapter 21-sgemm-shared-tiling): the shared-memory tile loop of the tiled SGEMM.
//
// Row-major C[m x n] = alpha * A[m x k] * B[k x n] + beta * C (leading dimensions k, n, n), any m, n, k.
// A block of 32 x 32 threads computes a 32 x 32 tile of C, one element per thread, walking K in steps of
// 32: each step the block copies a 32 x 32 tile of A and one of B into shared memory, and each thread
// accumulates 32 products from them.
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.cuh"

namespace sgemm_smem_tile_loop {

constexpr int kTile = 32;

__global__ void __launch_bounds__(kTile * kTile)
    sgemm_smem_tile_loop_kernel(int m, int n, int k, float alpha, const float* __restrict__ A,
                                const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ float As[kTile][kTile];  // As[r][p]: row r of the block's rows, column p of the K step
  __shared__ float Bs[kTile][kTile];  // Bs[p][c]: row p of the K step, column c of the block's columns
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;

  float acc = 0.0f;
  for (int p0 = 0; p0 < k; p0 += kTile) {
    // One element of each tile per thread, zero outside A and B, so the products need no conditions.
    As[ty][tx] = row < m && p0 + tx < k ? A[static_cast<long long>(row) * k + p0 + tx] : 0.0f;
    Bs[ty][tx] = p0 + ty < k && col < n ? B[static_cast<long long>(p0 + ty) * n + col] : 0.0f;
    __syncthreads();  // the tiles are complete
#pragma unroll
    for (int p = 0; p < kTile; ++p) acc = fmaf(As[ty][p], Bs[p][tx], acc);
    __syncthreads();  // everyone has read them before the next step overwrites them
  }

  if (row < m && col < n) {
    float* c = C + static_cast<long long>(row) * n + col;
    *c = beta == 0.0f ? alpha * acc : fmaf(beta, *c, alpha * acc);  // beta == 0: C is not read
  }
}

inline void sgemm(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                  cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  const dim3 block(kTile, kTile);
  const dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  sgemm_smem_tile_loop_kernel<<<grid, block, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  TUT_CHECK_LAUNCH();
}

}  // namespace sgemm_smem_tile_loop
