// Chapter 27: the tuned SGEMM: chapter 26's kernel as a template over its tile shapes and pipeline depth,
// the shape chosen by measurement on the GPU.
//
// C[m x n] = alpha * A[m x k] * B[k x n] + beta * C, all row-major (leading dimensions k, n, n).
//
// Chapter 26's kernel (warp tiles of lane quads, A transposed in shared memory, cp.async copies of the
// next slice during the multiply), with one idea changed: nothing is fixed any more. Every constant that
// chapters 23-26 chose by reasoning becomes a template parameter (struct TileConfig), and the chapter runs
// a handful of configurations to pick the stage by measurement:
//
//   kBlockM x kBlockN x kBlockK   block tile and slice depth       128 x 128 x 8 (chapter 26), 128 x 256, ...
//   kWarpM x kWarpN               warp tile                        32 x 64, 64 x 32, 64 x 64
//   kLanesM                       the warp's lanes as 4 x 8 or 8 x 4 quads
//                                 thread tile = (kWarpM / kLanesM) x (kWarpN / kLanesN): 8 x 8 or 16 x 8
//   kStages                       shared-memory buffers in flight  2 (chapter 26), 3, 4
//   kGroupM                       block order: kGroupM tile-rows at a time (1 = row by row)
//   kMinBlocksPerSm               __launch_bounds__ minimum (register cap 65536 / threads / min)
//
// Four mechanisms are new beside the parameters:
//
// 1. A k-stage pipeline with ONE barrier per slice. With kStages buffers, kStages - 1 slices are in flight
//    while one is multiplied:
//        prologue: copy slices 0 .. kStages-2, one cp.async group each
//        slice t:  wait until slice t has landed (at most kStages-2 groups pending); __syncthreads
//                  copy slice t + kStages - 1 into the buffer slice t - 1 used (everyone has passed the
//                  barrier, so everyone has finished multiplying slice t - 1); commit
//                  multiply slice t
//    Chapter 26 needed a second barrier per slice because it refilled the buffer it had just read.
//
// 2. Grouped block order (kGroupM): blocks are numbered along columns of a band of kGroupM tile-rows
//    (as in Triton's matmul tutorial and CUTLASS's threadblock swizzle), so the blocks resident at one
//    time share rows of A and columns of B in L2 instead of streaming a whole row of tiles.
//
// 3. Copy addresses computed once per block (CopyPlan): a slice's copy is a pointer add, a bit test and the
//    cp.async; and a slice that lies wholly inside the matrix (interior block, not the partial last slice)
//    takes an unguarded path with no tests at all (load_slice).
//
// 4. Dynamic shared memory: three 128 x 128 x 16 stages need 49 KiB, over the 48 KiB static limit;
//    the launcher opts in with cudaFuncAttributeMaxDynamicSharedMemorySize, and refuses, with one
//    sentence, a configuration the GPU cannot hold (sm_75 allows 64 KiB per block, sm_90 227 KiB).
//
// Mechanisms 1 and 3 have off-switches, TileConfig's last two parameters (true by default, and in the stage
// and every candidate). Two variants of the stage's configuration, run on demand, turn one each off:
//   OneBarrier = false (tuned-two-barriers): chapter 26's schedule on the same kStages buffers: the refill
//     is issued before the wait, into the buffer just multiplied, so a second barrier per slice must follow
//     the multiply.
//   PlannedCopies = false (tuned-no-copy-plan): chapter 26's copies: addresses and bounds tests recomputed
//     from threadIdx.x and k0 for every element of every slice, and every slice guarded.
// Mechanism 2 is measured by the -g8 twins; mechanism 4 has no off-switch (the stage's 72.8 KiB cannot be
// static shared memory, at most 48 KiB).
//
// The A slice is copied by 4-byte cp.async to its transposed place; lanes take 8 consecutive k of 4 rows
// (chunks of 8 columns of the slice), so a warp reads 4 x 32 contiguous bytes of global memory and its
// stores As[c][r] fall in 32 different banks for any kBlockK (bank = (4 c + r) % 32 with the 4-float pad).
// float4 condition as chapter 26: n % 4 == 0 and 16-byte aligned B and C, else 4-byte copies of B and
// scalar stores of C. Zeros for copies outside the matrix, stores outside it skipped, beta == 0 never
// reads C. FP32 FFMA only: no tensor cores, no TF32.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda_check.cuh"
#include "cp_async.cuh"
#include "gemm/tile_blocks.cuh"

