// Chapter 16: the decoupled look-back scan of chapter 15, tuned to move bytes at copy speed.
// Same algorithm (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back",
// NVIDIA 2016); what changes is how much each block keeps in flight and how little it waits:
//   - ItemsPerThread int32 per thread (a multiple of 4), loaded and stored as int4 vectors, each warp
//     instruction moving 512 contiguous bytes; the tile lives in registers, never in shared memory;
//   - the block and tile shape are template parameters (Tuning), so several can be measured side by side;
//   - relaxed status words (the value travels inside the word, so no release/acquire fences are needed);
//   - the look-back backs off with __nanosleep instead of hammering L2 while predecessors are not ready.
//
//   init_tile_status_kernel    reset the tile counter and every tile's status word to X
//   scan_tiles_kernel<Tuning>  <<<tiles, BlockThreads>>>  take a tile, load it as int4, scan it in
//                              registers, look back (warp 0), publish, store as int4
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "warp_scan.cuh"

namespace scan_decoupled_lookback_tuned {

constexpr int kWarpSize = 32;
constexpr int kVectorItems = 4;  // int32 per int4
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kInitThreads = 256;     // threads per block of the status-reset kernel
constexpr int kMaxInitBlocks = 1024;  // it loops over the status words beyond this many blocks

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

// ---- Tile status words (as in chapter 15) ---------------------------------------------------------------
//   X (invalid)   not published yet                 -> wait
//   A (aggregate) value = this tile's sum            -> add, keep looking back
//   P (inclusive) value = sum up to this tile's end  -> add, stop
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

// Relaxed device-scope atomics (ld.relaxed.gpu / st.relaxed.gpu, served by L2): enough here, because a
// reader needs nothing but the word itself: flag and value arrive together in one single-copy-atomic
// 64-bit access, and per-location coherence keeps a word from ever going back from P to A or X.
// Chapter 15's release/acquire makes every publication wait for the thread's earlier writes, and orders
// nothing this scan reads.
using StatusRef = cuda::atomic_ref<StatusWord, cuda::thread_scope_device>;

__device__ __forceinline__ void publish_status(StatusWord* status, std::int64_t tile, std::uint32_t flag,
                                               std::uint32_t value) {
  StatusRef(status[tile]).store(make_status(flag, value), cuda::memory_order_relaxed);
}
__device__ __forceinline__ StatusWord read_status(StatusWord* status, std::int64_t tile) {
  return StatusRef(status[tile]).load(cuda::memory_order_relaxed);
}

// ---- Workspace: the tile counter, then one status word per tile ---------------------------------------
constexpr std::size_t kStatusOffset = 128;  // the counter keeps a 128-byte line of its own

template <class T>
inline std::size_t tile_count(std::size_t n) {
  return (n + T::kTileItems - 1) / T::kTileItems;
}

template <class T>
inline std::size_t workspace_bytes_for(std::size_t n) {
  return kStatusOffset + tile_count<T>(n) * sizeof(StatusWord);
}

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
// shfl_up_add and scan_warp (chapter 12's predicated Kogge-Stone scan) and reduce_warp (sum over the
// warp by xor-butterfly shuffles, returned to every lane) live in common/warp_scan.cuh.
using tut::warp::reduce_warp;
using tut::warp::scan_warp;
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

// ---- The look-back (chapter 15's, with a backoff) ------------------------------------------------------------
// The sum of all elements before `tile`, called by all 32 lanes of one warp: read the 32 nearest
// predecessors' words at once; while any is X, sleep (doubling) and read again; then the nearest P (ballot)
// and the aggregates after it, or all 32 aggregates and the next window back.
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
    const int nearest = inclusive_lanes != 0 ? kWarpSize - 1 - __clz(static_cast<int>(inclusive_lanes)) : 0;
    exclusive_prefix += reduce_warp(lane >= nearest ? status_value(word) : 0u);
    if (inclusive_lanes != 0) return exclusive_prefix;
  }
}

// ---- One tile's block-wide steps ----------------------------------------------------------------------------
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
  const std::uint32_t warp_sums_scanned = scan_warp(warp_sum);
  return {__shfl_sync(kFullMask, warp_sums_scanned, T::kWarps - 1),
          __shfl_sync(kFullMask, warp_sums_scanned - warp_sum, warp)};
}

// Warp 0 publishes the aggregate at once, looks back, publishes the inclusive prefix; returns the sum of
// everything before the tile to every thread. Contains one barrier (the other warps wait at it).
template <class T>
__device__ __forceinline__ std::uint32_t tile_exclusive_prefix(StatusWord* status, std::int64_t tile,
                                                               std::uint32_t tile_aggregate,
                                                               TileScanShared<T>& shared) {
  const int lane = threadIdx.x % kWarpSize;
  if (threadIdx.x / kWarpSize == 0) {
    std::uint32_t exclusive_prefix = 0;
    if (tile == 0) {
      if (lane == 0) publish_status(status, tile, kInclusive, tile_aggregate);
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

// ---- Kernels ----------------------------------------------------------------------------------------------
// Resets the counter and every status word to X before each scan (as in chapter 15).
__global__ void init_tile_status_kernel(unsigned* tile_counter, StatusWord* status, std::int64_t tiles) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = first; t < tiles; t += stride) status[t] = make_status(kInvalid, 0);
  if (first == 0) *tile_counter = 0;
}

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
  const std::uint32_t exclusive_prefix = tile_exclusive_prefix<T>(status, tile, offsets.tile_aggregate, shared);

  // 5. Add the segment's offset in the tile and the tile's prefix, and store.
  const std::uint32_t base = exclusive_prefix + offsets.segment_offset;
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r)
#pragma unroll
    for (int c = 0; c < kVectorItems; ++c) items[r][c] += base;
  if (full_tile) store_segment<T>(out + segment_begin, items);
  else store_segment_guarded<T>(out, segment_begin, n, items);
}

// Enqueues the reset of the tile counter and of the status words of `tiles` tiles.
inline void launch_init_tile_status(unsigned* tile_counter, StatusWord* status, std::size_t tiles,
                                    cudaStream_t stream) {
  const std::size_t init_blocks_needed = (tiles + kInitThreads - 1) / kInitThreads;
  const unsigned init_blocks = static_cast<unsigned>(
      init_blocks_needed < static_cast<std::size_t>(kMaxInitBlocks) ? init_blocks_needed : kMaxInitBlocks);
  init_tile_status_kernel<<<init_blocks, kInitThreads, 0, stream>>>(tile_counter, status,
                                                                    static_cast<std::int64_t>(tiles));
  TUT_CHECK_LAUNCH();
}

// The workspace of n elements, split into the tile counter and the status words.
inline unsigned* workspace_tile_counter(void* d_workspace) { return static_cast<unsigned*>(d_workspace); }
inline StatusWord* workspace_status(void* d_workspace) {
  return reinterpret_cast<StatusWord*>(static_cast<unsigned char*>(d_workspace) + kStatusOffset);
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
