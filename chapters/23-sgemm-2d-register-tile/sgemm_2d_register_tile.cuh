// Chapter 23: SGEMM with a two-dimensional register tile per thread.
//
// C[m x n] = alpha * A[m x k] * B[k x n] + beta * C, all row-major (leading dimensions k, n, n).
//
// The article's kernel (seed 002 §2, chapter 22) gives each thread one row of results and reads B straight
// from global memory. Here both operands go through shared memory, and each thread owns an 8 x 8 tile of
// C in registers. For every k it loads an 8-element column fragment of A and an 8-element row fragment of
// B from shared memory and adds their outer product: 16 shared loads feed 64 FFMAs (one load per 4 FMAs;
// the article's one-row-per-thread layout needs one shared load per FMA or so).
//
//   block tile 128 x 128 of C, k sliced by 8        256 threads = 16 x 16 thread tiles of 8 x 8
//
//        B slice (8 x 128, shared)                   for each k-slice:
//                 |                                    stage A[128 x 8] and B[8 x 128] in shared memory
//   A slice  ->  C tile                                for kk in 0..7:
//   (128 x 8,    (128 x 128)                              a = A_s[ty*8 .. ty*8+7][kk]     8 registers
//    shared)     thread (ty, tx) owns                     b = B_s[kk][tx*8 .. tx*8+7]     8 registers
//                rows ty*8.., cols tx*8..                 acc[i][j] += a[i] * b[j]        64 FFMAs
//
// Any m, n, k: loads outside the matrix put zeros into shared memory (they add nothing to the sums),
// stores outside it are skipped. beta == 0 does not read C (BLAS semantics: C may hold NaN).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda_check.cuh"