namespace sgemm_tuned {

// ---- Tile shape ---------------------------------------------------------------------------------------
// OneBarrier and PlannedCopies are the off-switches of mechanisms 1 and 3 (see the end of the top comment):
// true in the stage and every candidate; false only in the two ablation variants of chapter 27's program.
template <int BlockM, int BlockN, int BlockK, int WarpM, int WarpN, int LanesM, int Stages, int GroupM,
          int MinBlocksPerSm, bool OneBarrier = true, bool PlannedCopies = true>
struct TileConfig {
  static constexpr int kBlockM = BlockM;  // rows of C per block
  static constexpr int kBlockN = BlockN;  // columns of C per block
  static constexpr int kBlockK = BlockK;  // depth of one shared-memory slice of A and B
  static constexpr int kWarpM = WarpM;    // rows of C per warp
  static constexpr int kWarpN = WarpN;    // columns of C per warp
  static constexpr int kLanesM = LanesM;  // a warp's 32 lanes as a kLanesM x kLanesN grid of quads
  static constexpr int kLanesN = 32 / LanesM;
  static constexpr int kQuad = 4;  // each lane owns kQuad x kQuad results per sub-tile (one float4 per row)
  static constexpr int kWarpIterM = kWarpM / (kLanesM * kQuad);  // sub-tiles down the warp tile
  static constexpr int kWarpIterN = kWarpN / (kLanesN * kQuad);  // sub-tiles across
  static constexpr int kThreadM = kWarpIterM * kQuad;            // rows of C per thread
  static constexpr int kThreadN = kWarpIterN * kQuad;            // columns of C per thread
  static constexpr int kWarpsM = kBlockM / kWarpM;
  static constexpr int kWarpsN = kBlockN / kWarpN;
  static constexpr int kThreads = kWarpsM * kWarpsN * 32;
  static constexpr int kPadA = 4;         // floats of padding after each row of the transposed A
  static constexpr int kStages = Stages;  // shared-memory buffers in flight
  static constexpr int kGroupM = GroupM;  // tile-rows per band of the block order
  static constexpr int kMinBlocksPerSm = MinBlocksPerSm;
  static constexpr bool kOneBarrier = OneBarrier;        // false: chapter 26's schedule, two barriers a slice
  static constexpr bool kPlannedCopies = PlannedCopies;  // false: chapter 26's per-element copy arithmetic
  // Copies of one slice. A: 8 consecutive k of one row per 8 lanes (kChunkK), so one pass of all threads
  // covers kRowsPerPassA rows of one 8-column chunk. B: one float4 per thread, kRowsPerPassB rows per pass.
  static constexpr int kChunkK = 8;
  static constexpr int kRowsPerPassA = kThreads / kChunkK;
  static constexpr int kPassesA = kBlockM / kRowsPerPassA;  // passes over the rows of one chunk
  static constexpr int kChunksA = kBlockK / kChunkK;        // chunks of 8 columns in a slice
  static constexpr int kRowsPerPassB = kThreads / (kBlockN / 4);
  static constexpr int kPassesB = kBlockK / kRowsPerPassB;
  static constexpr int kStageFloatsA = kBlockK * (kBlockM + kPadA);
  static constexpr int kStageFloatsB = kBlockK * kBlockN;
  static constexpr int kSharedBytes = kStages * (kStageFloatsA + kStageFloatsB) * static_cast<int>(sizeof(float));

