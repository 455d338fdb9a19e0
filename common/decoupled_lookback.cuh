// The decoupled look-back machinery of the single-pass scan chapters 15-18 (Merrill and Garland,
// "Single-pass Parallel Prefix Scan with Decoupled Look-back", NVIDIA 2016), once:
//   - the tile status words (chapter 15) and their relaxed publication (chapter 16);
//   - the workspace: a tile counter on its own 128-byte line, then one status word per tile;
//   - the status reset, init_tile_status_kernel (chapter 15), and its launch (init_status_blocks,
//     launch_init_tile_status);
//   - the warp's look-back over a window of 32 predecessors with a doubling __nanosleep backoff (chapter 16);
//   - a tile's block-wide steps: the warps' sums (scan_warp_sums) and warp 0's look-back between the two
//     publications (tile_exclusive_prefix, with chapter 17's carry_in).
// A Tuning T passed to the templates provides kTileItems, kWarps, kFirstSleepNs and kMaxSleepNs.
// Chapter 15 keeps its release/acquire publication and its spin-only look-back: they are its lesson.
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "warp_scan.cuh"

namespace tut::lookback {

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;  // all 32 lanes take part in every shuffle and vote
constexpr int kInitThreads = 256;            // threads per block of the status-reset kernel
constexpr int kMaxInitBlocks = 1024;         // it loops over the status words beyond this many blocks

// ---- Tile status words --------------------------------------------------------------------------------------
// One 64-bit word per tile: the flag in the high half, the 32-bit value in the low half. Because the two
// travel in one aligned 64-bit access, a reader never sees a flag with another write's value.
//
//   X (invalid)   the tile has not published anything yet           -> a reader must wait
//   A (aggregate) value = sum of this tile's elements only          -> add it and keep looking back
//   P (inclusive) value = sum of every element up to this tile's end -> add it and stop
//
// A tile's word moves X -> A -> P (tile 0: X -> P) and never back.
using StatusWord = unsigned long long;
enum TileFlag : std::uint32_t { kInvalid = 0, kAggregate = 1, kInclusive = 2 };

__host__ __device__ constexpr StatusWord make_status(std::uint32_t flag, std::uint32_t value) {
  return (static_cast<StatusWord>(flag) << 32) | value;
}
__device__ __forceinline__ std::uint32_t status_flag(StatusWord word) {
  return static_cast<std::uint32_t>(word >> 32);
}
__device__ __forceinline__ std::uint32_t status_value(StatusWord word) {
  return static_cast<std::uint32_t>(word);
}

// Device-scope atomics: blocks on other SMs read these words, so the accesses must be served by the
// (coherent) L2 and not by an SM's own L1, and the compiler must neither cache a load in a register
// across loop iterations nor tear or merge the 64-bit access. cuda::atomic_ref gives all three.
using StatusRef = cuda::atomic_ref<StatusWord, cuda::thread_scope_device>;

// Relaxed (ld.relaxed.gpu / st.relaxed.gpu, served by L2): enough, because a reader needs nothing but the
// word itself: flag and value arrive together in one single-copy-atomic 64-bit access, and per-location
// coherence keeps a word from ever going back from P to A or X. Chapter 15's release/acquire makes every
// publication wait for the thread's earlier writes, and orders nothing this scan reads.
__device__ __forceinline__ void publish_status(StatusWord* status, std::int64_t tile, std::uint32_t flag,
                                               std::uint32_t value) {
  StatusRef(status[tile]).store(make_status(flag, value), cuda::memory_order_relaxed);
}
__device__ __forceinline__ StatusWord read_status(StatusWord* status, std::int64_t tile) {
  return StatusRef(status[tile]).load(cuda::memory_order_relaxed);
}

// ---- Workspace: the tile counter, then one status word per tile ---------------------------------------------
constexpr std::size_t kStatusOffset = 128;  // the counter keeps a 128-byte line of its own

template <class T>
inline std::size_t tile_count(std::size_t n) {
  return (n + T::kTileItems - 1) / T::kTileItems;
}

template <class T>
inline std::size_t workspace_bytes_for(std::size_t n) {
  return kStatusOffset + tile_count<T>(n) * sizeof(StatusWord);
}

// The workspace split into the tile counter and the status words.
inline unsigned* workspace_tile_counter(void* d_workspace) { return static_cast<unsigned*>(d_workspace); }
inline StatusWord* workspace_status(void* d_workspace) {
  return reinterpret_cast<StatusWord*>(static_cast<unsigned char*>(d_workspace) + kStatusOffset);
}

// ---- The status reset ---------------------------------------------------------------------------------------
// Resets the counter and every status word to X before each scan (the workspace holds garbage, or the
// previous scan's words). The scan kernel starts after this kernel ends, so plain stores suffice.
__global__ void init_tile_status_kernel(unsigned* tile_counter, StatusWord* status, std::int64_t tiles) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = first; t < tiles; t += stride) status[t] = make_status(kInvalid, 0);
  if (first == 0) *tile_counter = 0;
}

// The reset's grid for `tiles` status words: one word per thread, at most kMaxInitBlocks blocks of
// kInitThreads (the kernel loops beyond).
inline unsigned init_status_blocks(std::size_t tiles) {
  const std::size_t blocks_needed = (tiles + kInitThreads - 1) / kInitThreads;
  return static_cast<unsigned>(blocks_needed < static_cast<std::size_t>(kMaxInitBlocks) ? blocks_needed
                                                                                        : kMaxInitBlocks);
}

