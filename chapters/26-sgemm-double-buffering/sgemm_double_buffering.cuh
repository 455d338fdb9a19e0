// Chapter 26: SGEMM with cp.async double buffering of the shared-memory slices.
//
// C[m x n] = alpha * A[m x k] * B[k x n] + beta * C, all row-major (leading dimensions k, n, n).
//
// Chapter 25's kernel (128 x 128 x 8 block tile, 4 x 2 warp tiles of 32 x 64, 8 x 8 results per thread
// in four lane quads, A transposed in shared memory), with one idea changed: the next k-slice is copied
// into shared memory WHILE the current one is multiplied. Until now every slice went
//     global -> registers -> shared, __syncthreads, multiply, __syncthreads
// and each load's full latency (~500-800 cycles from DRAM) sat between two barriers, hidden only by
// other blocks on the SM. Now:
//
//   prologue: copy slice 0 -> buffer 0
//   iteration t:  start copying slice t+1 -> buffer (t+1) % 2      (cp.async: no registers, no waiting)
//                 wait until slice t has landed, __syncthreads
//                 multiply buffer t % 2                            (the copy of t+1 runs meanwhile)
//                 __syncthreads (buffer t % 2 is free for slice t+2)
//
// cp.async (sm_80+, "LDGSTS") copies global memory straight into shared memory, asynchronously: the
// thread issues it and moves on; cp.async.commit_group closes a group of copies and
// cp.async.wait_group N waits until at most N groups are still in flight. Copies whose source lies outside
// the matrix use a source size of 0, which makes the hardware write zeros (no branch around the copy).
//
// A is still transposed in shared memory. A float4 cannot be scattered by one copy, so each element of
// A is its own 4-byte cp.async to its transposed address As[c][r] (element e = tid + i * 256 of the slice:
// row e / 8, column e % 8; a warp reads 4 rows x 32 contiguous bytes). With the 4-float pad, the 32
// lanes' stores land in 32 different banks (bank = (4 c + r) % 32). These 4-byte copies need no
// alignment, so only B and C need the float4 condition now: n % 4 == 0 and aligned pointers; otherwise B
// is copied in 4-byte pieces and C stored as scalars (kVectorized = false).
//
// sm_75 has no cp.async: compiled for __CUDA_ARCH__ < 800, each copy is an ordinary load and store and
// the commit and wait are empty. The copies are then synchronous, so nothing overlaps, but the result is
// the same.
//
// Shared memory doubles to 2 x 8.125 KiB (kSharedBytes: 8 x 132 + 8 x 128 floats a stage). Unchanged from
// chapter 25: zeros for loads outside the matrix, stores outside it skipped, beta == 0 never reads C.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "cp_async.cuh"
#include "gemm/tile_blocks.cuh"

namespace sgemm_double_buffering {

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
constexpr int kStages = 2;                       // shared-memory buffers: one being multiplied, one filling
constexpr int kLoadsA = kBlockM * kBlockK / kThreads;      // 4-byte copies of A per thread per slice (4)
constexpr int kLoadsB = kBlockK * kBlockN / 4 / kThreads;  // float4s of B each thread copies per slice (1)
constexpr int kSharedBytes =
    kStages * (kBlockK * (kBlockM + kPadA) + kBlockK * kBlockN) * static_cast<int>(sizeof(float));

static_assert(kBlockM % kWarpM == 0 && kBlockN % kWarpN == 0, "warp tiles must cover the block tile");
static_assert(kLanesM * kLanesN == 32, "the lane grid is one warp");
static_assert(kWarpM % (kLanesM * kQuad) == 0 && kWarpN % (kLanesN * kQuad) == 0,
              "lane quads must cover the warp tile");
static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 1024 threads per block");
static_assert(kBlockK % 4 == 0 && kBlockN % 4 == 0, "slices are loaded as float4");
static_assert(kQuad == 4, "fragments are read from shared memory as float4");
static_assert((kBlockM + kPadA) % 4 == 0, "rows of the transposed A must stay 16-byte aligned");
static_assert((kBlockM * kBlockK) % kThreads == 0, "every thread copies the same number of A elements");
static_assert((kBlockK * kBlockN / 4) % kThreads == 0, "every thread stages the same number of B float4s");
static_assert(kSharedBytes <= 48 * 1024, "static shared memory is limited to 48 KiB per block");

// ---- cp.async (sm_80+), with a synchronous fallback for sm_75: common/cp_async.cuh ----------------------
// cp_async<4 or 16>(dst, src, in_range) copies global to shared memory without registers, zeros when
// !in_range; cp_async_commit() closes a group; cp_async_wait<N>() waits until at most N are in flight.
// Chapters 26, 27 and 17 use them unchanged, so they live in common/.
using tut::async_copy::cp_async;
using tut::async_copy::cp_async_commit;
using tut::async_copy::cp_async_wait;

// ---- Building blocks ----------------------------------------------------------------------------------
// Start copying A[row0 .. +127][k0 .. +7] TRANSPOSED: As[c][r] = A[row0 + r][k0 + c], one 4-byte cp.async
// per element. Element e = tid + i * 256 is row e / 8, column e % 8.
__device__ __forceinline__ void load_tile_a(const float* __restrict__ A, int m, int k, int row0, int k0,
                                            float (&As)[kBlockK][kBlockM + kPadA]) {
#pragma unroll
  for (int i = 0; i < kLoadsA; ++i) {
    const int e = static_cast<int>(threadIdx.x) + i * kThreads;
    const int r = e / kBlockK, c = e % kBlockK;
    const int gr = row0 + r, gc = k0 + c;
    const bool in_range = gr < m && gc < k;
    cp_async<4>(&As[c][r], in_range ? A + static_cast<std::size_t>(gr) * k + gc : A, in_range);
  }
}

// Start copying B[k0 .. +7][col0 .. +127] as it lies in global memory: one 16-byte cp.async per thread
// (kVectorized), or four 4-byte ones.
template <bool kVectorized>
__device__ __forceinline__ void load_tile_b(const float* __restrict__ B, int n, int k, int k0, int col0,
                                            float (&Bs)[kBlockK][kBlockN]) {
#pragma unroll
  for (int i = 0; i < kLoadsB; ++i) {
    const int e = static_cast<int>(threadIdx.x) + i * kThreads;
    const int r = e / (kBlockN / 4), c = e % (kBlockN / 4) * 4;
    const int gr = k0 + r, gc = col0 + c;
    const float* row = B + static_cast<std::size_t>(gr < k ? gr : 0) * n;
    if constexpr (kVectorized) {
      const bool in_range = gr < k && gc < n;  // n % 4 == 0: the quad is wholly inside or outside
      cp_async<16>(&Bs[r][c], in_range ? row + gc : B, in_range);
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const bool in_range = gr < k && gc + q < n;
        cp_async<4>(&Bs[r][c + q], in_range ? row + gc + q : B, in_range);
      }
    }
  }
}