  static_assert(kBlockM % kWarpM == 0 && kBlockN % kWarpN == 0, "warp tiles must cover the block tile");
  static_assert(kLanesM * kLanesN == 32, "the lane grid is one warp");
  static_assert(kWarpM % (kLanesM * kQuad) == 0 && kWarpN % (kLanesN * kQuad) == 0,
                "lane quads must cover the warp tile");
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 1024 threads per block");
  static_assert(kBlockK % kChunkK == 0 && kBlockN % 4 == 0, "A in chunks of 8 columns, B in float4s");
  static_assert(kBlockM % 32 == 0, "the transposed A's bank pattern (4 c + r) % 32 needs 32 | kBlockM");
  static_assert((kBlockM + kPadA) % 4 == 0, "rows of the transposed A must stay 16-byte aligned");
  static_assert(kThreads % kChunkK == 0 && kBlockM % kRowsPerPassA == 0,
                "every thread copies the same number of A elements, in whole passes over the rows");
  static_assert(kPassesA <= 32, "the A row predicates are one 32-bit mask");
  static_assert(kThreads % (kBlockN / 4) == 0 && kBlockK % kRowsPerPassB == 0,
                "every thread copies the same number of B float4s, in whole passes over the rows");
  static_assert(kStages >= 2, "a pipeline needs at least two buffers");
  static_assert(kGroupM >= 1, "kGroupM = 1 is the plain row-by-row block order");
  static_assert(kSharedBytes <= 227 * 1024, "shared memory per block is at most 227 KiB (sm_90)");
  static_assert(kMinBlocksPerSm * kThreads <= 2048, "at most 2048 resident threads per SM");
};

// ---- cp.async: chapter 26's, in common/cp_async.cuh ---------------------------------------------------
using tut::async_copy::cp_async;
using tut::async_copy::cp_async_commit;
using tut::async_copy::cp_async_wait;

// ---- Building blocks ----------------------------------------------------------------------------------
// load_shared_quad (one LDS.128 into a fragment): chapter 24's, in common/gemm/tile_blocks.cuh.
using tut::gemm::load_shared_quad;

// Where this thread copies from and to, computed once per block so that a slice's copies cost a pointer
// add and a predicate each (the address arithmetic and predicates of chapter 26's copies, recomputed
// for every element of every slice, were a fifth of the loop's instructions).
struct CopyPlan {
  const float* a_src;   // A[block_row + a_row][a_col]: the first of this thread's A elements at k0 = 0
  std::size_t a_pass;   // kRowsPerPassA * k: from one pass's row to the next
  unsigned a_rows_ok;   // bit p: row a_row + p * kRowsPerPassA lies inside the matrix
  int a_col;            // 0..7: this thread's column inside each 8-column chunk
  int a_dst;            // float offset of As[a_col][a_row] inside a stage
  const float* b_src;   // B[b_row][block_col + b_col] at k0 = 0
  std::size_t b_pass;   // kRowsPerPassB * n
  unsigned b_cols_ok;   // bit q: column block_col + b_col + q lies inside the matrix
  int b_row;            // this thread's first row inside the slice
  int b_dst;            // float offset of Bs[b_row][b_col] inside a stage
};

template <class Cfg>
__device__ __forceinline__ CopyPlan make_copy_plan(const float* A, const float* B, int m, int n, int k,
                                                   int block_row, int block_col) {
  const int tid = static_cast<int>(threadIdx.x);
  CopyPlan plan;
  const int a_row = tid / Cfg::kChunkK;
  plan.a_col = tid % Cfg::kChunkK;
  plan.a_src = A + static_cast<std::size_t>(block_row + a_row) * k + plan.a_col;
  plan.a_pass = static_cast<std::size_t>(Cfg::kRowsPerPassA) * k;
  plan.a_rows_ok = 0;
#pragma unroll
  for (int p = 0; p < Cfg::kPassesA; ++p)
    plan.a_rows_ok |= (block_row + a_row + p * Cfg::kRowsPerPassA < m ? 1u : 0u) << p;
  plan.a_dst = plan.a_col * (Cfg::kBlockM + Cfg::kPadA) + a_row;
  plan.b_row = tid / (Cfg::kBlockN / 4);
  const int b_col = tid % (Cfg::kBlockN / 4) * 4;
  plan.b_src = B + static_cast<std::size_t>(plan.b_row) * n + block_col + b_col;
  plan.b_pass = static_cast<std::size_t>(Cfg::kRowsPerPassB) * n;
  plan.b_cols_ok = 0;
#pragma unroll
  for (int q = 0; q < 4; ++q) plan.b_cols_ok |= (block_col + b_col + q < n ? 1u : 0u) << q;
  plan.b_dst = plan.b_row * Cfg::kBlockN + b_col;
  return plan;
}

// Start copying A[block rows][k0 .. +kBlockK-1] TRANSPOSED into one stage: As[c][r] = A[row0 + r][k0 + c],
// one 4-byte cp.async per element. This thread's elements: rows a_row + p * kRowsPerPassA, columns
// a_col + 8 ch; a warp reads 4 rows x 32 contiguous bytes per copy instruction.
template <class Cfg, bool kGuarded>
__device__ __forceinline__ void load_tile_a(const CopyPlan& plan, const float* A, int k, int k0, float* As) {
#pragma unroll
  for (int ch = 0; ch < Cfg::kChunksA; ++ch) {
    const bool col_ok = !kGuarded || k0 + ch * Cfg::kChunkK + plan.a_col < k;
#pragma unroll
    for (int p = 0; p < Cfg::kPassesA; ++p) {
      const bool in_range = !kGuarded || (col_ok && (plan.a_rows_ok >> p & 1u));
      const float* src = plan.a_src + p * plan.a_pass + k0 + ch * Cfg::kChunkK;
      cp_async<4>(As + plan.a_dst + ch * Cfg::kChunkK * (Cfg::kBlockM + Cfg::kPadA) + p * Cfg::kRowsPerPassA,
                  in_range ? src : A, in_range);
    }
  }
}

// Start copying B[k0 .. +kBlockK-1][block columns] as it lies in global memory into one stage: 16-byte
// cp.async (kVectorized) or 4-byte pieces. This thread's rows: b_row + p * kRowsPerPassB.
template <class Cfg, bool kVectorized, bool kGuarded>
__device__ __forceinline__ void load_tile_b(const CopyPlan& plan, const float* B, int n, int k, int k0, float* Bs) {
#pragma unroll
  for (int p = 0; p < Cfg::kPassesB; ++p) {
    const bool row_ok = !kGuarded || k0 + plan.b_row + p * Cfg::kRowsPerPassB < k;
    const float* src = plan.b_src + static_cast<std::size_t>(k0) * n + p * plan.b_pass;
    float* dst = Bs + plan.b_dst + p * Cfg::kRowsPerPassB * Cfg::kBlockN;
    if constexpr (kVectorized) {
      const bool in_range = !kGuarded || (row_ok && (plan.b_cols_ok & 1u));  // n % 4 == 0: quad wholly in or out
      cp_async<16>(dst, in_range ? src : B, in_range);
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const bool in_range = !kGuarded || (row_ok && (plan.b_cols_ok >> q & 1u));
        cp_async<4>(dst + q, in_range ? src + q : B, in_range);
      }
    }
  }
}

