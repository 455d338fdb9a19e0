// Chapter 58: the plan of one problem on the GPU it runs on, and the work units the persistent blocks take. Plain
// C++ that the kernel also calls on the device, so the host test (test_split_k_schedule.cpp) checks every rule on
// any machine.
//
// The plan. Chapter 57 fixed two things at compile time for an H100's 132 SMs: the band of tile-rows, and one
// block per output tile walking all of K. Here both come from the SMs in use and the problem's shape, at run time:
//   * the band: band_rows_for(SMs, 128, 256), chapter 57's rule evaluated for this GPU (16 on 132 SMs, 8 on 114);
//   * the K split: where C has fewer tiles than there are SMs, each tile's K is cut into `splits` ranges, so that
//     tiles x splits work units fill one wave: splits = SMs / tiles, but no range shorter than
//     kMinSlicesPerSplit slices (a range shorter than the ring of stages cannot keep the copies ahead of the
//     wgmmas, and each range costs a tile of partial sums written and read again). With as many tiles as SMs or
//     more, splits = 1: chapter 57's kernel, no workspace.
//
// The work units. Unit u is split u / tiles of tile u % tiles (tiles in chapter 57's banded order), so the units
// of one split come one after another, and with splits = 1 the order is chapter 57's. Split s of S covers the
// slices [s slices / S, (s + 1) slices / S): ranges that differ by at most one slice, none empty while S <= slices.
#pragma once

#include <cstdint>

#include "persistent_schedule.hpp"  // chapter 57: TileCoord, SliceRing, band_rows_for

#if defined(__CUDACC__)
#define SPLIT_K_HD __host__ __device__ __forceinline__ constexpr
#else
#define SPLIT_K_HD constexpr
#endif

namespace gemm_split_k {

using gemm_persistent::band_rows_for;
using gemm_persistent::SliceRing;
using gemm_persistent::TileCoord;

// The shortest K range the plan gives a unit, in slices of 64: the ring's depth (4 stages).
inline constexpr int kMinSlicesPerSplit = 4;

struct SplitKPlan {
  int tiles_m = 0, tiles_n = 0;  // C in tiles of block_m x block_n
  int slices = 0;                // K in slices of block_k (the last one ragged)
  int band_rows = 1;             // tile-rows per band of the tile order (chapter 57)
  int splits = 1;                // K ranges per tile
  SPLIT_K_HD int tiles() const { return tiles_m * tiles_n; }
  SPLIT_K_HD int units() const { return tiles() * splits; }
};

// (Host only: the launch makes the plan and passes it to the kernel.)
// The plan for C = A B of m x n x k in tiles of block_m x block_n x block_k on `sms` SMs (one block each).
// forced_splits > 0: that split instead of the rule's (the tests and the candidates), at most the slices.
constexpr SplitKPlan plan_split_k(int sms, int m, int n, int k, int block_m, int block_n, int block_k,
                                  int forced_splits = 0) {
  SplitKPlan p;
  p.tiles_m = (m + block_m - 1) / block_m;
  p.tiles_n = (n + block_n - 1) / block_n;
  p.slices = (k + block_k - 1) / block_k;
  p.band_rows = band_rows_for(sms, block_m, block_n);
  const int tiles = p.tiles();
  int splits = 1;
  if (forced_splits > 0) {
    splits = forced_splits;
  } else if (tiles > 0) {
    const int to_fill_a_wave = sms / tiles;                   // 0 or 1: the tiles alone fill a wave
    const int deep_enough = p.slices / kMinSlicesPerSplit;    // ranges of at least kMinSlicesPerSplit slices
    splits = to_fill_a_wave < deep_enough ? to_fill_a_wave : deep_enough;
  }
  if (splits > p.slices) splits = p.slices;  // no empty range
  p.splits = splits < 1 ? 1 : splits;
  return p;
}

// Tile `tile` of chapter 57's banded order (tile_of), with the band width a run-time value.
SPLIT_K_HD TileCoord tile_in_bands(int tile, int band_rows, int tiles_m, int tiles_n) {
  const int band_tiles = band_rows * tiles_n;
  const int band = tile / band_tiles;
  const int first_row = band * band_rows;
  const int rows = tiles_m - first_row < band_rows ? tiles_m - first_row : band_rows;  // the last band: fewer
  const int in_band = tile - band * band_tiles;
  return {first_row + in_band % rows, in_band / rows};
}

struct WorkUnit {
  TileCoord tile;
  int split;        // which K range: its partial sums go to workspace slice `split`
  int first_slice;  // the slices first_slice .. end_slice - 1 of K
  int end_slice;
};

// Unit `unit` (0 <= unit < plan.units()).
SPLIT_K_HD WorkUnit unit_of(int unit, const SplitKPlan& plan) {
  const int tiles = plan.tiles();
  const int split = unit / tiles;
  const auto range_start = [&](int s) {
    return static_cast<int>(static_cast<long long>(s) * plan.slices / plan.splits);
  };
  return {tile_in_bands(unit - split * tiles, plan.band_rows, plan.tiles_m, plan.tiles_n), split,
          range_start(split), range_start(split + 1)};
}

}  // namespace gemm_split_k

#undef SPLIT_K_HD
