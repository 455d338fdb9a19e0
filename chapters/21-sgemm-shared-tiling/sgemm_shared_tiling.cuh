// Chapter 21: SGEMM with square shared-memory tiles, one element of C per thread.
//
// Row-major C[m x n] = alpha * A[m x k] * B[k x n] + beta * C (leading dimensions k, n, n). The naive
// kernel (chapter 20) loads two floats per FMA; neighbouring threads load the same floats again (all 32
// threads of a row of the block read the same element of A, all rows of the block the same element of
// B). Here a block of 32 x 32 threads computes a 32 x 32 tile of C and walks K in steps of 32: each
// step, every thread copies ONE element of A and ONE of B into shared memory, the block waits at a
// barrier, and then every thread does 32 FMAs reading its row of the A tile and its column of the B tile
// from shared memory. Global loads per FMA fall from 2 to 2/32.
//
//        K  --->                                  N  --->
//    +----+----+----+         +----+----+----+       tile p of A (rows of this block, K columns p*32..)
//  M |As0 |As1 |As2 |  x   K  |Bs0 |    |    |       and tile p of B (K rows p*32.., columns of this
//    +----+----+----+      |  +----+----+----+       block) meet in shared memory; C's tile accumulates
//                          v  |Bs1 |    |    |       sum_p As_p * Bs_p in one register per thread.
//                             +----+----+----+
//
// Edges: a tile that runs past M, N or K is filled with zeros in shared memory (so the FMAs need no
// conditions) and only elements inside C are stored. Threads outside C still load and still reach both
// barriers: a thread that returned early would leave the others waiting at __syncthreads().
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.cuh"
#include "gemm/gemm_workload.cuh"

namespace sgemm_shared_tiling {

constexpr int kTile = 32;  // tile edge: one warp per row of the block, 1024 threads
static_assert(kTile == 32, "threadIdx.x spans one warp: loads of a tile row are one 128-byte line");

// C's epilogue with BLAS semantics: beta == 0 means C is output only and is not read (it may hold NaN).
__device__ __forceinline__ float epilogue(float acc, float alpha, float beta, const float* c) {
  return beta == 0.0f ? alpha * acc : fmaf(beta, *c, alpha * acc);
}

__global__ void __launch_bounds__(kTile * kTile)
    sgemm_shared_tiling_kernel(int m, int n, int k, float alpha, const float* __restrict__ A,
                               const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ float As[kTile][kTile];  // As[r][p]: row r of this block's rows, column p of the K step
  __shared__ float Bs[kTile][kTile];  // Bs[p][c]: row p of the K step, column c of this block's columns
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;

  float acc = 0.0f;
  for (int p0 = 0; p0 < k; p0 += kTile) {
    // One element of each tile per thread; a warp (fixed ty) reads 32 consecutive floats of a row of A
    // and 32 consecutive floats of a row of B: one 128-byte line each.
    As[ty][tx] = row < m && p0 + tx < k ? A[static_cast<long long>(row) * k + p0 + tx] : 0.0f;
    Bs[ty][tx] = p0 + ty < k && col < n ? B[static_cast<long long>(p0 + ty) * n + col] : 0.0f;
    __syncthreads();  // the tiles are complete
    // As[ty][p]: one address for the whole warp (a broadcast); Bs[p][tx]: 32 consecutive words, 32 banks.
#pragma unroll
    for (int p = 0; p < kTile; ++p) acc = fmaf(As[ty][p], Bs[p][tx], acc);
    __syncthreads();  // everyone is done reading before the next step overwrites the tiles
  }
  if (row < m && col < n) {
    float* c = C + static_cast<long long>(row) * n + col;
    *c = epilogue(acc, alpha, beta, c);
  }
}

inline void sgemm_shared_tiling(int m, int n, int k, float alpha, const float* A, const float* B, float beta,
                                float* C, cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  const dim3 block(kTile, kTile);
  sgemm_shared_tiling_kernel<<<tut::gemm::tile_grid(m, n, kTile, kTile), block, 0, stream>>>(m, n, k, alpha, A, B,
                                                                                             beta, C);
  TUT_CHECK_LAUNCH();
}

}  // namespace sgemm_shared_tiling
