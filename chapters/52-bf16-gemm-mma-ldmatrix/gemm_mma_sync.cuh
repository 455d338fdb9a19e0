// Chapter 52: the tensor cores without wmma: mma.sync.m16n8k16 (BF16 in, FP32 accumulate) on fragments that
// ldmatrix loads from shared tiles laid out with an XOR swizzle, as sm_80-89 GPUs run a GEMM. The fragment
// layouts are the PTX ISA's, so the epilogue writes C straight from the accumulator registers, and the
// swizzle (common/gemm_tc/mma_sync.cuh, Swizzled32) makes every ldmatrix and every 16-byte store to the tiles
// free of bank conflicts without the padding chapter 51 spends. sm_80+: below it the kernel body compiles
// out and the host refuses the GPU.
//
// Layout (common/gemm_tc/tc_workload.cuh): A M x K, B N x K, both row-major BF16 (K-major); C M x N FP32.
// A block of 8 warps computes a 128 x 128 tile of C over 32-deep K slices, copied synchronously (through
// registers) as in chapter 51; warps 2 (M) x 4 (N), each a 64 x 32 warp tile of 4 x 4 mma tiles of 16 x 8.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"
#include "gemm/gemm_workload.cuh"
#include "gemm_tc/mma_sync.cuh"
#include "gemm_tc/tc_workload.cuh"
#include "gemm_tc/tile_copy.cuh"

namespace gemm_mma_sync {

using tut::gemm_tc::bf16;

constexpr int kBlockM = 128, kBlockN = 128, kBlockK = 32;
constexpr int kWarpsM = 2, kWarpsN = 4, kThreads = 32 * kWarpsM * kWarpsN;
constexpr int kWarpM = kBlockM / kWarpsM, kWarpN = kBlockN / kWarpsN;  // 64 x 32
constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;                        // mma.m16n8k16
constexpr int kTilesM = kWarpM / kMmaM, kTilesN = kWarpN / kMmaN;      // 4 x 4
using Swizzle = tut::gemm_tc::Swizzled32;
static_assert(kBlockK == Swizzle::kRowElements, "the swizzle is for rows of 32 BF16");
static_assert(kWarpM % kMmaM == 0 && kWarpN % (2 * kMmaN) == 0, "B is loaded two n-tiles per ldmatrix.x4");
static_assert(kBlockK % kMmaK == 0, "whole mma steps per slice");

// Layout: the shared tiles' (row, 16-byte chunk) -> element offset, Swizzle for the chapter; a template parameter so
// that exercise 52-ldmatrix-swizzle runs this kernel with its own.
template <class Layout>
__global__ void __launch_bounds__(kThreads) gemm_mma_sync_kernel(int m, int n, int k, float alpha,
                                                                 const bf16* __restrict__ A,
                                                                 const bf16* __restrict__ B, float beta,
                                                                 float* __restrict__ C, bool vec_a, bool vec_b,
                                                                 bool pairs_c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace tut::gemm_tc;
  __shared__ __align__(128) bf16 a_tile[kBlockM * kBlockK];
  __shared__ __align__(128) bf16 b_tile[kBlockN * kBlockK];
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int warp_m = (warp / kWarpsN) * kWarpM, warp_n = (warp % kWarpsN) * kWarpN;
  const int m0 = static_cast<int>(blockIdx.y) * kBlockM, n0 = static_cast<int>(blockIdx.x) * kBlockN;

  float acc[kTilesM][kTilesN][4] = {};
  for (int k0 = 0; k0 < k; k0 += kBlockK) {
    copy_tile<kBlockM, kBlockK, kThreads, false>(a_tile, Layout{}, A, m, k, k, m0, k0, vec_a);
    copy_tile<kBlockN, kBlockK, kThreads, false>(b_tile, Layout{}, B, n, k, k, n0, k0, vec_b);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBlockK; kk += kMmaK) {
      std::uint32_t a[kTilesM][4], b[kTilesN / 2][4];
#pragma unroll
      for (int i = 0; i < kTilesM; ++i)
        ldmatrix_x4(a[i], a_tile + Layout{}(warp_m + i * kMmaM + a_ldmatrix_row(lane), kk / 8 + a_ldmatrix_chunk(lane)));
#pragma unroll
      for (int p = 0; p < kTilesN / 2; ++p)  // n-tiles 2p and 2p + 1: registers {0, 1} and {2, 3}
        ldmatrix_x4(b[p], b_tile + Layout{}(warp_n + p * 2 * kMmaN + b_ldmatrix_row(lane), kk / 8 + b_ldmatrix_chunk(lane)));
#pragma unroll
      for (int i = 0; i < kTilesM; ++i)
#pragma unroll
        for (int j = 0; j < kTilesN; ++j) mma_bf16_16816(acc[i][j], a[i], b[j / 2][(j % 2) * 2], b[j / 2][(j % 2) * 2 + 1]);
    }
    __syncthreads();  // the tiles are overwritten next
  }
#pragma unroll
  for (int i = 0; i < kTilesM; ++i)
#pragma unroll
    for (int j = 0; j < kTilesN; ++j)
      store_c_fragment(acc[i][j], C, m, n, m0 + warp_m + i * kMmaM, n0 + warp_n + j * kMmaN, alpha, beta, pairs_c);
#else
  (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)vec_a, (void)vec_b, (void)pairs_c;
#endif
}

// The launcher, with the tiles' layout as a parameter (exercise 52 passes its own).
template <class Layout>
inline void gemm_with(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                      cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  const bool pairs_c = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
  gemm_mma_sync_kernel<Layout><<<tut::gemm::tile_grid(m, n, kBlockM, kBlockN), kThreads, 0, stream>>>(
      m, n, k, alpha, A, B, beta, C, tut::gemm_tc::vector_ok(A, k), tut::gemm_tc::vector_ok(B, k), pairs_c);
  TUT_CHECK_LAUNCH();
}

inline void gemm(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                 cudaStream_t stream) {
  gemm_with<Swizzle>(m, n, k, alpha, A, B, beta, C, stream);
}

}  // namespace gemm_mma_sync
