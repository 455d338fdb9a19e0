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
  // TODO (with the loop below): the two tiles in shared memory,
  //   __shared__ float As[kTile][kTile];  // As[r][p]: row r of the block's rows, column p of the K step
  //   __shared__ float Bs[kTile][kTile];  // Bs[p][c]: row p of the K step, column c of the block's columns
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;

  float acc = 0.0f;
  // TODO: the tile loop. For p0 = 0, 32, 64, ... while p0 < k:
  //   1. each thread copies one element of the A tile (row `row`, column p0 + tx) into As[ty][tx] and one
  //      of the B tile (row p0 + ty, column `col`) into Bs[ty][tx]; 0.0f where the element is outside A
  //      or B (past m, n or k), so that step 3 needs no conditions;
  //   2. wait until the whole block has written its elements;
  //   3. acc += As[ty][p] * Bs[p][tx] for p = 0 .. kTile - 1;
  //   4. wait until the whole block has read the tiles, before the next step overwrites them.
  // Every thread must reach both barriers, also those whose (row, col) is outside C.
  (void)A, (void)B, (void)k, (void)tx;

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