// Copy slice k0 of A and B into one stage. A slice that lies wholly inside the matrix (an interior block,
// not the last partial slice) takes the unguarded copies: no bounds tests, no address selects; the
// others test every copy. The branch is uniform across the block.
template <class Cfg, bool kVectorized>
__device__ __forceinline__ void load_slice(const CopyPlan& plan, const float* A, const float* B, int n, int k,
                                           int k0, bool interior, float* As, float* Bs) {
  if (interior && k0 + Cfg::kBlockK <= k) {
    load_tile_a<Cfg, false>(plan, A, k, k0, As);
    load_tile_b<Cfg, kVectorized, false>(plan, B, n, k, k0, Bs);
  } else {
    load_tile_a<Cfg, true>(plan, A, k, k0, As);
    load_tile_b<Cfg, kVectorized, true>(plan, B, n, k, k0, Bs);
  }
}

// ---- The copies without a plan: the off-switch of mechanism 3 (PlannedCopies = false) ----------------------
// Chapter 26's way of copying (its load_tile_a and load_tile_b) on this chapter's element-to-thread map: for
// every element of every slice, the row and column from threadIdx.x (a division and a remainder) and k0, the
// 64-bit global address, the shared offset and both bounds tests, and no unguarded interior path. The same
// threads copy the same elements to the same places in the same order as load_slice; only where addresses
// and predicates come from differs. This is chapter 26's source, not a forced cost: what ptxas hoists out of
// the loop (the parts that do not depend on k0) it could hoist in chapter 26 too.
template <class Cfg>
__device__ __forceinline__ void load_tile_a_recomputed(const float* A, int m, int k, int k_end, int row0, int k0,
                                                       float* As) {
#pragma unroll
  for (int ch = 0; ch < Cfg::kChunksA; ++ch) {
#pragma unroll
    for (int p = 0; p < Cfg::kPassesA; ++p) {
      const int e = static_cast<int>(threadIdx.x) + p * Cfg::kThreads;  // element e of chunk ch
      const int r = e / Cfg::kChunkK, c = ch * Cfg::kChunkK + e % Cfg::kChunkK;
      const int gr = row0 + r, gc = k0 + c;
      const bool in_range = gr < m && gc < k_end;
      cp_async<4>(As + c * (Cfg::kBlockM + Cfg::kPadA) + r, in_range ? A + static_cast<std::size_t>(gr) * k + gc : A,
                  in_range);
    }
  }
}

