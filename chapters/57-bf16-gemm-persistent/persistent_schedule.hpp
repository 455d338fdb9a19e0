// Chapter 57: which output tiles a persistent block takes, in what order, and where each slice it loads lands in
// the ring of stages. Plain C++ that the kernel also calls on the device, so the host test
// (test_persistent_schedule.cpp) checks every index, and replays the ring's mbarrier protocol (ring_replay.hpp), on
// any machine.
//
// Tiles. C is tiles_m x tiles_n tiles (tile-rows along M, tile-columns along N). Block b of a grid of G takes
// tiles b, b + G, b + 2 G, ... of one order, the rasterised one: the tile-rows are cut into bands of kBandRows,
// and the tiles of a band are numbered down its tile-rows first, then column by column, band after band:
//
//     kBandRows = 2, tiles_m = 5, tiles_n = 4:    0  2  4  6        (the last band may be narrower:
//                                                 1  3  5  7         its tiles go down its own rows)
//                                                 8 10 12 14
//                                                 9 11 13 15
//                                                16 17 18 19
//
// kBandRows = 1 is the plain row-by-row order. Why bands: the G blocks of a grid run their tiles at about the same
// time, and at about the same K, so the tiles one wave holds read their A and B slices from L2 together. A wave of
// G tiles in a band spans kBandRows tile-rows and about G / kBandRows tile-columns: per 64-deep slice it needs
// kBandRows A panels of kBlockM rows and G / kBandRows B panels of kBlockN rows, fewest rows in all where
// kBandRows = sqrt(G kBlockN / kBlockM) (for 132 blocks of 128 x 256 tiles, 16); row by row, a wave spans as many
// tile-columns as C has, up to all of B.
//
// The ring. A block numbers the slices of all its tiles one after the other, count = 0, 1, 2, ... across its tile
// boundaries (its producer as it loads them, its consumers as they multiply them). Slice `count` goes to stage
// count % kStages and is that stage's use number count / kStages: the full barrier's phase it completes has the
// parity of that number, and the producer may load it once the empty barrier's phase of the stage's previous use
// (count - kStages) has completed. A counter restarted at each tile would name the wrong phase from the second
// tile on, unless the tile's slice count were a multiple of 2 kStages.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define PERSISTENT_HD __host__ __device__ __forceinline__
#else
#define PERSISTENT_HD inline
#endif

namespace gemm_persistent {

struct TileCoord {
  int row;  // tile-row: the tile starts at row row * kBlockM of C
  int col;  // tile-column: at column col * kBlockN
};

// Tile `tile` (0 <= tile < tiles_m tiles_n) of the rasterised order above.
template <int kBandRows>
PERSISTENT_HD TileCoord tile_of(int tile, int tiles_m, int tiles_n) {
  static_assert(kBandRows >= 1, "a band holds at least one tile-row (1: row by row, no rasterisation)");
  const int band_tiles = kBandRows * tiles_n;
  const int band = tile / band_tiles;
  const int first_row = band * kBandRows;
  const int rows = tiles_m - first_row < kBandRows ? tiles_m - first_row : kBandRows;  // the last band: fewer
  const int in_band = tile - band * band_tiles;
  return {first_row + in_band % rows, in_band / rows};
}

// The band width for `blocks` tiles of block_m x block_n at a time: the rows one wave reads per slice,
// R block_m + (blocks / R) block_n, are fewest at R = sqrt(blocks block_n / block_m); this is the power of two at
// or below that (so that it divides the tile-rows of the power-of-two sizes: 32 at 4096, 64 at 8192).
constexpr int band_rows_for(int blocks, int block_m, int block_n) {
  int rows = 1;
  while (4LL * rows * rows * block_m <= static_cast<long long>(blocks) * block_n) rows *= 2;
  return rows;
}

// Slice `count` of a block's stream: its stage, the parity of the full barrier's phase its bytes complete, and the
// parity of the empty barrier's phase the producer waits for before loading it (count >= kStages only: the first
// kStages slices find their stages unused).
template <int kStages>
struct SliceRing {
  static_assert(kStages >= 2, "a ring of at least two stages");
  PERSISTENT_HD static int stage(std::uint32_t count) { return static_cast<int>(count % kStages); }
  PERSISTENT_HD static unsigned full_parity(std::uint32_t count) { return (count / kStages) & 1u; }
  PERSISTENT_HD static unsigned empty_parity(std::uint32_t count) { return (count / kStages - 1u) & 1u; }
};

}  // namespace gemm_persistent

#undef PERSISTENT_HD
