// Chapter 25: SGEMM with a warp tile between the block tile and the thread tile.
//
// C[m x n] = alpha * A[m x k] * B[k x n] + beta * C, all row-major (leading dimensions k, n, n).
//
// Chapter 24's kernel (128 x 128 x 8 block tile, float4 loads, A transposed in shared memory, 8 x 8
// results per thread), with one idea changed: WHICH 8 x 8 results a thread owns. In chapter 24 thread t
// owns one contiguous 8 x 8 square, so the 32 lanes of a warp read B fragments 32 bytes apart (16 distinct
// float4s spread over 512 bytes: bank conflicts) and the warp's footprint is a 16 x 128 strip of C.
//
// Here the block tile is split into warp tiles, and each warp tile into lane quads:
//
//   block tile 128 x 128 = 4 x 2 warp tiles of 32 x 64
//   warp tile 32 x 64    = 2 x 2 sub-tiles of 16 x 32; in each, the 32 lanes (4 x 8) own a 4 x 4 quad
//   thread tile          = its 4 quads, 8 x 8 results, same count as chapter 24
//
//          warp tile (32 x 64)          columns: in * 32 + lane_col * 4 + 0..3   (in = 0, 1)
//        +----------------+----------------+
//        | sub (0,0)      | sub (0,1)      |   rows: im * 16 + lane_row * 4 + 0..3   (im = 0, 1)
//        | lanes 4 x 8,   |                |
//        | 4 x 4 each     |                |   lane_row = lane / 8, lane_col = lane % 8
//        +----------------+----------------+
//        | sub (1,0)      | sub (1,1)      |
//        +----------------+----------------+
//
// For one kk and one sub-tile a warp reads 4 distinct float4s of As (64 contiguous bytes, each broadcast
// to 8 lanes) and 8 distinct float4s of Bs (128 contiguous bytes): every LDS.128 is conflict-free. The warp's footprint shrinks from 16 x 128 to 32 x 64, so it
// reads 96 distinct floats of shared memory per kk instead of 144. The same layout is what CUTLASS's
// SIMT GEMMs use (a warp-level MMA built from per-lane outer products).
//
// Unchanged from chapter 24: float4 global loads with a scalar fallback when k or n is not a multiple of 4
// (or a pointer is misaligned), As padded by 4 floats per row, zeros for loads outside the matrix,
// stores outside it skipped, beta == 0 never reads C.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "gemm/tile_blocks.cuh"