template <class Cfg, bool kVectorized>
__device__ __forceinline__ void load_tile_b_recomputed(const float* B, int n, int k_end, int k0, int col0, float* Bs) {
#pragma unroll
  for (int p = 0; p < Cfg::kPassesB; ++p) {
    const int e = static_cast<int>(threadIdx.x) + p * Cfg::kThreads;  // float4 e of the slice
    const int r = e / (Cfg::kBlockN / 4), c = e % (Cfg::kBlockN / 4) * 4;
    const int gr = k0 + r, gc = col0 + c;
    const float* row = B + static_cast<std::size_t>(gr < k_end ? gr : 0) * n;
    float* dst = Bs + r * Cfg::kBlockN + c;
    if constexpr (kVectorized) {
      const bool in_range = gr < k_end && gc < n;  // n % 4 == 0: the quad is wholly inside or outside
      cp_async<16>(dst, in_range ? row + gc : B, in_range);
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const bool in_range = gr < k_end && gc + q < n;
        cp_async<4>(dst + q, in_range ? row + gc + q : B, in_range);
      }
    }
  }
}

// What chapter 26's loaders took as arguments, and all that the off-switch keeps per block: no address, no
// predicate computed ahead.
struct NoCopyPlan {
  int m;          // rows of A (and C)
  int lda;        // A's leading dimension, k
  int block_row;  // the block tile's first row
  int block_col;  // the block tile's first column
};

// Copy slice k0 of A and B into one stage, every copy tested against m, n and k (the end of the K range, as
// in load_slice). `interior` is ignored: every slice takes the guarded path.
template <class Cfg, bool kVectorized>
__device__ __forceinline__ void load_slice(const NoCopyPlan& raw, const float* A, const float* B, int n, int k,
                                           int k0, bool /*interior*/, float* As, float* Bs) {
  load_tile_a_recomputed<Cfg>(A, raw.m, raw.lda, k, raw.block_row, k0, As);
  load_tile_b_recomputed<Cfg, kVectorized>(B, n, k, k0, raw.block_col, Bs);
}

// The copies' plan for this block: a CopyPlan (the stage), or a NoCopyPlan (PlannedCopies = false).
template <class Cfg>
__device__ __forceinline__ auto plan_copies(const float* A, const float* B, int m, int n, int k, int block_row,
                                            int block_col) {
  if constexpr (Cfg::kPlannedCopies)
    return make_copy_plan<Cfg>(A, B, m, n, k, block_row, block_col);
  else
    return NoCopyPlan{m, k, block_row, block_col};
}

