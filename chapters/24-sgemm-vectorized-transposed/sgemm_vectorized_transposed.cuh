// Chapter 24: SGEMM with float4 global loads and A transposed in shared memory.
//
// C[m x n] = alpha * A[m x k] * B[k x n] + beta * C, all row-major (leading dimensions k, n, n).
//
// Chapter 23's thread tile (8 x 8 outer products from a 128 x 128 x 8 block tile), with one idea changed:
// every memory access is 128 bits wide.
//   - Global loads: one float4 of A and one of B per thread per slice (chapter 23: four scalar loads each).
//   - A is stored TRANSPOSED in shared memory, As[k][m], so that the 8 A values a thread needs for one kk
//     (rows thread_row .. +7 of column kk) are contiguous: two LDS.128 per kk. (Chapter 23 reads them as
//     eight scalars 32 bytes apart; with kk unrolled its compiler merges each ROW's 8 kk into two LDS.128
//     instead, so the same number of LDS.128, but all 64 A values of a slice live at once.) B's 8 values
//     were already contiguous: two LDS.128.
//   - C is written with float4 stores.
//
//        global A row r: [a0 a1 a2 a3 | a4 a5 a6 a7]  ->  As[0][r] As[1][r] ... As[7][r]  (a column of As)
//
// The transposing store writes four scalars (a float4 cannot be scattered). Each row of As is padded by 4
// floats (kPadA): the 32 lanes of a warp store 16 rows x 2 k-quads; without the pad the two k-quads of a
// row hit the same bank (2-way conflict), with it they are 16 banks apart. The pad keeps every row of As
// 16-byte aligned, so the float4 reads stay legal.
//
// float4 global accesses need 16-byte aligned addresses: the row starts of A (row * k floats) and of B and
// C (row * n floats) are aligned only when k and n are multiples of 4 and the pointers are aligned. The
// launcher checks; otherwise it runs the same kernel with scalar global loads and stores (kVectorized =
// false), which fills the same shared-memory layout and is correct for any shape.
//
// Any m, n, k: loads outside the matrix put zeros in shared memory, stores outside it are skipped. With
// kVectorized, k % 4 == 0 and n % 4 == 0, so a float4 is either wholly inside or wholly outside.
//
// Two on-demand variants switch one change off each, so that each can be measured alone:
//   - vectorized-transposed-scalar-global: kVectorized = false for every shape (scalar global accesses,
//     the transposed As kept).
//   - vectorized-untransposed-a: kTransposeA = false. The float4 global accesses are kept, but A is stored as
//     it lies, As[row][kk] (chapter 23's layout: a row of the slice is two float4s, so each thread's float4
//     goes to shared memory as one STS.128, no pad), and the fragments are read by chapter 23's multiply_tile.
//     Its launcher takes the same fallback (can_vectorize) as the stage's.
// The register count is not a switch: ptxas gives each instantiation its own (cuobjdump
// --dump-resource-usage on the program lists them), and the blocks per SM follow from it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../23-sgemm-2d-register-tile/sgemm_2d_register_tile.cuh"  // multiply_tile, for kTransposeA = false
#include "cuda_check.cuh"
#include "gemm/tile_blocks.cuh"

