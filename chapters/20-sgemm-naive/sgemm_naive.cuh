// Chapter 20: the naive SGEMM, one thread per element of C.
//
// Row-major C[m x n] = alpha * A[m x k] * B[k x n] + beta * C (leading dimensions k, n, n). Thread (row,
// col) walks row `row` of A and column `col` of B and keeps its dot product in one register. Nothing is
// reused on chip except by the caches, so every FMA needs two loads: the kernel is bound by how fast
// the L1/L2 caches can feed it, not by the FP32 pipes.
//
// The one idea of this chapter is which index a warp's 32 threads run along:
//   coalesced:   threadIdx.x runs along N (columns). A warp reads 32 consecutive floats of a row of B
//                (one 128-byte line) and one float of A (the same address for all 32: a broadcast).
//   uncoalesced: threadIdx.x runs along M (rows). A warp reads 32 floats of A that are k floats apart
//                (32 different lines) and one float of B.
// Same arithmetic, same results; only the memory transactions per instruction differ.
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.cuh"
#include "gemm/gemm_workload.cuh"

namespace sgemm_naive {

constexpr int kBlockX = 32;  // one warp along threadIdx.x
constexpr int kBlockY = 8;   // 256 threads per block
static_assert(kBlockX == 32, "threadIdx.x must span exactly one warp for the mapping to mean what it says");

enum class Mapping { columns_along_x, rows_along_x };

// C's epilogue with BLAS semantics: beta == 0 means C is output only and is not read (it may hold NaN).
__device__ __forceinline__ float epilogue(float acc, float alpha, float beta, const float* c) {
  return beta == 0.0f ? alpha * acc : fmaf(beta, *c, alpha * acc);
}

template <Mapping kMapping>
__global__ void __launch_bounds__(kBlockX * kBlockY)
    sgemm_naive_kernel(int m, int n, int k, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                       float beta, float* __restrict__ C) {
  // Block (bx, by) covers a tile of C: kBlockY rows x kBlockX columns when columns run along x,
  // kBlockX rows x kBlockY columns when rows do.
  const int row = kMapping == Mapping::columns_along_x ? blockIdx.y * kBlockY + threadIdx.y
                                                        : blockIdx.y * kBlockX + threadIdx.x;
  const int col = kMapping == Mapping::columns_along_x ? blockIdx.x * kBlockX + threadIdx.x
                                                        : blockIdx.x * kBlockY + threadIdx.y;
  if (row >= m || col >= n) return;  // no barriers below, so threads past the edge may leave
  const float* a = A + static_cast<long long>(row) * k;  // row `row` of A
  const float* b = B + col;                               // column `col` of B, stride n
  float acc = 0.0f;
  for (int p = 0; p < k; ++p) acc = fmaf(a[p], b[static_cast<long long>(p) * n], acc);
  float* c = C + static_cast<long long>(row) * n + col;
  *c = epilogue(acc, alpha, beta, c);
}

template <Mapping kMapping>
void launch(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
            cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid = kMapping == Mapping::columns_along_x ? tut::gemm::tile_grid(m, n, kBlockY, kBlockX)
                                                         : tut::gemm::tile_grid(m, n, kBlockX, kBlockY);
  sgemm_naive_kernel<kMapping><<<grid, block, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  TUT_CHECK_LAUNCH();
}

// The stage: threadIdx.x along N, so that a warp's loads of B are one 128-byte line.
inline void sgemm_naive(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                        cudaStream_t stream) {
  launch<Mapping::columns_along_x>(m, n, k, alpha, A, B, beta, C, stream);
}

// The lesson: threadIdx.x along M, so that a warp's loads of A touch 32 lines.
inline void sgemm_naive_uncoalesced(int m, int n, int k, float alpha, const float* A, const float* B, float beta,
                                    float* C, cudaStream_t stream) {
  launch<Mapping::rows_along_x>(m, n, k, alpha, A, B, beta, C, stream);
}

}  // namespace sgemm_naive
