// Exercise 51 (chapter 51-bf16-gemm-wmma): the loop of wmma fragments over one 32-deep slice of the shared tiles, the
// part of chapter 51's kernel where the tensor cores do the work.
//
// Chapter 51's header is included unchanged: its block tile (128 x 128 x 32, 8 warps of 64 x 32), the padded shared
// rows (kPaddedK = 40 elements), the accumulators' type and the kernel, which takes its fragment loop as a template
// parameter. The kernel copies a slice of A and one of B into a_tile and b_tile (rows of K, padded), waits for
// every thread, calls the loop below, waits again, and after the last slice stores the accumulators to C.
//
// The tiles (element offsets): A's row r, k kk is a_tile[r * kPaddedK + kk] (rows of A, K contiguous);
// B's row c (a column of B^T, the matrix that multiplies A), k kk is b_tile[c * kPaddedK + kk].
// The warp owns rows warp_m ... warp_m + 63 and columns warp_n ... warp_n + 31 of the block tile:
// acc[i][j] is the 16 x 16 block at rows warp_m + 16 i, columns warp_n + 16 j.
#pragma once

#include <cuda_runtime.h>
#include <mma.h>

#include "../../chapters/51-bf16-gemm-wmma/gemm_wmma.cuh"  // chapter 51, its kernel takes the loop

namespace wmma_fragment_loop {

using gemm_wmma::Accumulators;
using gemm_wmma::bf16;
using gemm_wmma::kBlockK;
using gemm_wmma::kFrag;
using gemm_wmma::kFragsM;
using gemm_wmma::kFragsN;
using gemm_wmma::kPaddedK;

// acc[i][j] += (rows warp_m + 16 i ... of A) x (columns warp_n + 16 j ... of B^T) over the slice's kBlockK values of
// K, one 16 x 16 x 16 mma_sync per fragment pair and 16-deep step. Called by every thread of the warp (the wmma
// operations are warp-wide). BF16 fragments exist from sm_80 on: below it the body compiles out.
struct FragmentLoop {
  __device__ __forceinline__ void operator()(Accumulators& acc, const bf16* a_tile, const bf16* b_tile, int warp_m,
                                             int warp_n) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    namespace wmma = nvcuda::wmma;
#pragma unroll
    for (int kk = 0; kk < kBlockK; kk += kFrag) {
      // A's rows as they lie in the tile (K contiguous): row_major. B's rows are the columns of B^T, so the
      // K x N fragment reads the same tile as col_major; the leading dimension of both is the padded row.
      wmma::fragment<wmma::matrix_a, kFrag, kFrag, kFrag, bf16, wmma::row_major> a[kFragsM];
      wmma::fragment<wmma::matrix_b, kFrag, kFrag, kFrag, bf16, wmma::col_major> b[kFragsN];
#pragma unroll
      for (int i = 0; i < kFragsM; ++i) {
        const bf16* a_block = a_tile + (warp_m + i * kFrag) * kPaddedK + kk;
        wmma::load_matrix_sync(a[i], a_block, kPaddedK);
      }
#pragma unroll
      for (int j = 0; j < kFragsN; ++j) {
        const bf16* b_block = b_tile + (warp_n + j * kFrag) * kPaddedK + kk;
        wmma::load_matrix_sync(b[j], b_block, kPaddedK);
      }
      // Every A fragment with every B fragment: 8 products from 6 loads.
#pragma unroll
      for (int i = 0; i < kFragsM; ++i) {
#pragma unroll
        for (int j = 0; j < kFragsN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
      }
    }
#endif
    (void)acc, (void)a_tile, (void)b_tile, (void)warp_m, (void)warp_n;  // below sm_80: nothing to do
  }
};

// Chapter 51's launcher with this loop (C = alpha A B^T + beta C; A M x K, B N x K, both row-major BF16, C FP32).
inline void gemm(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                 cudaStream_t stream) {
  gemm_wmma::gemm_with<FragmentLoop>(m, n, k, alpha, A, B, beta, C, stream);
}

}  // namespace wmma_fragment_loop
