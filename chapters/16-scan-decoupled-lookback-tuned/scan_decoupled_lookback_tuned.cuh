// Chapter 16: the decoupled look-back scan of chapter 15, tuned to move bytes at copy speed.
// Same algorithm (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back",
// NVIDIA 2016); what changes is how much each block keeps in flight and how little it waits:
//   - ItemsPerThread int32 per thread (a multiple of 4), loaded and stored as int4 vectors, each warp
//     instruction moving 512 contiguous bytes; the tile lives in registers, never in shared memory;
//   - the block and tile shape are template parameters (Tuning), so several can be measured side by side;
//   - relaxed status words (the value travels inside the word, so no release/acquire fences are needed);
//   - the look-back backs off with __nanosleep instead of hammering L2 while predecessors are not ready.
//
//   init_tile_status_kernel    reset the tile counter and every tile's status word to X (common/decoupled_lookback.cuh)
//   scan_tiles_kernel<Tuning>  <<<tiles, BlockThreads>>>  take a tile, load it as int4, scan it in
//                              registers, look back (warp 0), publish, store as int4
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "decoupled_lookback.cuh"
#include "warp_scan.cuh"

namespace scan_decoupled_lookback_tuned {

constexpr int kWarpSize = 32;
constexpr int kVectorItems = 4;  // int32 per int4
constexpr unsigned kFullMask = 0xffffffffu;

enum class CacheHint {
  kDefault,    // plain ld.global / st.global
  kStreaming,  // ld.global.cs / st.global.cs (__ldcs, __stcs): evict-first, the data is touched once
};
enum class TileOrder {
  kAtomicCounter,  // tiles in the order blocks start (an atomic counter): deadlock-free by construction
  kBlockIndex,     // tile = blockIdx.x, as CUB does: relies on blocks being dispatched in index order
};

// One configuration of the scan. The tile is BlockThreads * ItemsPerThread elements; the look-back sleeps
// FirstSleepNs, then twice as long each time, up to MaxSleepNs, while a predecessor is not ready
// (MaxSleepNs = 0: spin without sleeping).
template <int BlockThreads, int ItemsPerThread, int FirstSleepNs = 64, int MaxSleepNs = 512,
          CacheHint Cache = CacheHint::kDefault, TileOrder Order = TileOrder::kAtomicCounter>
struct Tuning {
  static constexpr int kBlockThreads = BlockThreads;
  static constexpr int kItemsPerThread = ItemsPerThread;
  static constexpr int kVectorsPerThread = ItemsPerThread / kVectorItems;
  static constexpr int kWarps = BlockThreads / kWarpSize;
  static constexpr int kWarpItems = kWarpSize * ItemsPerThread;  // one warp's contiguous segment
  static constexpr int kTileItems = BlockThreads * ItemsPerThread;
  static constexpr int kFirstSleepNs = FirstSleepNs;
  static constexpr int kMaxSleepNs = MaxSleepNs;
  static constexpr CacheHint kCache = Cache;
  static constexpr TileOrder kOrder = Order;
  static_assert(BlockThreads % kWarpSize == 0 && BlockThreads >= kWarpSize && BlockThreads <= 1024,
                "a block is 1 to 32 whole warps");
  static_assert(ItemsPerThread % kVectorItems == 0 && ItemsPerThread > 0, "whole int4 vectors per thread");
  static_assert(MaxSleepNs == 0 || (FirstSleepNs > 0 && FirstSleepNs <= MaxSleepNs), "a sensible backoff");
};

// The stage's configuration: 256 threads x 32 int32 = 8192-element (32 KiB) tiles, 8 int4 loads in flight
// per thread, 64 registers, 4 blocks per SM: the fastest shape measured (README). main.cu's on-demand
// variants are the other shapes.
using DefaultTuning = Tuning<256, 32>;

// ---- Status words, workspace, status reset: common/decoupled_lookback.cuh ----------------------------------------
// Chapter 15's status words (X, A, P with the value in one 64-bit word), published and read here with relaxed
// device-scope atomics (ld.relaxed.gpu / st.relaxed.gpu, served by L2): a reader needs nothing but the word
// itself, and per-location coherence keeps a word from ever going back from P to A or X; chapter 15's
// release/acquire makes every publication wait for the thread's earlier writes, and orders nothing this scan
// reads. Relaxed publication, the workspace helpers and the reset's launch start here; they now live in
// common/decoupled_lookback.cuh.
using tut::lookback::launch_init_tile_status;
using tut::lookback::StatusWord;
using tut::lookback::tile_count;
using tut::lookback::workspace_bytes_for;
using tut::lookback::workspace_status;
using tut::lookback::workspace_tile_counter;

// ---- Moving the data: each warp owns a contiguous segment of 32 * ItemsPerThread elements -----------------
// Vector-striped: row r of the segment is 32 int4 vectors, lane l holds vector r * 32 + l. A warp's load
// instruction therefore reads 512 contiguous bytes (fully coalesced) and each thread keeps
// kVectorsPerThread independent 16-byte loads in flight.
//
//   segment:  row 0: [l0 l0 l0 l0|l1 l1 l1 l1| ... |l31 x4]   elements   0..127
//             row 1: [l0 x4      |l1 x4      | ... |l31 x4]   elements 128..255   ...
template <CacheHint kCache>
__device__ __forceinline__ uint4 load_vector(const uint4* p) {
  if constexpr (kCache == CacheHint::kStreaming) return __ldcs(p);
  else return *p;
}
template <CacheHint kCache>
__device__ __forceinline__ void store_vector(uint4* p, uint4 v) {
  if constexpr (kCache == CacheHint::kStreaming) __stcs(p, v);
  else *p = v;
}

// A full tile with 16-byte aligned buffers: int4 loads. `segment` is the warp's first element.
template <class T>
__device__ __forceinline__ void load_segment(const std::uint32_t* segment,
                                             std::uint32_t (&items)[T::kVectorsPerThread][kVectorItems]) {
  const int lane = threadIdx.x % kWarpSize;
  const uint4* vectors = reinterpret_cast<const uint4*>(segment) + lane;
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r) {
    const uint4 v = load_vector<T::kCache>(vectors + r * kWarpSize);
    items[r][0] = v.x;
    items[r][1] = v.y;
    items[r][2] = v.z;
    items[r][3] = v.w;
  }
}

