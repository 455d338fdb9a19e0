// Chapter 29: the stream-K schedule (Osama et al., "Stream-K: Work-centric Parallel Decomposition for Dense
// Matrix-Matrix Multiplication", PPoPP 2023). Plain C++ that the kernels also call on the device, so the host
// tests check every index on any machine (test_stream_k_schedule.cpp).
//
// An output tile's K sum is iters_per_tile slices of block_k (its MAC-loop iterations). Stream-K numbers the
// iterations of all stream-K tiles one after the other, tile by tile, and deals them out evenly to a fixed
// grid of persistent blocks, SMs x blocks per SM:
//     block b takes iterations [begin(b), end(b)): base = sk_iters / grid each, the first extra = sk_iters % grid
//     one more.
// So no block runs more than one iteration longer than another, whatever the tile count: there is no partly
// empty last wave. A block's range starts and ends anywhere inside a tile, so it walks it as segments, one per
// tile it touches. A segment that covers the whole of its tile's K is stored to C (alpha and beta applied);
// a partial one is stored as it is into a workspace slot of its own: a block's range has at most two partial
// segments (its first and its last), so block b owns slots 2b (its first segment) and 2b + 1 (its last).
// The fix-up then sums each split tile's partials in block order, which is K order, and applies alpha and beta.
//
// The hybrid (dp_tiles > 0, "data-parallel + stream-K"): the tiles of the full waves are done whole, one per
// block per wave as in chapter 27, and only the tiles of the last, partial wave are dealt out by iteration.
//
// Wave quantisation, the arithmetic the explanation prints (128 x 4096 x 4096 on 132 SMs, 128 x 256 tiles):
//     tiles = 1 x 16 = 16; grid = 132 SMs x 1 block = 132; waves = ceil(16 / 132) = 1, the last wave holds 16
//     of 132 slots (12%): a tile per block leaves 116 SMs idle. Stream-K: 16 tiles x 256 slices = 4096
//     iterations, 31.03 per block (31 or 32), every SM busy; each tile is summed by 9 or 10 blocks.
#pragma once

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#if defined(__CUDACC__)
#define STREAM_K_HD __host__ __device__ __forceinline__
#else
#define STREAM_K_HD inline
#endif

namespace sgemm_stream_k {

// One block's work on one tile: slices [slice_begin, slice_end) of the tile's K.
struct Segment {
  int tile;          // index of the tile among all tiles of C (the data-parallel ones first)
  int slice_begin;   // first slice of the tile's K this segment sums
  int slice_end;     // one past the last
  bool whole;        // the tile's whole K: stored to C, no fix-up
  int slot;          // !whole: the workspace slot of the partial tile
};

struct Schedule {
  int tiles = 0;           // output tiles of C
  int iters_per_tile = 0;  // slices of K per tile; at least 1 (K = 0 is one empty iteration: C = beta C)
  int grid = 0;            // persistent blocks: SMs x resident blocks per SM
  int dp_tiles = 0;        // tiles done whole before the stream-K part (the hybrid); 0: stream-K only
  int sk_iters = 0;        // iterations of the stream-K part: (tiles - dp_tiles) x iters_per_tile
  int base = 0;            // every block takes base iterations of it ...
  int extra = 0;           // ... and the first `extra` blocks one more

  STREAM_K_HD int begin(int b) const { return b * base + (b < extra ? b : extra); }
  STREAM_K_HD int end(int b) const { return begin(b) + base + (b < extra ? 1 : 0); }
  // The block whose range holds stream-K iteration i (0 <= i < sk_iters; base == 0 means i < extra).
  STREAM_K_HD int owner(int i) const {
    const int longer = extra * (base + 1);  // iterations held by the blocks that take one more
    return i < longer ? i / (base + 1) : extra + (i - longer) / base;
  }
  // Block b's segment that starts at iteration it (begin(b) <= it < end(b)); the next one starts at
  // it + slice_end - slice_begin.
  STREAM_K_HD Segment segment(int b, int it) const {
    const int sk_tile = it / iters_per_tile, first = sk_tile * iters_per_tile;
    const int range_end = end(b), tile_end = first + iters_per_tile;
    Segment s;
    s.tile = dp_tiles + sk_tile;
    s.slice_begin = it - first;
    s.slice_end = (range_end < tile_end ? range_end : tile_end) - first;
    s.whole = s.slice_begin == 0 && s.slice_end == iters_per_tile;
    s.slot = 2 * b + (it == begin(b) ? 0 : 1);  // a range's first segment, or its last
    return s;
  }
  // The blocks that summed stream-K tile sk_tile (0-based after the data-parallel tiles): first .. last, in K
  // order. first == last: one block did the whole tile and stored it to C.
  STREAM_K_HD int first_block(int sk_tile) const { return owner(sk_tile * iters_per_tile); }
  STREAM_K_HD int last_block(int sk_tile) const { return owner((sk_tile + 1) * iters_per_tile - 1); }
  // The slot in which block b (first_block .. last_block of the tile) left its partial of sk_tile: slot 2b if
  // its range starts inside the tile (the tile is its first segment), 2b + 1 if it started in an earlier one.
  STREAM_K_HD int slot_of(int b, int sk_tile) const {
    return 2 * b + (begin(b) >= sk_tile * iters_per_tile ? 0 : 1);
  }

