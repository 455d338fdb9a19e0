// Chapter 57: how a consumer warp writes its 16 rows of C from the wgmma accumulators, three ways (a template option of
// the persistent and ping-pong kernels; CEpilogue::kFragments is the stage's).
//
//   kFragments        chapter 54's store_c_fragment per 8-column block: with beta != 0 each float2 of old C is loaded,
//                     scaled and stored before the next one is loaded. Each fragment is its own guarded branch (row
//                     past M, column past N, no float2 pairs), so the compiler keeps the order: ptxas (CUDA 13.0)
//                     emits LDG, FFMA, STG, LDG, ... and the warp waits one memory round trip per float2, 128 in a row
//                     per thread and 128 x 256 tile (64 per thread and 128 x 128 half-tile in ping-pong).
//   kBatched          where the warp's 16 rows and the tile's columns lie inside C and float2 stores are allowed (the
//                     interior tiles: every tile at 4096^3), one guard for the whole block of accumulators, then
//                     loads in batches of kEpilogueBatch fragments (2 float2 each) before their stores: one round
//                     trip per batch. Elsewhere kFragments.
//   kBatchedPrefetch  kBatched, and the producer thread asks L2 for the tile's rows of C (cp.async.bulk.prefetch.L2)
//                     during the tile's last slices, so the batches' loads find C in L2 instead of DRAM (where
//                     beta != 0 and C's rows start on 16 bytes: N a multiple of 4, C 16-byte aligned).
// Nothing here changes what is written: the same alpha acc + beta old per element as store_c_fragment (one FMUL,
// one FFMA), and beta = 0 never reads C.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gemm_tc/mma_sync.cuh"
#include "hopper/arch.cuh"

namespace gemm_persistent {

enum class CEpilogue { kFragments, kBatched, kBatchedPrefetch };

// Fragments per batch of loads: 16 x 2 float2 = 64 registers beside the 128 accumulators, within the consumers' 232.
inline constexpr int kEpilogueBatch = 16;
// The tile's rows of C are prefetched over its last (at most) this many slices, a few rows per slice.
inline constexpr int kPrefetchSlices = 8;

// One bulk prefetch of `bytes` (a multiple of 16) from a 16-byte aligned global address into L2: no destination, no
// completion to wait for (PTX ISA 8.0, cp.async.bulk.prefetch).
__device__ __forceinline__ void prefetch_l2_bulk(const void* p, unsigned bytes) {
#if TUT_SM90_DEVICE_CODE
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
#else
  (void)p, (void)bytes;
#endif
}

// Whether the producer prefetches C for this launch: only where the epilogue reads it, and where each row starts on
// 16 bytes (so that a row's run of the tile is whole 16-byte chunks).
__device__ __forceinline__ bool prefetch_c_allowed(const float* C, int n, float beta) {
  return beta != 0.0f && n % 4 == 0 && reinterpret_cast<std::uintptr_t>(C) % 16 == 0;
}

// The producer thread, while it loads slice s of a tile whose C block starts at (row0, col0) and is block_m x block_n:
// during the last min(slices, kPrefetchSlices) slices, its share of the block's rows (rows past M skipped, columns
// past N cut off).
template <int kBlockM, int kBlockN>
__device__ __forceinline__ void prefetch_c_rows(const float* C, int m, int n, int row0, int col0, int s, int slices) {
  const int lead = slices < kPrefetchSlices ? slices : kPrefetchSlices;
  const int i = s - (slices - lead);
  if (i < 0) return;
  const int per = (kBlockM + lead - 1) / lead;
  const int cols = n - col0 < kBlockN ? n - col0 : kBlockN;
  const unsigned bytes = static_cast<unsigned>(cols) * sizeof(float);  // a multiple of 16: n and col0 of 4
  for (int r = i * per; r < (i + 1) * per && r < kBlockM && row0 + r < m; ++r)
    prefetch_l2_bulk(C + static_cast<std::size_t>(row0 + r) * n + col0, bytes);
}

// A warp's 16 rows (row0 ..) x kCols columns (col0 ..) of C from its accumulators acc[kCols / 2] (the wgmma m64nN
// fragment's layout: 8-column block j is acc[4j .. 4j + 3], an mma.sync m16n8 C fragment), as kEpilogue says.
template <int kCols, CEpilogue kEpilogue>
__device__ __forceinline__ void store_c_warp_rows(const float* acc, float* __restrict__ C, int m, int n, int row0,
                                                  int col0, float alpha, float beta, bool pairs_c) {
  if constexpr (kEpilogue != CEpilogue::kFragments) {
    static_assert(kCols % (8 * kEpilogueBatch) == 0, "whole batches of 8-column blocks");
    if (pairs_c && row0 + 16 <= m && col0 + kCols <= n) {
      const int lane = static_cast<int>(threadIdx.x) & 31;
      float* const lo = C + static_cast<std::size_t>(row0 + lane / 4) * n + col0 + 2 * (lane % 4);
      float* const hi = lo + 8 * static_cast<std::size_t>(n);  // the fragment's row + 8
      if (beta == 0.0f) {
#pragma unroll
        for (int j = 0; j < kCols / 8; ++j) {
          *reinterpret_cast<float2*>(lo + 8 * j) = make_float2(alpha * acc[4 * j], alpha * acc[4 * j + 1]);
          *reinterpret_cast<float2*>(hi + 8 * j) = make_float2(alpha * acc[4 * j + 2], alpha * acc[4 * j + 3]);
        }
        return;
      }
#pragma unroll
      for (int b = 0; b < kCols / 8; b += kEpilogueBatch) {
        float2 old[kEpilogueBatch][2];
#pragma unroll
        for (int i = 0; i < kEpilogueBatch; ++i) {
          old[i][0] = __ldcg(reinterpret_cast<const float2*>(lo + 8 * (b + i)));
          old[i][1] = __ldcg(reinterpret_cast<const float2*>(hi + 8 * (b + i)));
        }
#pragma unroll
        for (int i = 0; i < kEpilogueBatch; ++i) {
          const float* f = acc + 4 * (b + i);
          *reinterpret_cast<float2*>(lo + 8 * (b + i)) =
              make_float2(alpha * f[0] + beta * old[i][0].x, alpha * f[1] + beta * old[i][0].y);
          *reinterpret_cast<float2*>(hi + 8 * (b + i)) =
              make_float2(alpha * f[2] + beta * old[i][1].x, alpha * f[3] + beta * old[i][1].y);
        }
      }
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < kCols / 8; ++j) {
    const float fragment[4] = {acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]};
    tut::gemm_tc::store_c_fragment(fragment, C, m, n, row0, col0 + 8 * j, alpha, beta, pairs_c);
  }
}

}  // namespace gemm_persistent