// acc += A_s^T[:][rows of this thread] * B_s[:][columns of this thread]. The thread's rows are
// thread_row + im * kLanesM * 4 + 0..3, its columns thread_col + in * kLanesN * 4 + 0..3.
template <class Cfg>
__device__ __forceinline__ void multiply_tile(const float* As, const float* Bs, int thread_row, int thread_col,
                                              float (&acc)[Cfg::kThreadM][Cfg::kThreadN]) {
#pragma unroll
  for (int kk = 0; kk < Cfg::kBlockK; ++kk) {
    float a_frag[Cfg::kThreadM];
    float b_frag[Cfg::kThreadN];
#pragma unroll
    for (int im = 0; im < Cfg::kWarpIterM; ++im)
      load_shared_quad(&a_frag[im * Cfg::kQuad],
                       As + kk * (Cfg::kBlockM + Cfg::kPadA) + thread_row + im * Cfg::kLanesM * Cfg::kQuad);
#pragma unroll
    for (int in = 0; in < Cfg::kWarpIterN; ++in)
      load_shared_quad(&b_frag[in * Cfg::kQuad], Bs + kk * Cfg::kBlockN + thread_col + in * Cfg::kLanesN * Cfg::kQuad);
#pragma unroll
    for (int i = 0; i < Cfg::kThreadM; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::kThreadN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
  }
}

// C = alpha * acc + beta * C for the elements of this thread's quads that lie inside the matrix: chapter 25's
// store_quads (common/gemm/tile_blocks.cuh) with this configuration's lane grid.
template <class Cfg, bool kVectorized>
__device__ __forceinline__ void store_tile(float* __restrict__ C, int m, int n, int row0, int col0, float alpha,
                                           float beta, const float (&acc)[Cfg::kThreadM][Cfg::kThreadN]) {
  static_assert(Cfg::kQuad == tut::gemm::kQuad, "quads are float4");
  tut::gemm::store_quads<kVectorized, Cfg::kLanesM, Cfg::kLanesN>(C, m, n, row0, col0, alpha, beta, acc);
}

template <class Cfg>
__device__ __forceinline__ void block_tile(int bid, int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
  const int band_tiles = Cfg::kGroupM * tiles_n;
  const int band = bid / band_tiles, in_band = bid % band_tiles;
  const int first_m = band * Cfg::kGroupM;
  const int rows = min(tiles_m - first_m, Cfg::kGroupM);  // the last band may be shorter
  tile_m = first_m + in_band % rows;
  tile_n = in_band / rows;
}

// ---- The kernel ----------------------------------------------------------------------------------------
// acc = A[tile rows][k_begin .. k_end-1] * B[k_begin .. k_end-1][tile columns] for the tile at (block_row,
// block_col): the pipelined main loop. k is A's row length (its leading dimension); [k_begin, k_end) is the
// part of the sum this block computes (the whole of K here; one split of it in chapter 29), k_begin a
// multiple of kBlockK. Returns with every copy landed; the caller stores acc.
template <class Cfg, bool kVectorized>
__device__ __forceinline__ void accumulate_tile(int m, int n, int k, int k_begin, int k_end,
                                                const float* __restrict__ A, const float* __restrict__ B,
                                                int block_row, int block_col, int thread_row, int thread_col,
                                                float (&acc)[Cfg::kThreadM][Cfg::kThreadN]) {
  extern __shared__ float4 shared_raw[];  // float4: 16-byte aligned
  float* const As = reinterpret_cast<float*>(shared_raw);  // kStages transposed A slices, then B slices
  float* const Bs = As + Cfg::kStages * Cfg::kStageFloatsA;

  const auto plan = plan_copies<Cfg>(A, B, m, n, k, block_row, block_col);  // a NoCopyPlan when switched off
  const bool interior = block_row + Cfg::kBlockM <= m && block_col + Cfg::kBlockN <= n;  // all rows, columns

  const int slices = k_end > k_begin ? (k_end - k_begin + Cfg::kBlockK - 1) / Cfg::kBlockK : 0;
  // Prologue: slices 0 .. kStages-2 into buffers 0 .. kStages-2, one group each (empty past the end).
  // Copies test against k_end: the range's end acts as the end of K.
#pragma unroll
  for (int s = 0; s < Cfg::kStages - 1; ++s) {
    if (s < slices)
      load_slice<Cfg, kVectorized>(plan, A, B, n, k_end, k_begin + s * Cfg::kBlockK, interior,
                                   As + s * Cfg::kStageFloatsA, Bs + s * Cfg::kStageFloatsB);
    cp_async_commit();
  }
  int read_stage = 0;                   // buffer of slice t
  int write_stage = Cfg::kStages - 1;   // buffer of slice t + kStages - 1 (= that of slice t - 1)
  for (int t = 0; t < slices; ++t) {
    if constexpr (Cfg::kOneBarrier) {
      cp_async_wait<Cfg::kStages - 2>();  // this thread's copies of slice t have landed
      __syncthreads();  // everyone's have; and everyone has finished multiplying slice t - 1
    }
    const int next = t + Cfg::kStages - 1;
    if (next < slices)
      load_slice<Cfg, kVectorized>(plan, A, B, n, k_end, k_begin + next * Cfg::kBlockK, interior,
                                   As + write_stage * Cfg::kStageFloatsA, Bs + write_stage * Cfg::kStageFloatsB);
    cp_async_commit();  // one group per slice (empty near the end), so the wait count stays right
    if constexpr (!Cfg::kOneBarrier) {
      // The off-switch of mechanism 1 (OneBarrier = false): chapter 26's order on the same kStages buffers.
      // The refill above was issued BEFORE this wait and barrier, into the buffer of slice t - 1, which only
      // the second barrier (after the multiply of slice t - 1) made safe; kStages - 1 slices are in flight
      // during each multiply, as in the stage. (Not a spare barrier added to the stage's order, where it
      // would protect nothing: here the second barrier is needed.)
      cp_async_wait<Cfg::kStages - 1>();  // all but the group just committed: slice t has landed
      __syncthreads();                    // everyone's copies of slice t have
    }
    multiply_tile<Cfg>(As + read_stage * Cfg::kStageFloatsA, Bs + read_stage * Cfg::kStageFloatsB, thread_row,
                       thread_col, acc);
    if constexpr (!Cfg::kOneBarrier) __syncthreads();  // everyone is done with this buffer: slice t + 1 may refill it
    read_stage = read_stage + 1 == Cfg::kStages ? 0 : read_stage + 1;
    write_stage = write_stage + 1 == Cfg::kStages ? 0 : write_stage + 1;
  }
  cp_async_wait<0>();  // no copy may still be writing shared memory when the block exits
}

// The first row and column of this thread's first quad, inside the block tile.
template <class Cfg>
__device__ __forceinline__ void thread_origin(int& thread_row, int& thread_col) {
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  thread_row = warp / Cfg::kWarpsN * Cfg::kWarpM + lane / Cfg::kLanesN * Cfg::kQuad;
  thread_col = warp % Cfg::kWarpsN * Cfg::kWarpN + lane % Cfg::kLanesN * Cfg::kQuad;
}

template <class Cfg, bool kVectorized>
__device__ __forceinline__ void sgemm_tile(int m, int n, int k, float alpha, const float* __restrict__ A,
                                           const float* __restrict__ B, float beta, float* __restrict__ C) {
  const int tiles_m = (m + Cfg::kBlockM - 1) / Cfg::kBlockM, tiles_n = (n + Cfg::kBlockN - 1) / Cfg::kBlockN;
  int tile_m, tile_n;
  block_tile<Cfg>(static_cast<int>(blockIdx.x), tiles_m, tiles_n, tile_m, tile_n);
  const int block_row = tile_m * Cfg::kBlockM;
  const int block_col = tile_n * Cfg::kBlockN;
  int thread_row, thread_col;
  thread_origin<Cfg>(thread_row, thread_col);

  float acc[Cfg::kThreadM][Cfg::kThreadN] = {};
  accumulate_tile<Cfg, kVectorized>(m, n, k, 0, k, A, B, block_row, block_col, thread_row, thread_col, acc);
  store_tile<Cfg, kVectorized>(C, m, n, block_row + thread_row, block_col + thread_col, alpha, beta, acc);
}

constexpr int kSharedBytesSm75 = 64 * 1024;  // the most shared memory a block may have on sm_75

template <class Cfg, bool kVectorized>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocksPerSm)
    sgemm_tuned_kernel(int m, int n, int k, float alpha, const float* __restrict__ A,
                       const float* __restrict__ B, float beta, float* __restrict__ C) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  // A configuration sm_75 cannot hold is refused by the launcher before any launch; its sm_75 code is a
  // trap, so that ptxas does not compile (and spill) a body that can never run.
  if constexpr (Cfg::kSharedBytes > kSharedBytesSm75) {
    __trap();
  } else
