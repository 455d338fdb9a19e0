// Exercise 52 (chapter 52-bf16-gemm-mma-ldmatrix): the XOR swizzle of the shared tiles, the layout that lets every
// ldmatrix of chapter 52's kernel (and every 16-byte store of its tile copy) run without a bank conflict.
//
// Chapter 52's header is included unchanged: its kernel takes the tiles' layout as a template parameter and uses it
// for both sides, the copy that writes the tiles (common/gemm_tc/tile_copy.cuh's copy_tile) and the ldmatrix_x4 that
// read them (common/gemm_tc/mma_sync.cuh). A tile is 128 rows of 32 BF16: 64 bytes, 4 chunks of 16 bytes a row.
//
// Shared memory has 32 banks of 4 bytes: a 128-byte line, 8 "bank groups" of 16 bytes, holds 2 rows of the tile.
// One 8 x 8 matrix of an ldmatrix is the same chunk of 8 consecutive rows, 16 bytes a row: it is served in one pass
// only when those 8 chunks lie in 8 different bank groups (a chunk at element offset e is in group (e / 8) % 8).
#pragma once

#include <cuda_runtime.h>

#include "../../chapters/52-bf16-gemm-mma-ldmatrix/gemm_mma_sync.cuh"  // chapter 52, its kernel takes the layout

namespace ldmatrix_swizzle {

// Where chunk `chunk` (0 ... 3: elements 8 chunk ... 8 chunk + 7 of the row) of tile row `row` is stored: the element
// offset of its first element. Used on the host too (the test checks the layout there before the GPU runs it).
struct XorSwizzle {
  static constexpr int kRowElements = 32;
  __host__ __device__ __forceinline__ int operator()(int row, int chunk) const {
    // TODO: return the element offset of chunk `chunk` of row `row` with the chunk XOR-swizzled, so that 8
    //   consecutive rows' copies of one chunk land in 8 different bank groups (groups: 16 bytes = 8 elements; two
    //   rows per 128-byte line). Keep every chunk inside its own row. As shipped the layout is plain row-major:
    //   the values come out right, but each 8 x 8 matrix of an ldmatrix hits 2 of the 8 bank groups, a 4-way
    //   bank conflict, and the test's layout check fails.
    return row * kRowElements + chunk * 8;
  }
};

// Chapter 52's launcher with this layout (C = alpha A B^T + beta C; A M x K, B N x K, both row-major BF16, C FP32).
inline void gemm(int m, int n, int k, float alpha, const gemm_mma_sync::bf16* A, const gemm_mma_sync::bf16* B,
                 float beta, float* C, cudaStream_t stream) {
  gemm_mma_sync::gemm_with<XorSwizzle>(m, n, k, alpha, A, B, beta, C, stream);
}

}  // namespace ldmatrix_swizzle
