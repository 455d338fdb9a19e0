// Chapter 15: single-pass scan with decoupled look-back.
// Beyond the article (seed 000 stops at its two-pass reduce-then-scan, §11): the scan of Merrill and
// Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back" (NVIDIA, 2016). Every element is
// read once and written once (8 bytes per element, like a copy), in one kernel: each block scans one
// tile and learns the sum of everything before it from the status words its predecessors publish.
//
// This is the teachable version: one element per thread, 1024-thread tiles (the article's part size),
// chapter 14's block scan (built on chapter 12's predicated shuffle warp scan), release/acquire status
// words. Chapter 16 tunes it.
//
//   init_tile_status_kernel  reset the tile counter and every tile's status word to X (common/decoupled_lookback.cuh)
//   scan_tiles_kernel        <<<tiles, 1024>>>  take a tile, scan it, look back, publish, write
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "decoupled_lookback.cuh"
#include "warp_scan.cuh"

namespace scan_decoupled_lookback {

constexpr int kTileSize = 1024;  // elements per tile = threads per block (the article's part_size)
constexpr int kWarpSize = 32;
constexpr int kWarpsPerTile = kTileSize / kWarpSize;
static_assert(kWarpsPerTile == kWarpSize, "a tile is 32 warps, so that one warp scans the 32 warp totals");
constexpr unsigned kFullMask = 0xffffffffu;  // all 32 lanes take part in every shuffle

// ---- Warp building blocks, in common/warp_scan.cuh: chapter 12's block scan (scan_block_32_warps) and
// reduce_warp, the sum over a warp by xor-butterfly shuffles, returned to every lane.
using tut::warp::reduce_warp;

// ---- Tile status words: introduced here, now in common/decoupled_lookback.cuh ----------------------------------
// One 64-bit word per tile, flag (X invalid, A aggregate, P inclusive prefix) in the high half and the 32-bit
// value in the low half, so that a reader never sees a flag with another write's value; accessed through
// cuda::atomic_ref at device scope (served by L2, never cached in a register, never torn).
using tut::lookback::kAggregate;
using tut::lookback::kInclusive;
using tut::lookback::kInvalid;
using tut::lookback::make_status;
using tut::lookback::status_flag;
using tut::lookback::status_value;
using tut::lookback::StatusRef;
using tut::lookback::StatusWord;

// Published with release and read with acquire here: stronger than this scan needs (the value is inside
// the word, see the README); it is what a design that publishes data in a separate buffer would need.
// Chapter 16 relaxes them (tut::lookback::publish_status, read_status).
__device__ __forceinline__ void publish_status_release(StatusWord* status, std::int64_t tile, std::uint32_t flag,
                                               std::uint32_t value) {
  StatusRef(status[tile]).store(make_status(flag, value), cuda::memory_order_release);
}
__device__ __forceinline__ StatusWord read_status_acquire(StatusWord* status, std::int64_t tile) {
  return StatusRef(status[tile]).load(cuda::memory_order_acquire);
}

// ---- Workspace: the tile counter (its own 128-byte line), then one status word per tile ----------------
inline std::size_t tile_count(std::size_t n) { return (n + kTileSize - 1) / kTileSize; }

// Scratch the scan needs for n elements: 128 bytes for the tile counter plus 8 bytes per tile.
inline std::size_t workspace_bytes(std::size_t n) {
  return tut::lookback::kStatusOffset + tile_count(n) * sizeof(StatusWord);
}

// ---- The look-back --------------------------------------------------------------------------------------
// The sum of all elements before `tile` (its exclusive prefix), called by all 32 lanes of one warp.
// The warp reads a window of the 32 nearest predecessors at once (lane 31 reads tile - 1). It waits until
// none of them is X, then finds the nearest P with a ballot: that P and the aggregates of the tiles
// after it are everything the tile needs. With no P in the window it adds all 32 aggregates and moves
// the window 32 tiles further back. Tiles before tile 0 count as P with value 0, so the loop ends.
__device__ __forceinline__ std::uint32_t look_back(StatusWord* status, std::int64_t tile) {
  const int lane = threadIdx.x % kWarpSize;
  std::uint32_t exclusive_prefix = 0;
  for (std::int64_t window_end = tile;; window_end -= kWarpSize) {
    const std::int64_t predecessor = window_end - kWarpSize + lane;
    StatusWord word;
    do {
      word = predecessor >= 0 ? read_status_acquire(status, predecessor) : make_status(kInclusive, 0);
    } while (__any_sync(kFullMask, status_flag(word) == kInvalid));

    const unsigned inclusive_lanes = __ballot_sync(kFullMask, status_flag(word) == kInclusive);
    // Highest lane with a P = the nearest such predecessor; lanes below it are already inside its value.
    const int nearest = inclusive_lanes != 0 ? kWarpSize - 1 - __clz(static_cast<int>(inclusive_lanes)) : 0;
    exclusive_prefix += reduce_warp(lane >= nearest ? status_value(word) : 0u);
    if (inclusive_lanes != 0) return exclusive_prefix;
  }
}

// The chained scan, for comparison: wait until the previous tile has its inclusive prefix. Every tile
// waits for the one before, which waited for the one before it: one L2 round trip per tile, in series.
__device__ __forceinline__ std::uint32_t wait_for_predecessor(StatusWord* status, std::int64_t tile) {
  StatusWord word;
  do {
    word = read_status_acquire(status, tile - 1);
  } while (status_flag(word) != kInclusive);
  return status_value(word);
}

// ---- Kernels --------------------------------------------------------------------------------------------
// The status reset before each scan (init_tile_status_kernel: the counter and every word to X) is in
// common/decoupled_lookback.cuh.

// One tile per block. kDecoupled = true is the decoupled look-back, false the chained scan.
template <bool kDecoupled>
__global__ __launch_bounds__(kTileSize) void scan_tiles_kernel(const std::uint32_t* in, std::uint32_t* out,
                                                               std::int64_t n, unsigned* tile_counter,
                                                               StatusWord* status) {
  __shared__ std::uint32_t warp_sums[kWarpsPerTile];
  __shared__ unsigned tile_shared;
  __shared__ std::uint32_t exclusive_prefix_shared;
  const int lane = threadIdx.x % kWarpSize;

  // 1. Take tiles in the order blocks start, not by blockIdx.x: a block then only ever waits for tiles
  //    that blocks already running have taken, so the scan cannot deadlock however blocks are scheduled.
  if (threadIdx.x == 0) tile_shared = atomicAdd(tile_counter, 1u);
  __syncthreads();
  const std::int64_t tile = tile_shared;
  const std::int64_t i = tile * kTileSize + threadIdx.x;  // 64-bit: n may exceed 2^31

  // 2. Scan the tile on its own (zeros past the end of the input).
  const std::uint32_t inclusive_in_tile = tut::warp::scan_block_32_warps(i < n ? in[i] : 0u, warp_sums);
  const std::uint32_t tile_aggregate = warp_sums[kWarpsPerTile - 1];

  // 3. Warp 0 finds the tile's exclusive prefix and publishes the tile's status.
  if (threadIdx.x < kWarpSize) {
    std::uint32_t exclusive_prefix = 0;
    if (tile == 0) {
      if (lane == 0) publish_status_release(status, tile, kInclusive, tile_aggregate);
    } else if (kDecoupled) {
      // The aggregate first, so that successors can use it before this tile knows its prefix ...
      if (lane == 0) publish_status_release(status, tile, kAggregate, tile_aggregate);
      exclusive_prefix = look_back(status, tile);
      // ... then the inclusive prefix, which ends the look-back of every successor that reaches it.
      if (lane == 0) publish_status_release(status, tile, kInclusive, exclusive_prefix + tile_aggregate);
    } else if (lane == 0) {
      exclusive_prefix = wait_for_predecessor(status, tile);
      publish_status_release(status, tile, kInclusive, exclusive_prefix + tile_aggregate);
    }
    if (lane == 0) exclusive_prefix_shared = exclusive_prefix;
  }
  __syncthreads();

  // 4. Every element gets the prefix of all tiles before its own.
  if (i < n) out[i] = inclusive_in_tile + exclusive_prefix_shared;
}

template <bool kDecoupled>
inline void launch_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                        cudaStream_t stream) {
  if (n == 0) return;
  // int32_t and uint32_t may alias each other, so the kernel works on the caller's arrays as uint32.
  const auto* in = reinterpret_cast<const std::uint32_t*>(d_in);
  auto* out = reinterpret_cast<std::uint32_t*>(d_out);
  // tiles < 2^32 fits the 32-bit tile counter: that would take 2^42 elements, far past any GPU's memory.
  const std::size_t tiles = tile_count(n);
  unsigned* tile_counter = tut::lookback::workspace_tile_counter(d_workspace);
  StatusWord* status = tut::lookback::workspace_status(d_workspace);
  tut::lookback::launch_init_tile_status(tile_counter, status, tiles, stream);

  // Exactly one block per tile (a grid of up to 2^31 - 1 blocks: 2^41 elements).
  scan_tiles_kernel<kDecoupled><<<static_cast<unsigned>(tiles), kTileSize, 0, stream>>>(
      in, out, static_cast<std::int64_t>(n), tile_counter, status);
  TUT_CHECK_LAUNCH();
}

// Enqueues the inclusive scan of n int32 on `stream`: a reset of the tile status, then one kernel.
inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  launch_scan<true>(d_in, d_out, n, d_workspace, stream);
}

// The chained scan (each tile waits for its predecessor's inclusive prefix), kept to show what the
// decoupling buys. Same workspace.
inline void inclusive_scan_chained(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n,
                                   void* d_workspace, cudaStream_t stream) {
  launch_scan<false>(d_in, d_out, n, d_workspace, stream);
}

}  // namespace scan_decoupled_lookback