// The last tile (or buffers that are not 16-byte aligned): the same layout, element by element, with zeros
// past the end. `segment_begin` is the index of the warp's first element.
template <class T>
__device__ __forceinline__ void load_segment_guarded(const std::uint32_t* in, std::int64_t segment_begin,
                                                     std::int64_t n,
                                                     std::uint32_t (&items)[T::kVectorsPerThread][kVectorItems]) {
  const int lane = threadIdx.x % kWarpSize;
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r)
#pragma unroll
    for (int c = 0; c < kVectorItems; ++c) {
      const std::int64_t i = segment_begin + static_cast<std::int64_t>(r * kWarpSize + lane) * kVectorItems + c;
      items[r][c] = i < n ? in[i] : 0u;
    }
}

template <class T>
__device__ __forceinline__ void store_segment(std::uint32_t* segment,
                                              const std::uint32_t (&items)[T::kVectorsPerThread][kVectorItems]) {
  const int lane = threadIdx.x % kWarpSize;
  uint4* vectors = reinterpret_cast<uint4*>(segment) + lane;
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r)
    store_vector<T::kCache>(vectors + r * kWarpSize, make_uint4(items[r][0], items[r][1], items[r][2], items[r][3]));
}

template <class T>
__device__ __forceinline__ void store_segment_guarded(std::uint32_t* out, std::int64_t segment_begin,
                                                      std::int64_t n,
                                                      const std::uint32_t (&items)[T::kVectorsPerThread][kVectorItems]) {
  const int lane = threadIdx.x % kWarpSize;
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r)
#pragma unroll
    for (int c = 0; c < kVectorItems; ++c) {
      const std::int64_t i = segment_begin + static_cast<std::int64_t>(r * kWarpSize + lane) * kVectorItems + c;
      if (i < n) out[i] = items[r][c];
    }
}

// ---- Scanning in registers ---------------------------------------------------------------------------------
// shfl_up_add (one step of chapter 12's predicated Kogge-Stone scan) lives in common/warp_scan.cuh.
using tut::warp::shfl_up_add;

// Turns the warp's segment into its inclusive scan (relative to the segment start) and returns the
// segment's sum to every lane. Each thread scans its 4-element vectors serially; one warp scan per row
// gives each vector the sum of the vectors left of it in that row (the rows' scans are independent, so
// their shuffles are interleaved); the rows' totals (lane 31's inclusive value) carry from row to row.
template <class T>
__device__ __forceinline__ std::uint32_t scan_segment(std::uint32_t (&items)[T::kVectorsPerThread][kVectorItems]) {
  std::uint32_t row_scan[T::kVectorsPerThread];
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r) {
#pragma unroll
    for (int c = 1; c < kVectorItems; ++c) items[r][c] += items[r][c - 1];
    row_scan[r] = items[r][kVectorItems - 1];  // the vector's sum
  }
#pragma unroll
  for (int d = 1; d < kWarpSize; d *= 2)
#pragma unroll
    for (int r = 0; r < T::kVectorsPerThread; ++r) row_scan[r] = shfl_up_add(row_scan[r], d);
  std::uint32_t rows_before = 0;  // sum of the rows above row r
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r) {
    // Sum of everything in the segment before this thread's vector r: earlier rows, then the vectors to the
    // left in this row (row_scan is inclusive, so take this vector's own sum back out).
    const std::uint32_t before = rows_before + row_scan[r] - items[r][kVectorItems - 1];
#pragma unroll
    for (int c = 0; c < kVectorItems; ++c) items[r][c] += before;
    rows_before += __shfl_sync(kFullMask, row_scan[r], kWarpSize - 1);
  }
  return rows_before;
}