// Chapter 25's multiply_quads and store_quads (its lane grid), unchanged: common/gemm/tile_blocks.cuh.

// ---- The kernel ---------------------------------------------------------------------------------------
template <bool kVectorized>
__global__ void __launch_bounds__(kThreads)
    sgemm_double_buffering_kernel(int m, int n, int k, float alpha, const float* __restrict__ A,
                             const float* __restrict__ B, float beta, float* __restrict__ C) {
  __shared__ __align__(16) float As[kStages][kBlockK][kBlockM + kPadA];  // transposed: As[buf][kk][row]
  __shared__ __align__(16) float Bs[kStages][kBlockK][kBlockN];

  const int block_row = static_cast<int>(blockIdx.y) * kBlockM;
  const int block_col = static_cast<int>(blockIdx.x) * kBlockN;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  // The first row and column of this thread's first quad, inside the block tile.
  const int thread_row = warp / kWarpsN * kWarpM + lane / kLanesN * kQuad;
  const int thread_col = warp % kWarpsN * kWarpN + lane % kLanesN * kQuad;

  float acc[kThreadM][kThreadN] = {};
  const int slices = (k + kBlockK - 1) / kBlockK;
  if (slices > 0) {  // prologue: slice 0 into buffer 0
    load_tile_a(A, m, k, block_row, 0, As[0]);
    load_tile_b<kVectorized>(B, n, k, 0, block_col, Bs[0]);
  }
  cp_async_commit();
  for (int t = 0; t < slices; ++t) {
    const int buf = t % kStages;
    if (t + 1 < slices) {  // start the copy of the next slice into the other buffer
      load_tile_a(A, m, k, block_row, (t + 1) * kBlockK, As[buf ^ 1]);
      load_tile_b<kVectorized>(B, n, k, (t + 1) * kBlockK, block_col, Bs[buf ^ 1]);
    }
    cp_async_commit();   // one group per iteration (empty on the last), so the count below stays right
    cp_async_wait<1>();  // all but the newest group have landed: this thread's copies of slice t
    __syncthreads();     // ... and every other thread's
    tut::gemm::multiply_quads<kLanesM, kLanesN>(As[buf], Bs[buf], thread_row, thread_col, acc);
    __syncthreads();     // everyone is done with buffer buf before iteration t + 1 refills it
  }
  tut::gemm::store_quads<kVectorized, kLanesM, kLanesN>(C, m, n, block_row + thread_row, block_col + thread_col,
                                                     alpha, beta, acc);
}

// ---- Host launcher ------------------------------------------------------------------------------------
inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// True when every row of B and C starts on a 16-byte boundary, so 16-byte copies and float4 stores are
// legal (A is copied in 4-byte pieces: any k, any float-aligned pointer).
inline bool can_vectorize(int n, const float* B, const float* C) {
  return n % 4 == 0 && aligned16(B) && aligned16(C);
}

inline void sgemm(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                  cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;  // an empty C: nothing to write
  const dim3 grid((n + kBlockN - 1) / kBlockN, (m + kBlockM - 1) / kBlockM);
  if (can_vectorize(n, B, C))
    sgemm_double_buffering_kernel<true><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  else  // n not a multiple of 4, or a misaligned B or C: 4-byte copies of B and scalar stores of C
    sgemm_double_buffering_kernel<false><<<grid, kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C);
  TUT_CHECK_LAUNCH();
}

}  // namespace sgemm_double_buffering
