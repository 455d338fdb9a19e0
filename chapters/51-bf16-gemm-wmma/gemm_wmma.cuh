// Chapter 51: the tensor cores through the portable C++ API, nvcuda::wmma. Each warp loads 16 x 16 BF16
// fragments of the shared tiles with load_matrix_sync and multiplies them with mma_sync, FP32 accumulation;
// the compiler picks the instructions and the registers' layout (opaque to us). BF16 fragments need sm_80:
// below it the kernel body compiles out and the host refuses the GPU (TcVariant::min_cc).
//
// Layout (common/gemm_tc/tc_workload.cuh): A M x K, B N x K, both row-major BF16 (K-major); C M x N FP32.
// A block of 8 warps computes a 128 x 128 tile of C over 32-deep K slices; warps 2 (M) x 4 (N), each a
// 64 x 32 warp tile of 4 x 2 accumulator fragments. The slices are copied synchronously (through registers)
// into rows padded by 8 elements; the accumulators leave through a per-warp 16 x 16 FP32 scratch tile, where
// the edge guards and alpha/beta are applied.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "cuda_check.cuh"
#include "gemm/gemm_workload.cuh"
#include "gemm_tc/tc_workload.cuh"
#include "gemm_tc/tile_copy.cuh"

namespace gemm_wmma {

using tut::gemm_tc::bf16;

constexpr int kBlockM = 128, kBlockN = 128, kBlockK = 32;
constexpr int kWarpsM = 2, kWarpsN = 4, kThreads = 32 * kWarpsM * kWarpsN;
constexpr int kWarpM = kBlockM / kWarpsM, kWarpN = kBlockN / kWarpsN;  // 64 x 32
constexpr int kFrag = 16;                                               // wmma's 16 x 16 x 16 BF16 shape
constexpr int kFragsM = kWarpM / kFrag, kFragsN = kWarpN / kFrag;       // 4 x 2
// Padded rows: 40 elements (80 bytes). wmma wants ldm a multiple of 8 elements and 32-byte aligned fragment
// pointers: 16 rows x 80 bytes and 16 elements x 2 bytes are both multiples of 32.
constexpr int kPaddedK = kBlockK + 8;
static_assert(kBlockM % (kWarpsM * kFrag) == 0 && kBlockN % (kWarpsN * kFrag) == 0, "whole fragments per warp");
static_assert(kBlockK % kFrag == 0, "whole fragment steps per slice");
static_assert(kPaddedK % 8 == 0 && (kFrag * kPaddedK * 2) % 32 == 0, "wmma ldm and alignment rules");

struct PaddedRows {
  __device__ __forceinline__ int operator()(int row, int chunk) const { return row * kPaddedK + chunk * 8; }
};

// The warp's 4 x 2 accumulator fragments (a 64 x 32 warp tile of C).
using Accumulators = nvcuda::wmma::fragment<nvcuda::wmma::accumulator, kFrag, kFrag, kFrag, float>[kFragsM][kFragsN];

// The stage's one idea: acc += the warp's rows of A times its columns of B over one 32-deep slice of the shared
// tiles, in 16-deep fragment steps (load_matrix_sync, mma_sync). A template parameter of the kernel, so that
// exercise 51-wmma-fragment-loop runs this kernel with its own loop.
struct WmmaFragmentLoop {
  __device__ __forceinline__ void operator()(Accumulators& acc, const bf16* a_tile, const bf16* b_tile, int warp_m,
                                             int warp_n) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    using namespace nvcuda;
#pragma unroll
    for (int kk = 0; kk < kBlockK; kk += kFrag) {
      wmma::fragment<wmma::matrix_a, kFrag, kFrag, kFrag, bf16, wmma::row_major> a[kFragsM];
      // B^T is K x N; element (kk, col) sits at b_tile[col][kk]: column-major with ldm kPaddedK.
      wmma::fragment<wmma::matrix_b, kFrag, kFrag, kFrag, bf16, wmma::col_major> b[kFragsN];
#pragma unroll
      for (int i = 0; i < kFragsM; ++i)
        wmma::load_matrix_sync(a[i], a_tile + (warp_m + i * kFrag) * kPaddedK + kk, kPaddedK);
#pragma unroll
      for (int j = 0; j < kFragsN; ++j)
        wmma::load_matrix_sync(b[j], b_tile + (warp_n + j * kFrag) * kPaddedK + kk, kPaddedK);
#pragma unroll
      for (int i = 0; i < kFragsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragsN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
#else
    (void)acc, (void)a_tile, (void)b_tile, (void)warp_m, (void)warp_n;
#endif
  }
};

template <class FragmentLoop>
__global__ void __launch_bounds__(kThreads) gemm_wmma_kernel(int m, int n, int k, float alpha,
                                                             const bf16* __restrict__ A, const bf16* __restrict__ B,
                                                             float beta, float* __restrict__ C, bool vec_a,
                                                             bool vec_b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace nvcuda;
  __shared__ __align__(128) bf16 a_tile[kBlockM * kPaddedK];
  __shared__ __align__(128) bf16 b_tile[kBlockN * kPaddedK];
  __shared__ __align__(128) float scratch[kThreads / 32][kFrag * kFrag];
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int warp_m = (warp / kWarpsN) * kWarpM, warp_n = (warp % kWarpsN) * kWarpN;
  const int m0 = static_cast<int>(blockIdx.y) * kBlockM, n0 = static_cast<int>(blockIdx.x) * kBlockN;

  wmma::fragment<wmma::accumulator, kFrag, kFrag, kFrag, float> acc[kFragsM][kFragsN];
#pragma unroll
  for (int i = 0; i < kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < kFragsN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < k; k0 += kBlockK) {
    tut::gemm_tc::copy_tile<kBlockM, kBlockK, kThreads, false>(a_tile, PaddedRows{}, A, m, k, k, m0, k0, vec_a);
    tut::gemm_tc::copy_tile<kBlockN, kBlockK, kThreads, false>(b_tile, PaddedRows{}, B, n, k, k, n0, k0, vec_b);
    __syncthreads();
    FragmentLoop{}(acc, a_tile, b_tile, warp_m, warp_n);
    __syncthreads();  // the tiles are overwritten next
  }

  // Out through the warp's scratch tile: the fragment's element-to-lane map is unspecified, so the guards
  // and alpha/beta are applied to a known layout.
  float* tile = scratch[warp];
#pragma unroll
  for (int i = 0; i < kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < kFragsN; ++j) {
      wmma::store_matrix_sync(tile, acc[i][j], kFrag, wmma::mem_row_major);
      __syncwarp();
#pragma unroll
      for (int e = lane; e < kFrag * kFrag; e += 32) {
        const int row = m0 + warp_m + i * kFrag + e / kFrag, col = n0 + warp_n + j * kFrag + e % kFrag;
        if (row < m && col < n) {
          float* c = C + static_cast<std::size_t>(row) * n + col;
          *c = beta != 0.0f ? alpha * tile[e] + beta * *c : alpha * tile[e];  // beta == 0: C not read
        }
      }
      __syncwarp();  // the scratch tile is overwritten next
    }
#else
  (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)vec_a, (void)vec_b;
#endif
}

// The launcher, with the kernel's fragment loop as a parameter (exercise 51 passes its own).
template <class FragmentLoop>
inline void gemm_with(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                      cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  gemm_wmma_kernel<FragmentLoop><<<tut::gemm::tile_grid(m, n, kBlockM, kBlockN), kThreads, 0, stream>>>(
      m, n, k, alpha, A, B, beta, C, tut::gemm_tc::vector_ok(A, k), tut::gemm_tc::vector_ok(B, k));
  TUT_CHECK_LAUNCH();
}

inline void gemm(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                 cudaStream_t stream) {
  gemm_with<WmmaFragmentLoop>(m, n, k, alpha, A, B, beta, C, stream);
}

}  // namespace gemm_wmma