// ---- The look-back and the tile's block-wide steps: common/decoupled_lookback.cuh ------------------------------
// look_back<T> is chapter 15's window of 32 predecessors, with a backoff introduced here: while any word is X,
// __nanosleep T::kFirstSleepNs, doubling up to T::kMaxSleepNs, instead of 32 L2 reads per spin per waiting
// block. scan_warp_sums<T> gives each warp its offset in the tile and the tile's sum (one barrier: every warp
// scans the warp sums itself); tile_exclusive_prefix<T> is warp 0's publish A, look back, publish P.
using tut::lookback::tile_exclusive_prefix;
using tut::lookback::TileOffsets;
using tut::lookback::TileScanShared;
using tut::lookback::scan_warp_sums;

// ---- Kernels ----------------------------------------------------------------------------------------------
// One tile per block; the grid has exactly as many blocks as tiles. vector_io: both buffers are 16-byte
// aligned, so full tiles use int4 accesses.
template <class T>
__global__ __launch_bounds__(T::kBlockThreads) void scan_tiles_kernel(const std::uint32_t* in, std::uint32_t* out,
                                                                      std::int64_t n, bool vector_io,
                                                                      unsigned* tile_counter, StatusWord* status) {
  __shared__ TileScanShared<T> shared;
  __shared__ unsigned tile_shared;
  const int warp = threadIdx.x / kWarpSize;

  // 1. The tile: from the counter (the order blocks start) unless the tuning asks for CUB's blockIdx.x.
  std::int64_t tile;
  if constexpr (T::kOrder == TileOrder::kAtomicCounter) {
    if (threadIdx.x == 0) tile_shared = atomicAdd(tile_counter, 1u);
    __syncthreads();
    tile = tile_shared;
  } else {
    tile = blockIdx.x;
  }
  const std::int64_t tile_begin = tile * T::kTileItems;  // 64-bit: n may exceed 2^31
  const std::int64_t segment_begin = tile_begin + static_cast<std::int64_t>(warp) * T::kWarpItems;
  const bool full_tile = vector_io && tile_begin + T::kTileItems <= n;

  // 2. Load: every thread issues all of its loads before using any of them.
  std::uint32_t items[T::kVectorsPerThread][kVectorItems];
  if (full_tile) load_segment<T>(in + segment_begin, items);
  else load_segment_guarded<T>(in, segment_begin, n, items);

  // 3. Scan each warp's segment in registers, then the warps' sums (one barrier).
  const TileOffsets offsets = scan_warp_sums<T>(scan_segment<T>(items), shared);

  // 4. Warp 0 looks back while the other warps wait (one barrier).
  const std::uint32_t exclusive_prefix = tile_exclusive_prefix<T>(status, tile, offsets.tile_aggregate, 0u, shared);

  // 5. Add the segment's offset in the tile and the tile's prefix, and store.
  const std::uint32_t base = exclusive_prefix + offsets.segment_offset;
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r)
#pragma unroll
    for (int c = 0; c < kVectorItems; ++c) items[r][c] += base;
  if (full_tile) store_segment<T>(out + segment_begin, items);
  else store_segment_guarded<T>(out, segment_begin, n, items);
}

// True when both buffers are 16-byte aligned (int4 needs it). cudaMalloc returns 256-byte aligned buffers,
// so this holds for the harness; a caller's offset pointer gets the element-by-element path on every tile,
// which is correct, only slower.
inline bool vector_aligned(const void* d_in, const void* d_out) {
  return ((reinterpret_cast<std::uintptr_t>(d_in) | reinterpret_cast<std::uintptr_t>(d_out)) % sizeof(uint4)) == 0;
}

// Enqueues the inclusive scan of n int32 with tuning T: a reset of the tile status, then one kernel.
template <class T>
inline void inclusive_scan_with(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                                cudaStream_t stream) {
  if (n == 0) return;
  // int32_t and uint32_t may alias each other, so the kernel works on the caller's arrays as uint32.
  const auto* in = reinterpret_cast<const std::uint32_t*>(d_in);
  auto* out = reinterpret_cast<std::uint32_t*>(d_out);
  const std::size_t tiles = tile_count<T>(n);  // < 2^31 for any n that fits in a GPU's memory
  launch_init_tile_status(workspace_tile_counter(d_workspace), workspace_status(d_workspace), tiles, stream);
  scan_tiles_kernel<T><<<static_cast<unsigned>(tiles), T::kBlockThreads, 0, stream>>>(
      in, out, static_cast<std::int64_t>(n), vector_aligned(d_in, d_out), workspace_tile_counter(d_workspace),
      workspace_status(d_workspace));
  TUT_CHECK_LAUNCH();
}

// The stage's entry points, with DefaultTuning.
inline std::size_t workspace_bytes(std::size_t n) { return workspace_bytes_for<DefaultTuning>(n); }

inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  inclusive_scan_with<DefaultTuning>(d_in, d_out, n, d_workspace, stream);
}

}  // namespace scan_decoupled_lookback_tuned
