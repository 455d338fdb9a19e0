// Exercise 26 (chapter 26-sgemm-double-buffering): the main loop of the double-buffered SGEMM, where cp.async
// copies the next slice of A and B into one shared buffer while the block multiplies the other.
//
// Chapter 26's header is included unchanged: its tile shape, its cp.async slice loaders (load_tile_a, load_tile_b:
// each thread starts its copies of one slice, which land later) and its launcher's test (can_vectorize); chapter
// 24's multiply_quads and store_quads come from common/gemm/tile_blocks.cuh, the cp.async wrappers from
// common/cp_async.cuh. The kernel below is chapter 26's, with its main loop in main_loop(), the function to write.
//
// The pipeline's rules (common/cp_async.cuh): a thread's copies are grouped by cp_async_commit();
// cp_async_wait<N>() returns once at most N of THIS thread's groups are still in flight; other threads' copies
// are visible only after a __syncthreads() as well.
#pragma once

#include <cuda_runtime.h>

#include "../../chapters/26-sgemm-double-buffering/sgemm_double_buffering.cuh"  // chapter 26, unchanged
#include "cp_async.cuh"
#include "gemm/tile_blocks.cuh"

namespace cp_async_pipeline {

using namespace sgemm_double_buffering;  // tile shape, load_tile_a, load_tile_b, cp_async_commit, cp_async_wait

// acc += the block's rows of A times its columns of B, over all of K, slice by slice (kBlockK deep), with slice
// t + 1 copied into buffer (t + 1) % 2 while slice t in buffer t % 2 is multiplied. Every thread of the block calls
// it (the barriers need all of them). thread_row/thread_col: the thread's first quad in the block tile.
template <bool kVectorized>
__device__ __forceinline__ void main_loop(const float* __restrict__ A, const float* __restrict__ B, int m, int n,
                                          int k, int block_row, int block_col, int thread_row, int thread_col,
                                          float (&As)[kStages][kBlockK][kBlockM + kPadA],
                                          float (&Bs)[kStages][kBlockK][kBlockN], float (&acc)[kThreadM][kThreadN]) {
  const int slices = (k + kBlockK - 1) / kBlockK;
  if (slices > 0) {  // prologue: slice 0 into buffer 0
    load_tile_a(A, m, k, block_row, 0, As[0]);
    load_tile_b<kVectorized>(B, n, k, 0, block_col, Bs[0]);
  }
  cp_async_commit();
  for (int t = 0; t < slices; ++t) {
    const int buf = t % kStages;
    if (t + 1 < slices) {  // the next slice into the other buffer, while this one is multiplied
      load_tile_a(A, m, k, block_row, (t + 1) * kBlockK, As[buf ^ 1]);
      load_tile_b<kVectorized>(B, n, k, (t + 1) * kBlockK, block_col, Bs[buf ^ 1]);
    }
    cp_async_commit();   // one group per iteration, empty on the last: the count below stays right
    cp_async_wait<1>();  // all groups but the newest have landed: this thread's copies of slice t
    __syncthreads();     // ... and, after the barrier, every other thread's
    tut::gemm::multiply_quads<kLanesM, kLanesN>(As[buf], Bs[buf], thread_row, thread_col, acc);
    __syncthreads();     // everyone is done with buffer buf before iteration t + 1 copies slice t + 2 into it
  }
}

// Chapter 26's kernel, with main_loop.
template <bool kVectorized>
__global__ void __launch_bounds__(kThreads)
    pipeline_kernel(int m, int n, int k, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                    float beta, float* __restrict__ C) {
  __shared__ __align__(16) float As[kStages][kBlockK][kBlockM + kPadA];  // transposed: As[buf][kk][row]
  __shared__ __align__(16) float Bs[kStages][kBlockK][kBlockN];
  const int block_row = static_cast<int>(blockIdx.y) * kBlockM;
  const int block_col = static_cast<int>(blockIdx.x) * kBlockN;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int thread_row = warp / kWarpsN * kWarpM + lane / kLanesN * kQuad;
  const int thread_col = warp % kWarpsN * kWarpN + lane % kLanesN * kQuad;
  float acc[kThreadM][kThreadN] = {};
  main_loop<kVectorized>(A, B, m, n, k, block_row, block_col, thread_row, thread_col, As, Bs, acc);
  tut::gemm::store_quads<kVectorized, kLanesM, kLanesN>(C, m, n, block_row + thread_row, block_col + thread_col,
                                                     alpha, beta, acc);
}

// Chapter 26's launcher, with this kernel.
inline void sgemm(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                  cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  const dim3 grid((n + kBlockN - 1) / kBlockN, (m + kBlockM - 1) / kBlockM);
  if (can_vectorize(n, B, C))
    pipeline_kernel<true><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  else
    pipeline_kernel<false><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  TUT_CHECK_LAUNCH();
}

}  // namespace cp_async_pipeline