namespace sgemm_warp_tiling {

// ---- Tile shape ---------------------------------------------------------------------------------------
constexpr int kBlockM = 128;  // rows of C per block
constexpr int kBlockN = 128;  // columns of C per block
constexpr int kBlockK = 8;    // depth of one shared-memory slice of A and B
constexpr int kWarpM = 32;    // rows of C per warp
constexpr int kWarpN = 64;    // columns of C per warp
constexpr int kLanesM = 4;    // a warp's 32 lanes as a 4 x 8 grid of 4 x 4 quads
constexpr int kLanesN = 8;
constexpr int kQuad = 4;      // each lane owns kQuad x kQuad results per sub-tile (one float4 per row)
constexpr int kWarpIterM = kWarpM / (kLanesM * kQuad);  // 2 sub-tiles down the warp tile
constexpr int kWarpIterN = kWarpN / (kLanesN * kQuad);  // 2 sub-tiles across
constexpr int kThreadM = kWarpIterM * kQuad;  // 8 rows of C per thread
constexpr int kThreadN = kWarpIterN * kQuad;  // 8 columns of C per thread
constexpr int kWarpsM = kBlockM / kWarpM;     // 4 warp tiles down
constexpr int kWarpsN = kBlockN / kWarpN;     // 2 warp tiles across
constexpr int kThreads = kWarpsM * kWarpsN * 32;  // 256
constexpr int kPadA = 4;                         // floats of padding after each row of the transposed A
constexpr int kLoadsA = kBlockM * kBlockK / 4 / kThreads;  // float4s of A each thread stages per slice (1)
constexpr int kLoadsB = kBlockK * kBlockN / 4 / kThreads;  // float4s of B each thread stages per slice (1)
constexpr int kSharedBytes = (kBlockK * (kBlockM + kPadA) + kBlockK * kBlockN) * static_cast<int>(sizeof(float));

static_assert(kBlockM % kWarpM == 0 && kBlockN % kWarpN == 0, "warp tiles must cover the block tile");
static_assert(kLanesM * kLanesN == 32, "the lane grid is one warp");
static_assert(kWarpM % (kLanesM * kQuad) == 0 && kWarpN % (kLanesN * kQuad) == 0,
              "lane quads must cover the warp tile");
static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 1024 threads per block");
static_assert(kBlockK % 4 == 0 && kBlockN % 4 == 0, "slices are loaded as float4");
static_assert(kQuad == 4, "fragments are read from shared memory as float4");
static_assert((kBlockM + kPadA) % 4 == 0, "rows of the transposed A must stay 16-byte aligned");
static_assert((kBlockM * kBlockK / 4) % kThreads == 0, "every thread stages the same number of A float4s");
static_assert((kBlockK * kBlockN / 4) % kThreads == 0, "every thread stages the same number of B float4s");
static_assert(kSharedBytes <= 48 * 1024, "static shared memory is limited to 48 KiB per block");

// ---- Building blocks: common/gemm/tile_blocks.cuh ----------------------------------------------------
// Chapter 24's, unchanged: the slice loaders (load_tile_a_transposed, load_tile_b), multiply_quads and
// store_quads. What changes is where a thread's four quads lie: chapter 24's touch (a 1 x 1 lane grid), here
// they are a kLanesM x kLanesN lane grid apart: rows thread_row + im * 16 + 0..3, columns
// thread_col + in * 32 + 0..3 (im, in = 0, 1).

// ---- The kernel ---------------------------------------------------------------------------------------
template <bool kVectorized>
__global__ void __launch_bounds__(kThreads)
    sgemm_warp_tiling_kernel(int m, int n, int k, float alpha, const float* __restrict__ A,
                             const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ __align__(16) float As[kBlockK][kBlockM + kPadA];  // transposed: As[kk][row]
  __shared__ __align__(16) float Bs[kBlockK][kBlockN];

  const int block_row = static_cast<int>(blockIdx.y) * kBlockM;
  const int block_col = static_cast<int>(blockIdx.x) * kBlockN;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  // The first row and column of this thread's first quad, inside the block tile.
  const int thread_row = warp / kWarpsN * kWarpM + lane / kLanesN * kQuad;
  const int thread_col = warp % kWarpsN * kWarpN + lane % kLanesN * kQuad;

  float acc[kThreadM][kThreadN] = {};
  for (int k0 = 0; k0 < k; k0 += kBlockK) {
    tut::gemm::load_tile_a_transposed<kVectorized, kBlockM, kThreads>(A, m, k, block_row, k0, As);
    tut::gemm::load_tile_b<kVectorized, kThreads>(B, n, k, k0, block_col, Bs);
    __syncthreads();  // the slice is complete before anyone reads it
    tut::gemm::multiply_quads<kLanesM, kLanesN>(As, Bs, thread_row, thread_col, acc);
    __syncthreads();  // everyone is done with the slice before the next one overwrites it
  }
  tut::gemm::store_quads<kVectorized, kLanesM, kLanesN>(C, m, n, block_row + thread_row, block_col + thread_col,
                                                     alpha, beta, acc);
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
    sgemm_warp_tiling_kernel<true><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  else  // k or n not a multiple of 4, or a misaligned pointer: scalar global accesses, same tiles
    sgemm_warp_tiling_kernel<false><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  TUT_CHECK_LAUNCH();
}

}  // namespace sgemm_warp_tiling