  int sk_tiles() const { return tiles - dp_tiles; }
  // Blocks with a non-empty stream-K range: the workspace holds two slots for each.
  int active_blocks() const { return sk_iters < grid ? sk_iters : grid; }
  // Workspace slots: 2 per active block (O(1), for the launch's check; a schedule that splits no tile
  // writes none of them, a rare case not worth a loop over the tiles in every launch).
  int slots() const { return 2 * active_blocks(); }
  // Stream-K tiles summed by more than one block (the fix-up's work; a loop over the tiles: set-up and
  // explanation only).
  int split_tiles() const {
    int split = 0;
    for (int t = 0; t < sk_tiles(); ++t) split += first_block(t) != last_block(t) ? 1 : 0;
    return split;
  }
};

#undef STREAM_K_HD

// The schedule of an m x n x k problem cut into block_m x block_n tiles of block_k-deep slices on `grid`
// persistent blocks; hybrid: the full waves' tiles data-parallel. Throws std::invalid_argument for a
// non-positive grid or tile, and where the iteration count would pass 2^31 - 1 (no shape of the ladder's
// limits comes near: m n k < 2^46.5, so at most 2^29.5 iterations of 64 x 128 x 16).
inline Schedule make_schedule(long long m, long long n, long long k, int block_m, int block_n, int block_k, int grid,
                              bool hybrid) {
  if (grid <= 0 || block_m <= 0 || block_n <= 0 || block_k <= 0)
    throw std::invalid_argument("stream-K schedule: grid and tile sizes must be positive");
  if (m < 0 || n < 0 || k < 0) throw std::invalid_argument("stream-K schedule: negative size");
  const long long tiles = ((m + block_m - 1) / block_m) * ((n + block_n - 1) / block_n);
  const long long per_tile = k > 0 ? (k + block_k - 1) / block_k : 1;
  const long long dp_tiles = hybrid ? tiles / grid * grid : 0;
  const long long sk_iters = (tiles - dp_tiles) * per_tile;
  if (tiles > 0x7fffffffLL || sk_iters > 0x7fffffffLL)
    throw std::invalid_argument("stream-K schedule: more than 2^31 - 1 tiles or iterations");
  Schedule s;
  s.tiles = static_cast<int>(tiles);
  s.iters_per_tile = static_cast<int>(per_tile);
  s.grid = grid;
  s.dp_tiles = static_cast<int>(dp_tiles);
  s.sk_iters = static_cast<int>(sk_iters);
  s.base = s.sk_iters / grid;
  s.extra = s.sk_iters % grid;
  return s;
}

// The wave-quantisation arithmetic and the schedule in one line, e.g. "16 tiles on 132 blocks (132 SMs x 1):
// 1 wave, the last 16 of 132 slots (12%); stream-K 16 tiles x 256 slices = 4096 iterations, 31.03 per block
// (31 to 32); 16 split tiles fixed up from 264 slots".
inline std::string describe(const Schedule& s, int sms, int blocks_per_sm) {
  const long long waves = s.grid > 0 ? (s.tiles + s.grid - 1) / s.grid : 0;
  const long long last = s.tiles - (waves > 0 ? waves - 1 : 0) * s.grid;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%d tiles on %d blocks (%d SMs x %d): %lld wave%s, the last %lld of %d slots (%.0f%%); %d tiles "
                "data-parallel; stream-K %d tiles x %d slices = %d iterations, %.2f per block (%d to %d); %d split "
                "tiles fixed up",
                s.tiles, s.grid, sms, blocks_per_sm, waves, waves == 1 ? "" : "s", last, s.grid,
                s.grid > 0 ? 100.0 * static_cast<double>(last) / s.grid : 0.0, s.dp_tiles, s.sk_tiles(),
                s.iters_per_tile, s.sk_iters, s.grid > 0 ? static_cast<double>(s.sk_iters) / s.grid : 0.0, s.base,
                s.base + (s.extra > 0 ? 1 : 0), s.split_tiles());
  return buf;
}

}  // namespace sgemm_stream_k