#endif
  {
    sgemm_tile<Cfg, kVectorized>(m, n, k, alpha, A, B, beta, C);
  }
}

// ---- Host launcher ------------------------------------------------------------------------------------
inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// True when every row of B and C starts on a 16-byte boundary, so 16-byte copies and float4 stores are
// legal (A is copied in 4-byte pieces: any k, any float-aligned pointer).
inline bool can_vectorize(int n, const float* B, const float* C) {
  return n % 4 == 0 && aligned16(B) && aligned16(C);
}

// Opts the kernel in to its dynamic shared memory (once per process), after checking the GPU can hold it.
template <class Cfg, bool kVectorized>
void prepare_kernel() {
  static const bool prepared = [] {
    int device = 0, optin = 0;
    TUT_CUDA_CHECK(cudaGetDevice(&device));
    TUT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (Cfg::kSharedBytes > optin)
      throw std::runtime_error("this tile configuration needs " + std::to_string(Cfg::kSharedBytes) +
                               " bytes of shared memory per block; this GPU allows " + std::to_string(optin));
    TUT_CUDA_CHECK(cudaFuncSetAttribute(sgemm_tuned_kernel<Cfg, kVectorized>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSharedBytes));
    // Ask for the largest shared-memory share of the L1/shared array, so that the shared memory of
    // kMinBlocksPerSm blocks is never what limits them (a hint; the kernel needs little L1 cache: every
    // copy it issues lands in shared memory).
    TUT_CUDA_CHECK(cudaFuncSetAttribute(sgemm_tuned_kernel<Cfg, kVectorized>,
                                        cudaFuncAttributePreferredSharedMemoryCarveout,
                                        cudaSharedmemCarveoutMaxShared));
    return true;
  }();
  (void)prepared;
}