// Enqueues the reset of the tile counter and of the status words of `tiles` tiles.
inline void launch_init_tile_status(unsigned* tile_counter, StatusWord* status, std::size_t tiles,
                                    cudaStream_t stream) {
  init_tile_status_kernel<<<init_status_blocks(tiles), kInitThreads, 0, stream>>>(tile_counter, status,
                                                                                  static_cast<std::int64_t>(tiles));
  TUT_CHECK_LAUNCH();
}

// ---- The look-back (chapter 15's, with chapter 16's backoff) ------------------------------------------------
// The sum of all elements before `tile`, called by all 32 lanes of one warp: read the 32 nearest
// predecessors' words at once (lane 31 reads tile - 1); while any is X, sleep (doubling) and read again;
// then the nearest P (ballot) and the aggregates after it, or all 32 aggregates and the next window back.
// Tiles before tile 0 count as P with value 0, so the loop ends.
template <class T>
__device__ __forceinline__ std::uint32_t look_back(StatusWord* status, std::int64_t tile) {
  const int lane = threadIdx.x % kWarpSize;
  std::uint32_t exclusive_prefix = 0;
  for (std::int64_t window_end = tile;; window_end -= kWarpSize) {
    const std::int64_t predecessor = window_end - kWarpSize + lane;
    StatusWord word = predecessor >= 0 ? read_status(status, predecessor) : make_status(kInclusive, 0);
    unsigned sleep_ns = T::kFirstSleepNs;
    while (__any_sync(kFullMask, status_flag(word) == kInvalid)) {
      // Backing off leaves L2 to the tiles that are still loading, instead of 32 reads per spin per
      // waiting block; the doubling bounds the number of reads while keeping the first retries quick.
      if constexpr (T::kMaxSleepNs > 0) {
        __nanosleep(sleep_ns);
        sleep_ns = sleep_ns * 2 < static_cast<unsigned>(T::kMaxSleepNs) ? sleep_ns * 2 : T::kMaxSleepNs;
      }
      if (predecessor >= 0) word = read_status(status, predecessor);
    }
    const unsigned inclusive_lanes = __ballot_sync(kFullMask, status_flag(word) == kInclusive);
    // Highest lane with a P = the nearest such predecessor; lanes below it are already inside its value.
    const int nearest = inclusive_lanes != 0 ? kWarpSize - 1 - __clz(static_cast<int>(inclusive_lanes)) : 0;
    exclusive_prefix += tut::warp::reduce_warp(lane >= nearest ? status_value(word) : 0u);
    if (inclusive_lanes != 0) return exclusive_prefix;
  }
}

// ---- One tile's block-wide steps (chapter 16) ---------------------------------------------------------------
// Block-wide shared memory of those steps.
template <class T>
struct TileScanShared {
  std::uint32_t warp_aggregates[T::kWarps];
  std::uint32_t exclusive_prefix;
};

struct TileOffsets {
  std::uint32_t tile_aggregate;  // the sum of the whole tile
  std::uint32_t segment_offset;  // the sum of the tile's elements before this warp's segment
};

// Given each warp's segment sum, the warp's offset in the tile and the tile's sum (one barrier).
template <class T>
__device__ __forceinline__ TileOffsets scan_warp_sums(std::uint32_t segment_sum, TileScanShared<T>& shared) {
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  if (lane == 0) shared.warp_aggregates[warp] = segment_sum;
  __syncthreads();
  // Every warp scans the (at most 32) warp sums itself: its own offset in the tile and the tile's sum, with
  // no second barrier.
  const std::uint32_t warp_sum = lane < T::kWarps ? shared.warp_aggregates[lane] : 0u;
  const std::uint32_t warp_sums_scanned = tut::warp::scan_warp(warp_sum);
  return {__shfl_sync(kFullMask, warp_sums_scanned, T::kWarps - 1),
          __shfl_sync(kFullMask, warp_sums_scanned - warp_sum, warp)};
}

// Warp 0 publishes the aggregate at once, looks back, publishes the inclusive prefix; returns the sum of
// everything before the tile to every thread. Contains one barrier (the other warps wait at it). carry_in
// (chapter 17) is added to tile 0's prefix, and so to every output (a scan that continues an earlier one);
// 0 for a plain scan, which the compiler folds away.
template <class T>
__device__ __forceinline__ std::uint32_t tile_exclusive_prefix(StatusWord* status, std::int64_t tile,
                                                               std::uint32_t tile_aggregate, std::uint32_t carry_in,
                                                               TileScanShared<T>& shared) {
  const int lane = threadIdx.x % kWarpSize;
  if (threadIdx.x / kWarpSize == 0) {
    std::uint32_t exclusive_prefix = carry_in;
    if (tile == 0) {
      if (lane == 0) publish_status(status, tile, kInclusive, carry_in + tile_aggregate);
    } else {
      if (lane == 0) publish_status(status, tile, kAggregate, tile_aggregate);
      exclusive_prefix = look_back<T>(status, tile);
      if (lane == 0) publish_status(status, tile, kInclusive, exclusive_prefix + tile_aggregate);
    }
    if (lane == 0) shared.exclusive_prefix = exclusive_prefix;
  }
  __syncthreads();
  return shared.exclusive_prefix;
}

}  // namespace tut::lookback
