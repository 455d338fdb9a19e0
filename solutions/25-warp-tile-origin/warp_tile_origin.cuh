// Exercise 25 (chapter 25-sgemm-warp-tiling): which results of the block tile a thread owns, once the block tile
// is split into warp tiles and each warp tile into lane quads.
//
// Chapter 25's tile shape (its constants, included unchanged) and chapter 24's building blocks
// (common/gemm/tile_blocks.cuh: the slice loaders, multiply_quads, store_quads) are used as they are; the kernel
// below is chapter 25's, except that the first row and column of a thread's first quad come from
// thread_quad_origin(), the function to write.
//
//   block tile 128 x 128 = kWarpsM x kWarpsN = 4 x 2 warp tiles of kWarpM x kWarpN = 32 x 64 (warp w: row w / 2,
//                          column w % 2 of that grid)
//   warp tile 32 x 64    = 2 x 2 sub-tiles of 16 x 32; the 32 lanes as a kLanesM x kLanesN = 4 x 8 grid, lane l
//                          at row l / 8, column l % 8, each owning a kQuad x kQuad = 4 x 4 quad of every sub-tile
//   thread's quads        rows origin.row + im * 16 + 0..3, columns origin.col + in * 32 + 0..3 (im, in = 0, 1):
//                          multiply_quads<kLanesM, kLanesN> and store_quads read and write them there.
#pragma once

#include <cuda_runtime.h>

#include "../../chapters/25-sgemm-warp-tiling/sgemm_warp_tiling.cuh"  // chapter 25, unchanged: tile shape, can_vectorize
#include "gemm/tile_blocks.cuh"

namespace warp_tile_origin {

using namespace sgemm_warp_tiling;  // kBlockM, kWarpM, kLanesN, kQuad, ...

// The first row and column, inside the block tile, of a thread's first 4 x 4 quad.
struct QuadOrigin {
  int row, col;
};

// Thread `lane` of warp `warp` (0 <= warp < kWarpsM * kWarpsN, 0 <= lane < 32).
__host__ __device__ inline QuadOrigin thread_quad_origin(int warp, int lane) {
  return {warp / kWarpsN * kWarpM + lane / kLanesN * kQuad,   // the warp tile's row, then the lane's row of quads
          warp % kWarpsN * kWarpN + lane % kLanesN * kQuad};  // the warp tile's column, then the lane's column
}

// Chapter 25's kernel, with the quad origin from thread_quad_origin.
template <bool kVectorized>
__global__ void __launch_bounds__(kThreads)
    warp_tile_kernel(int m, int n, int k, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                     float beta, float* __restrict__ C) {
  __shared__ __align__(16) float As[kBlockK][kBlockM + kPadA];  // transposed: As[kk][row]
  __shared__ __align__(16) float Bs[kBlockK][kBlockN];
  const int block_row = static_cast<int>(blockIdx.y) * kBlockM;
  const int block_col = static_cast<int>(blockIdx.x) * kBlockN;
  const QuadOrigin o = thread_quad_origin(static_cast<int>(threadIdx.x) / 32, static_cast<int>(threadIdx.x) % 32);
  float acc[kThreadM][kThreadN] = {};
  for (int k0 = 0; k0 < k; k0 += kBlockK) {
    tut::gemm::load_tile_a_transposed<kVectorized, kBlockM, kThreads>(A, m, k, block_row, k0, As);
    tut::gemm::load_tile_b<kVectorized, kThreads>(B, n, k, k0, block_col, Bs);
    __syncthreads();
    tut::gemm::multiply_quads<kLanesM, kLanesN>(As, Bs, o.row, o.col, acc);
    __syncthreads();
  }
  tut::gemm::store_quads<kVectorized, kLanesM, kLanesN>(C, m, n, block_row + o.row, block_col + o.col, alpha, beta,
                                                     acc);
}

// Chapter 25's launcher, with this kernel.
inline void sgemm(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                  cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  const dim3 grid((n + kBlockN - 1) / kBlockN, (m + kBlockM - 1) / kBlockM);
  if (can_vectorize(n, k, A, B, C))
    warp_tile_kernel<true><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  else
    warp_tile_kernel<false><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  TUT_CHECK_LAUNCH();
}

}  // namespace warp_tile_origin