// Output tiles of an m x n C (the grid of the kernel), refused past 2^31 - 1.
template <class Cfg>
unsigned tile_count(int m, int n) {
  const long long tiles = static_cast<long long>((m + Cfg::kBlockM - 1) / Cfg::kBlockM) *
                          ((n + Cfg::kBlockN - 1) / Cfg::kBlockN);
  if (tiles > 0x7fffffffLL) throw std::runtime_error("sgemm_tuned: more than 2^31 - 1 tiles");
  return static_cast<unsigned>(tiles);
}

// The launch alone, for a kernel that prepare_kernel<Cfg, ...>() has already opted in (chapter 28 does that
// once, in its set-up).
template <class Cfg>
void launch_prepared(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                     cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;  // an empty C: nothing to write
  const dim3 grid(tile_count<Cfg>(m, n));
  if (can_vectorize(n, B, C))
    sgemm_tuned_kernel<Cfg, true><<<grid, Cfg::kThreads, Cfg::kSharedBytes, stream>>>(m, n, k, alpha, A, B, beta, C);
  else  // n not a multiple of 4, or a misaligned B or C: 4-byte copies of B and scalar stores of C
    sgemm_tuned_kernel<Cfg, false><<<grid, Cfg::kThreads, Cfg::kSharedBytes, stream>>>(m, n, k, alpha, A, B, beta, C);
  TUT_CHECK_LAUNCH();
}

template <class Cfg>
void sgemm(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
           cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  if (can_vectorize(n, B, C)) prepare_kernel<Cfg, true>();
  else prepare_kernel<Cfg, false>();
  launch_prepared<Cfg>(m, n, k, alpha, A, B, beta, C, stream);
}

}  // namespace sgemm_tuned