namespace sgemm_vectorized_transposed {

// ---- Tile shape ---------------------------------------------------------------------------------------
constexpr int kBlockM = 128;  // rows of C per block
constexpr int kBlockN = 128;  // columns of C per block
constexpr int kBlockK = 8;    // depth of one shared-memory slice of A and B
constexpr int kThreadM = 8;   // rows of C per thread
constexpr int kThreadN = 8;   // columns of C per thread
constexpr int kThreadsN = kBlockN / kThreadN;    // 16 thread tiles across
constexpr int kThreadsM = kBlockM / kThreadM;    // 16 thread tiles down
constexpr int kThreads = kThreadsM * kThreadsN;  // 256
constexpr int kPadA = 4;                         // floats of padding after each row of the transposed A
constexpr int kLoadsA = kBlockM * kBlockK / 4 / kThreads;  // float4s of A each thread stages per slice (1)
constexpr int kLoadsB = kBlockK * kBlockN / 4 / kThreads;  // float4s of B each thread stages per slice (1)
constexpr int kSharedBytes = (kBlockK * (kBlockM + kPadA) + kBlockK * kBlockN) * static_cast<int>(sizeof(float));

static_assert(kBlockM % kThreadM == 0 && kBlockN % kThreadN == 0, "thread tiles must cover the block tile");
static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 1024 threads per block");
static_assert(kBlockK % 4 == 0 && kBlockN % 4 == 0, "slices are loaded as float4");
static_assert(kThreadM % 4 == 0 && kThreadN % 4 == 0, "fragments are read from shared memory as float4");
static_assert((kBlockM + kPadA) % 4 == 0, "rows of the transposed A must stay 16-byte aligned");
static_assert((kBlockM * kBlockK / 4) % kThreads == 0, "every thread stages the same number of A float4s");
static_assert((kBlockK * kBlockN / 4) % kThreads == 0, "every thread stages the same number of B float4s");
static_assert(kSharedBytes <= 48 * 1024, "static shared memory is limited to 48 KiB per block");

// ---- Building blocks ----------------------------------------------------------------------------------
// Introduced here, used unchanged by chapter 25, now in common/gemm/tile_blocks.cuh: load_quad (four floats
// of a row as one float4, or four scalars with zeros past the row's end), load_shared_quad (one LDS.128 into
// a fragment), load_tile_a_transposed (As[c][r] = A[row0 + r][k0 + c]: thread t reads the float4 at row t / 2,
// columns (t % 2) * 4 .. +3, and scatters it down one column of As) and load_tile_b (B's slice as it lies).
// The thread's 8 x 8 tile is four contiguous 4 x 4 quads: every fragment is read from shared memory as float4
// (multiply_quads, one LDS.128 per quad), and with kVectorized each quad row of C is stored as one float4
// (store_quads: C = alpha * acc + beta * C inside the matrix; n % 4 == 0, so a quad is wholly inside or
// outside). Chapter 25 spreads the quads apart across a warp's lane grid; both are in
// common/gemm/tile_blocks.cuh, called here with a 1 x 1 lane grid: quad (i, j) starts 4 i rows and 4 j columns
// from the thread's first.

// ---- The variant without the transposed A (kTransposeA = false) ---------------------------------------
// The transposition turned off, the float4 global accesses kept: A's slice is staged AS IT LIES,
// As[r][c] = A[row0 + r][k0 + c] (chapter 23's layout, no pad), still one float4 per thread, stored to shared
// memory as one float4: thread t copies row t / 2, columns (t % 2) * 4 .. +3. That is load_tile_b's copy with
// A's extents (leading dimension and column limit k, row limit m), so it is load_tile_b, called with them.
template <bool kVectorized>
__device__ __forceinline__ void load_tile_a_as_is(const float* __restrict__ A, int m, int k, int row0, int k0,
                                                  float (&As)[kBlockM][kBlockK]) {
  tut::gemm::load_tile_b<kVectorized, kThreads>(A, /*n=*/k, /*k=*/m, /*k0=*/row0, /*col0=*/k0, As);
}
// The fragments are then read by chapter 23's multiply_tile, called unchanged: a_frag[i] = As[thread_row +
// i][kk] and b_frag[j] = Bs[kk][thread_col + j] in the source, two LDS.128 per row of As (all 8 kk) and per
// kk of Bs in the SASS (CUDA 13, sm_90), as in chapter 23 (see the top of this file).
static_assert(kBlockM == sgemm_2d_register_tile::kBlockM && kBlockN == sgemm_2d_register_tile::kBlockN &&
                  kBlockK == sgemm_2d_register_tile::kBlockK && kThreadM == sgemm_2d_register_tile::kThreadM &&
                  kThreadN == sgemm_2d_register_tile::kThreadN,
              "chapter 23's multiply_tile is called on this chapter's tiles: same shapes");

// ---- The kernel ---------------------------------------------------------------------------------------
// kVectorized: float4 global accesses (the launcher checks alignment). kTransposeA: A transposed and padded
// in shared memory, fragments read with LDS.128 (the stage); false: the variant above.
template <bool kVectorized, bool kTransposeA = true>
__global__ void __launch_bounds__(kThreads)
    sgemm_vectorized_transposed_kernel(int m, int n, int k, float alpha, const float* __restrict__ A,
                                       const float* __restrict__ B, float beta, float* __restrict__ C) {
  using SliceA = std::conditional_t<kTransposeA, float[kBlockK][kBlockM + kPadA],  // transposed: As[kk][row]
                                    float[kBlockM][kBlockK]>;                      // as it lies: As[row][kk]
  __shared__ __align__(16) SliceA As;
  __shared__ __align__(16) float Bs[kBlockK][kBlockN];

  const int block_row = static_cast<int>(blockIdx.y) * kBlockM;
  const int block_col = static_cast<int>(blockIdx.x) * kBlockN;
  const int thread_row = static_cast<int>(threadIdx.x) / kThreadsN * kThreadM;  // inside the block tile
  const int thread_col = static_cast<int>(threadIdx.x) % kThreadsN * kThreadN;

  float acc[kThreadM][kThreadN] = {};
  for (int k0 = 0; k0 < k; k0 += kBlockK) {
    if constexpr (kTransposeA)
      tut::gemm::load_tile_a_transposed<kVectorized, kBlockM, kThreads>(A, m, k, block_row, k0, As);
    else
      load_tile_a_as_is<kVectorized>(A, m, k, block_row, k0, As);
    tut::gemm::load_tile_b<kVectorized, kThreads>(B, n, k, k0, block_col, Bs);
    __syncthreads();  // the slice is complete before anyone reads it
    if constexpr (kTransposeA)
      tut::gemm::multiply_quads<1, 1>(As, Bs, thread_row, thread_col, acc);
    else
      sgemm_2d_register_tile::multiply_tile(As, Bs, thread_row, thread_col, acc);
    __syncthreads();  // everyone is done with the slice before the next one overwrites it
  }
  tut::gemm::store_quads<kVectorized, 1, 1>(C, m, n, block_row + thread_row, block_col + thread_col, alpha, beta,
                                            acc);
}

// ---- Host launcher ------------------------------------------------------------------------------------
inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// True when every row of A, B and C starts on a 16-byte boundary, so float4 accesses are legal.
inline bool can_vectorize(int n, int k, const float* A, const float* B, const float* C) {
  return k % 4 == 0 && n % 4 == 0 && aligned16(A) && aligned16(B) && aligned16(C);
}

inline void sgemm(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                  cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;  // an empty C: nothing to write
  const dim3 grid((n + kBlockN - 1) / kBlockN, (m + kBlockM - 1) / kBlockM);
  if (can_vectorize(n, k, A, B, C))
    sgemm_vectorized_transposed_kernel<true><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  else  // k or n not a multiple of 4, or a misaligned pointer: scalar global accesses, same tiles
    sgemm_vectorized_transposed_kernel<false><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  TUT_CHECK_LAUNCH();
}

// The scalar-global path for every shape (measured on demand: what the float4 global accesses buy).
inline void sgemm_scalar_global(int m, int n, int k, float alpha, const float* A, const float* B, float beta,
                                float* C, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  const dim3 grid((n + kBlockN - 1) / kBlockN, (m + kBlockM - 1) / kBlockM);
  sgemm_vectorized_transposed_kernel<false><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  TUT_CHECK_LAUNCH();
}

// Change (2) turned off: A kept as it lies in shared memory and read by chapter 23's multiply_tile, with the
// stage's float4 global accesses and its fallback (measured on demand: what the transposed A buys; it runs
// in 120 registers against the stage's 101, both 2 blocks per SM on sm_90, CUDA 13.0).
inline void sgemm_untransposed_a(int m, int n, int k, float alpha, const float* A, const float* B, float beta,
                                 float* C, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  const dim3 grid((n + kBlockN - 1) / kBlockN, (m + kBlockM - 1) / kBlockM);
  if (can_vectorize(n, k, A, B, C))
    sgemm_vectorized_transposed_kernel<true, false><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  else
    sgemm_vectorized_transposed_kernel<false, false><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  TUT_CHECK_LAUNCH();
}

}  // namespace sgemm_vectorized_transposed