namespace sgemm_2d_register_tile {

// ---- Tile shape ---------------------------------------------------------------------------------------
constexpr int kBlockM = 128;  // rows of C per block
constexpr int kBlockN = 128;  // columns of C per block
constexpr int kBlockK = 8;    // depth of one shared-memory slice of A and B
constexpr int kThreadM = 8;   // rows of C per thread
constexpr int kThreadN = 8;   // columns of C per thread
constexpr int kThreadsN = kBlockN / kThreadN;    // 16 thread tiles across
constexpr int kThreadsM = kBlockM / kThreadM;    // 16 thread tiles down
constexpr int kThreads = kThreadsM * kThreadsN;  // 256
constexpr int kLoadsA = kBlockM * kBlockK / kThreads;  // A elements each thread stages per slice (4)
constexpr int kLoadsB = kBlockK * kBlockN / kThreads;  // B elements each thread stages per slice (4)
constexpr int kSharedBytes = (kBlockM * kBlockK + kBlockK * kBlockN) * static_cast<int>(sizeof(float));

static_assert(kBlockM % kThreadM == 0 && kBlockN % kThreadN == 0, "thread tiles must cover the block tile");
static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 1024 threads per block");
static_assert((kBlockM * kBlockK) % kThreads == 0, "every thread stages the same number of A elements");
static_assert((kBlockK * kBlockN) % kThreads == 0, "every thread stages the same number of B elements");
static_assert(kSharedBytes <= 48 * 1024, "static shared memory is limited to 48 KiB per block");

// ---- Building blocks ----------------------------------------------------------------------------------
// Stage A[row0 .. row0+127][k0 .. k0+7] in shared memory as it lies in global memory (row-major). Element
// e = tid + i * 256 goes to row e / 8, column e % 8: a warp reads 4 rows x 32 contiguous bytes.
__device__ __forceinline__ void load_tile_a(const float* __restrict__ A, int m, int k, int row0, int k0,
                                            float (&As)[kBlockM][kBlockK]) {
#pragma unroll
  for (int i = 0; i < kLoadsA; ++i) {
    const int e = static_cast<int>(threadIdx.x) + i * kThreads;
    const int r = e / kBlockK, c = e % kBlockK;
    const int gr = row0 + r, gc = k0 + c;
    As[r][c] = (gr < m && gc < k) ? A[static_cast<std::size_t>(gr) * k + gc] : 0.0f;
  }
}

// Stage B[k0 .. k0+7][col0 .. col0+127]: a warp reads 32 contiguous floats of one row.
__device__ __forceinline__ void load_tile_b(const float* __restrict__ B, int n, int k, int k0, int col0,
                                            float (&Bs)[kBlockK][kBlockN]) {
#pragma unroll
  for (int i = 0; i < kLoadsB; ++i) {
    const int e = static_cast<int>(threadIdx.x) + i * kThreads;
    const int r = e / kBlockN, c = e % kBlockN;
    const int gr = k0 + r, gc = col0 + c;
    Bs[r][c] = (gr < k && gc < n) ? B[static_cast<std::size_t>(gr) * n + gc] : 0.0f;
  }
}

// acc += A_s[rows of this thread][:] * B_s[:][columns of this thread], one outer product per kk.
__device__ __forceinline__ void multiply_tile(const float (&As)[kBlockM][kBlockK],
                                              const float (&Bs)[kBlockK][kBlockN], int thread_row,
                                              int thread_col, float (&acc)[kThreadM][kThreadN]) {
#pragma unroll
  for (int kk = 0; kk < kBlockK; ++kk) {
    float a_frag[kThreadM];
    float b_frag[kThreadN];
#pragma unroll
    for (int i = 0; i < kThreadM; ++i) a_frag[i] = As[thread_row + i][kk];
#pragma unroll
    for (int j = 0; j < kThreadN; ++j) b_frag[j] = Bs[kk][thread_col + j];
#pragma unroll
    for (int i = 0; i < kThreadM; ++i)
#pragma unroll
      for (int j = 0; j < kThreadN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
  }
}

// C = alpha * acc + beta * C for the elements of this thread's tile that lie inside the matrix.
__device__ __forceinline__ void store_tile(float* __restrict__ C, int m, int n, int row0, int col0,
                                           float alpha, float beta, const float (&acc)[kThreadM][kThreadN]) {
#pragma unroll
  for (int i = 0; i < kThreadM; ++i) {
    const int gr = row0 + i;
    if (gr >= m) break;
    float* c_row = C + static_cast<std::size_t>(gr) * n;
#pragma unroll
    for (int j = 0; j < kThreadN; ++j) {
      const int gc = col0 + j;
      if (gc < n) c_row[gc] = beta == 0.0f ? alpha * acc[i][j] : fmaf(beta, c_row[gc], alpha * acc[i][j]);
    }
  }
}

// ---- The kernel ---------------------------------------------------------------------------------------
__global__ void __launch_bounds__(kThreads)
    sgemm_2d_register_tile_kernel(int m, int n, int k, float alpha, const float* __restrict__ A,
                                  const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ float As[kBlockM][kBlockK];
  __shared__ float Bs[kBlockK][kBlockN];

  const int block_row = static_cast<int>(blockIdx.y) * kBlockM;
  const int block_col = static_cast<int>(blockIdx.x) * kBlockN;
  const int thread_row = static_cast<int>(threadIdx.x) / kThreadsN * kThreadM;  // inside the block tile
  const int thread_col = static_cast<int>(threadIdx.x) % kThreadsN * kThreadN;

  float acc[kThreadM][kThreadN] = {};
  for (int k0 = 0; k0 < k; k0 += kBlockK) {
    load_tile_a(A, m, k, block_row, k0, As);
    load_tile_b(B, n, k, k0, block_col, Bs);
    __syncthreads();  // the slice is complete before anyone reads it
    multiply_tile(As, Bs, thread_row, thread_col, acc);
    __syncthreads();  // everyone is done with the slice before the next one overwrites it
  }
  store_tile(C, m, n, block_row + thread_row, block_col + thread_col, alpha, beta, acc);
}

// ---- Host launcher ------------------------------------------------------------------------------------
inline void sgemm(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                  cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;  // an empty C: nothing to write
  const dim3 grid((n + kBlockN - 1) / kBlockN, (m + kBlockM - 1) / kBlockM);
  sgemm_2d_register_tile_kernel<<<grid, kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  TUT_CHECK_LAUNCH();
}

}  // namespace sgemm_2d_register_tile
