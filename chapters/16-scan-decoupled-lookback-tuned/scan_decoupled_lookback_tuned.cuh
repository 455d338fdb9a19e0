// Chapter 16: the decoupled look-back scan of chapter 15, tuned to move bytes at copy speed.
// Same algorithm (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back",
// NVIDIA 2016); what changes is how much each block keeps in flight and how little it waits:
//   - ItemsPerThread int32 per thread (a multiple of 4), loaded and stored as int4 vectors, each warp
//     instruction moving 512 contiguous bytes; no shared-memory staging of the data at all;
//   - the block and tile shape are template parameters (Tuning), so several can be measured side by side;
//   - relaxed status words (the value travels inside the word, so no release/acquire fences are needed);
//   - the look-back backs off with __nanosleep instead of hammering L2 while predecessors are not ready.
//
//   init_tile_status_kernel          reset the tile counter and every tile's status word to X
//   scan_tiles_kernel<Tuning>        <<<tiles, BlockThreads>>>  take a tile, load it as int4, scan it in
//                                    registers, look back (warp 0), publish, store as int4
// and, beyond the stage, two persistent kernels (<<<resident blocks, BlockThreads>>>, a loop over tiles) that
// start loading the next tile(s) before looking back on the current one:
//   scan_tiles_prefetch_kernel<Tuning>       the next tile's int4 loads into a second set of registers
//   scan_tiles_bulk_copy_kernel<BulkTuning>  sm_90+: cp.async.bulk (TMA) into a ring of tiles in shared memory
// and one more one-tile-per-block kernel whose tile lands in shared memory (cp.async or bulk copies) and,
// optionally, partly in registers; the fastest of the chapter:
//   scan_tiles_staged_kernel<StagedTuning>   <<<tiles, BlockThreads, staged bytes>>>
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"

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

// The stage's configuration: 256 threads x 16 int32 = 4096-element (16 KiB) tiles, 4 int4 loads in
// flight per thread. The other variants of main.cu measure the alternatives.
using DefaultTuning = Tuning<256, 16>;

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
// One Kogge-Stone step, predicated (chapter 12): shfl.sync.up yields the value of lane - d and the
// predicate lane >= d, which guards the add. add.u32 wraps on overflow like the CPU reference.
__device__ __forceinline__ std::uint32_t shfl_up_add(std::uint32_t val, int d) {
  std::uint32_t result;
  asm volatile(
      "{\n\t"
      ".reg .u32 left;\n\t"
      ".reg .pred has_left;\n\t"
      "shfl.sync.up.b32 left|has_left, %1, %2, 0, %3;\n\t"
      "@has_left add.u32 left, left, %1;\n\t"
      "mov.u32 %0, left;\n\t"
      "}"
      : "=r"(result)
      : "r"(val), "r"(d), "r"(kFullMask));
  return result;
}

// Inclusive scan of one value per lane across the warp, in registers.
__device__ __forceinline__ std::uint32_t scan_warp(std::uint32_t val) {
#pragma unroll
  for (int d = 1; d < kWarpSize; d *= 2) val = shfl_up_add(val, d);
  return val;
}

// Sum over the warp, returned to every lane (butterfly: after five xor-shuffles all lanes agree).
__device__ __forceinline__ std::uint32_t reduce_warp(std::uint32_t val) {
#pragma unroll
  for (int d = kWarpSize / 2; d > 0; d /= 2) val += __shfl_xor_sync(kFullMask, val, d);
  return val;
}

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

// ---- One tile's steps once its items are in registers (shared by every kernel below) -------------------------
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

// Given each warp's segment sum, the warp's offset in the tile and the tile's sum. Contains one barrier: after
// it, every thread of the block has finished reading the tile's input (a persistent kernel may refill it).
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

// Scans each warp's segment in registers, then the warps' sums (one barrier).
template <class T>
__device__ __forceinline__ TileOffsets scan_tile(std::uint32_t (&items)[T::kVectorsPerThread][kVectorItems],
                                                 TileScanShared<T>& shared) {
  return scan_warp_sums<T>(scan_segment<T>(items), shared);
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

// Loads a tile into registers from global memory: int4 for a full tile with aligned buffers, else element by
// element (the last tile, misaligned buffers, or a tile id past the end, which loads zeros).
template <class T>
__device__ __forceinline__ void load_tile(const std::uint32_t* in, std::int64_t n, bool vector_io, std::int64_t tile,
                                          std::uint32_t (&items)[T::kVectorsPerThread][kVectorItems]) {
  const std::int64_t tile_begin = tile * T::kTileItems;  // 64-bit: n may exceed 2^31
  const std::int64_t segment_begin = tile_begin + static_cast<std::int64_t>(threadIdx.x / kWarpSize) * T::kWarpItems;
  if (vector_io && tile_begin + T::kTileItems <= n) load_segment<T>(in + segment_begin, items);
  else load_segment_guarded<T>(in, segment_begin, n, items);
}

// Adds `base` (the tile's prefix plus the segment's offset) and stores, the way load_tile loaded.
template <class T>
__device__ __forceinline__ void add_and_store_tile(std::uint32_t* out, std::int64_t n, bool vector_io,
                                                   std::int64_t tile, std::uint32_t base,
                                                   std::uint32_t (&items)[T::kVectorsPerThread][kVectorItems]) {
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r)
#pragma unroll
    for (int c = 0; c < kVectorItems; ++c) items[r][c] += base;
  const std::int64_t tile_begin = tile * T::kTileItems;
  const std::int64_t segment_begin = tile_begin + static_cast<std::int64_t>(threadIdx.x / kWarpSize) * T::kWarpItems;
  if (vector_io && tile_begin + T::kTileItems <= n) store_segment<T>(out + segment_begin, items);
  else store_segment_guarded<T>(out, segment_begin, n, items);
}

// ---- Programmatic dependent launch (sm_90+) ----------------------------------------------------------------
// Normally a kernel starts only after the one before it in the stream has finished and the launch has gone
// through the front end, a gap in which no byte moves (at 2^28 it turned out not to matter; see the README).
// Launched with the attribute cudaLaunchAttributeProgrammaticStreamSerialization, the scan kernel may start as
// soon as every block of the kernel before it (the status reset) has signalled launch_dependents; whatever it
// does before griddepcontrol.wait must not touch what that kernel writes. Both are no-ops on a kernel
// launched normally and below sm_90.
enum class Launch {
  kStreamOrdered,  // <<<...>>>: starts after the status reset has finished
  kProgrammatic,   // cudaLaunchKernelEx with programmatic stream serialization: overlaps the status reset
};

// Lets the next kernel in the stream start (if it was launched programmatically) before this one finishes.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
// Waits until the kernel before this one in the stream has finished and its writes are visible.
__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// ---- Kernels ----------------------------------------------------------------------------------------------
// Resets the counter and every status word to X before each scan (as in chapter 15). It lets a
// programmatically launched scan start at once: the scan waits for it to finish before using the workspace.
__global__ void init_tile_status_kernel(unsigned* tile_counter, StatusWord* status, std::int64_t tiles) {
  allow_dependent_launch();
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

  // 1. The tile: from the counter (the order blocks start) unless the tuning asks for CUB's blockIdx.x.
  std::int64_t tile;
  if constexpr (T::kOrder == TileOrder::kAtomicCounter) {
    if (threadIdx.x == 0) tile_shared = atomicAdd(tile_counter, 1u);
    __syncthreads();
    tile = tile_shared;
  } else {
    tile = blockIdx.x;
  }

  // 2. Load: every thread issues all of its loads before using any of them.
  std::uint32_t items[T::kVectorsPerThread][kVectorItems];
  load_tile<T>(in, n, vector_io, tile, items);

  // 3-4. Scan each warp's segment in registers, then the warps' sums (one barrier).
  const TileOffsets offsets = scan_tile<T>(items, shared);

  // 5. Warp 0 looks back while the other warps wait (one barrier).
  const std::uint32_t exclusive_prefix = tile_exclusive_prefix<T>(status, tile, offsets.tile_aggregate, shared);

  // 6. Add the segment's offset in the tile and the tile's prefix, and store.
  add_and_store_tile<T>(out, n, vector_io, tile, exclusive_prefix + offsets.segment_offset, items);
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

// True when both buffers are 16-byte aligned (int4 and bulk copies need it). cudaMalloc returns 256-byte
// aligned buffers, so this holds for the harness; a caller's offset pointer gets the element-by-element
// path on every tile, which is correct, only slower.
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

// ---- Beyond the stage: persistent kernels that keep loads in flight during the look-back ------------------
// In scan_tiles_kernel a block has loads in flight only between its start and the end of step 2; while it
// scans, looks back and stores, its share of the SM's bytes in flight is zero. The two kernels below are
// persistent (a grid of as many blocks as fit on the GPU at once, each looping over tiles) and start the
// loads of the next tile(s) before the look-back of the current one.
//
// Tiles still come from the atomic counter, and each block claims its tiles in increasing order and
// finishes them in that order, so the scan stays deadlock-free: the smallest unfinished tile belongs to a
// running block whose earlier tiles are all finished, so that block is working on it, and everything that
// tile's look-back waits for is smaller, hence finished.

// How many blocks of `kernel` the current GPU holds at once (SMs x blocks per SM; 0 if not even one fits),
// with `dynamic_shared_bytes` of dynamic shared memory per block.
template <class Kernel>
inline unsigned resident_blocks(Kernel kernel, int block_threads, std::size_t dynamic_shared_bytes) {
  int device = 0;
  int sms = 0;
  int blocks_per_sm = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, block_threads,
                                                               dynamic_shared_bytes));
  return static_cast<unsigned>(sms * blocks_per_sm);
}

// A persistent kernel's launch settings, worked out once per device (the queries cost microseconds of host
// time, which a small scan would notice) and kept per kernel instantiation. Not thread-safe: one host thread
// drives the GPU in this tutorial.
struct PersistentPlan {
  int device = -1;
  unsigned resident_blocks = 0;  // 0: use the one-tile-per-block kernel instead
};

template <class Plan, class Compute>
inline const Plan& plan_for_current_device(Plan& plan, Compute compute) {
  int device = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  if (plan.device != device) {
    plan = compute();
    plan.device = device;
  }
  return plan;
}

inline unsigned grid_for(const PersistentPlan& plan, std::size_t tiles) {
  return static_cast<unsigned>(plan.resident_blocks < tiles ? plan.resident_blocks : tiles);
}

// ---- Persistent, prefetching into registers (any GPU) ----------------------------------------------------------
// Each thread holds two tiles' items: the tile it scans and the next one, whose loads are issued before the
// scan of the current tile starts. Twice the registers per thread, so fewer threads per SM.
//
//   iteration k:  issue loads of tile k+1 | scan tile k | look back (warp 0) | store tile k
//                 '---- in flight during all of this ---->
template <class T>
__global__ __launch_bounds__(T::kBlockThreads) void scan_tiles_prefetch_kernel(
    const std::uint32_t* in, std::uint32_t* out, std::int64_t n, bool vector_io, std::int64_t tiles,
    unsigned* tile_counter, StatusWord* status) {
  __shared__ TileScanShared<T> shared;
  __shared__ unsigned first_tiles_shared[2];
  __shared__ unsigned claimed_tile_shared;

  // The block's first two tiles.
  if (threadIdx.x == 0) {
    first_tiles_shared[0] = atomicAdd(tile_counter, 1u);
    first_tiles_shared[1] = atomicAdd(tile_counter, 1u);
  }
  __syncthreads();
  std::int64_t tile = first_tiles_shared[0];
  std::int64_t next_tile = first_tiles_shared[1];

  std::uint32_t items[T::kVectorsPerThread][kVectorItems];
  load_tile<T>(in, n, vector_io, tile, items);
  while (tile < tiles) {
    // Start loading the next tile now; nothing reads these registers until the next iteration.
    std::uint32_t next_items[T::kVectorsPerThread][kVectorItems];
    load_tile<T>(in, n, vector_io, next_tile, next_items);
    // Claim the tile after that; its id reaches the other threads through scan_tile's barrier.
    if (threadIdx.x == 0) claimed_tile_shared = atomicAdd(tile_counter, 1u);

    const TileOffsets offsets = scan_tile<T>(items, shared);
    const std::int64_t tile_after_next = claimed_tile_shared;  // thread 0 rewrites it after the next barrier
    const std::uint32_t exclusive_prefix = tile_exclusive_prefix<T>(status, tile, offsets.tile_aggregate, shared);
    add_and_store_tile<T>(out, n, vector_io, tile, exclusive_prefix + offsets.segment_offset, items);

#pragma unroll
    for (int r = 0; r < T::kVectorsPerThread; ++r)
#pragma unroll
      for (int c = 0; c < kVectorItems; ++c) items[r][c] = next_items[r][c];
    tile = next_tile;
    next_tile = tile_after_next;
  }
}

template <class T>
inline void inclusive_scan_prefetch(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                                    cudaStream_t stream) {
  if (n == 0) return;
  static PersistentPlan plan;
  plan_for_current_device(plan, [] {
    PersistentPlan p;
    p.resident_blocks = resident_blocks(scan_tiles_prefetch_kernel<T>, T::kBlockThreads, 0);
    return p;
  });
  if (plan.resident_blocks == 0) return inclusive_scan_with<T>(d_in, d_out, n, d_workspace, stream);
  const std::size_t tiles = tile_count<T>(n);
  launch_init_tile_status(workspace_tile_counter(d_workspace), workspace_status(d_workspace), tiles, stream);
  scan_tiles_prefetch_kernel<T><<<grid_for(plan, tiles), T::kBlockThreads, 0, stream>>>(
      reinterpret_cast<const std::uint32_t*>(d_in), reinterpret_cast<std::uint32_t*>(d_out),
      static_cast<std::int64_t>(n), vector_aligned(d_in, d_out), static_cast<std::int64_t>(tiles),
      workspace_tile_counter(d_workspace), workspace_status(d_workspace));
  TUT_CHECK_LAUNCH();
}

// ---- Persistent, bulk copies into a shared-memory ring (Hopper, sm_90+) ------------------------------------
// Registers cap the bytes a thread can have in flight; shared memory is a larger landing zone (up to 227 KiB
// per block on H100/H200, against 64K registers per SM shared by all threads). On sm_90 one instruction,
// cp.async.bulk, asks the copy engine (TMA) to move a whole tile from global to shared memory, and an
// mbarrier counts the bytes as they land. Each block keeps a ring of Stages tile buffers: one thread, the
// producer (lane 0 of the last warp), keeps every free buffer loading the block's next tile, so up to Stages
// tiles per block are in flight while the block scans, looks back and stores, without a register held for
// them.
//
//   stage:      0          1          2          3
//             [tile k  ] [tile k+1] [tile k+2] [tile k+3]     k: being scanned; k+1..k+3: landing
//   iteration k: wait for stage k%S -> read it into registers -> barrier -> the producer refills stage k%S
//                with the block's next tile while warp 0 looks back -> store from registers (int4 stores)
//
// The last, partial tile and misaligned buffers use the register path (bulk copies need 16-byte aligned
// addresses and sizes).
template <int BlockThreads, int ItemsPerThread, int Stages>
struct BulkCopyTuning : Tuning<BlockThreads, ItemsPerThread> {
  using RegisterPath = Tuning<BlockThreads, ItemsPerThread>;  // same tiles: the fallback below sm_90
  static constexpr int kStages = Stages;
  static constexpr int kTileBytes = BlockThreads * ItemsPerThread * static_cast<int>(sizeof(std::uint32_t));
  static constexpr std::size_t kRingBytes = static_cast<std::size_t>(Stages) * kTileBytes;
  static_assert(Stages >= 2, "a ring of at least two tiles");
  static_assert(BlockThreads >= 2 * kWarpSize, "warp 0 looks back while another warp's lane 0 refills the ring");
  static_assert(kTileBytes % 16 == 0, "bulk copies move multiples of 16 bytes");
};

// The PTX of the bulk copies and mbarriers (PTX ISA 8.0, sm_90), one instruction per function.
__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbarrier_init(std::uint64_t* barrier, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(barrier)), "r"(arrivals) : "memory");
}
// Makes the initialised mbarriers visible to the copy engine (the async proxy) before it signals them.
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// The producer's arrival for one phase, announcing the bytes the copy engine will deliver before it completes.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* barrier, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(barrier)) : "memory");
}
// True once the phase with this parity has completed (acquire: the copied bytes are then visible).
__device__ __forceinline__ bool mbarrier_try_wait_parity(std::uint64_t* barrier, unsigned parity) {
  std::uint32_t done;
  asm volatile(
      "{\n\t"
      ".reg .pred complete;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, complete;\n\t"
      "}"
      : "=r"(done)
      : "r"(shared_address(barrier)), "r"(parity)
      : "memory");
  return done != 0;
}
// Copy `bytes` (a multiple of 16, both addresses 16-byte aligned) from global to shared memory; the
// mbarrier's transaction count drops by the bytes as they land.
__device__ __forceinline__ void bulk_copy_global_to_shared(void* destination, const void* source, unsigned bytes,
                                                           std::uint64_t* barrier) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          shared_address(destination)),
      "l"(source), "r"(bytes), "r"(shared_address(barrier))
      : "memory");
}

// The grid is persistent; `in` and `out` are 16-byte aligned (the host checks).
template <class T>
__global__ __launch_bounds__(T::kBlockThreads) void scan_tiles_bulk_copy_kernel(
    const std::uint32_t* in, std::uint32_t* out, std::int64_t n, std::int64_t tiles, unsigned* tile_counter,
    StatusWord* status) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // never launched: below sm_90 inclusive_scan_bulk_copy takes the register path
#else
  extern __shared__ uint4 ring_shared[];  // the Stages tile buffers (dynamic shared memory, 16-byte aligned)
  __shared__ std::uint64_t stage_loaded[T::kStages];  // one mbarrier per stage: its tile has landed
  __shared__ std::int64_t stage_tile[T::kStages];     // which tile each stage holds
  __shared__ TileScanShared<T> shared;
  auto* ring = reinterpret_cast<std::uint32_t*>(ring_shared);

  // The producer (lane 0 of the last warp, which has nothing to do while warp 0 looks back) claims the
  // block's next tile and starts its copy into `stage`. The last, partial tile (and ids past the end, which
  // tell the block to stop) copy nothing: the mbarrier completes on the arrival alone.
  const bool producer = threadIdx.x == T::kBlockThreads - kWarpSize;
  const auto fill_stage = [&](int stage) {
    const std::int64_t tile = atomicAdd(tile_counter, 1u);
    stage_tile[stage] = tile;
    if ((tile + 1) * T::kTileItems <= n) {
      mbarrier_arrive_expect_tx(&stage_loaded[stage], T::kTileBytes);
      bulk_copy_global_to_shared(ring + stage * T::kTileItems, in + tile * T::kTileItems, T::kTileBytes,
                                 &stage_loaded[stage]);
    } else {
      mbarrier_arrive(&stage_loaded[stage]);
    }
  };

  if (producer) {
    for (int stage = 0; stage < T::kStages; ++stage) mbarrier_init(&stage_loaded[stage], 1);
    fence_mbarrier_init();
    for (int stage = 0; stage < T::kStages; ++stage) fill_stage(stage);
  }
  __syncthreads();

  const int warp = threadIdx.x / kWarpSize;
  for (int iteration = 0;; ++iteration) {
    // Wait for this iteration's stage; its phase parity flips each time round the ring.
    const int stage = iteration % T::kStages;
    const unsigned parity = (iteration / T::kStages) % 2;
    while (!mbarrier_try_wait_parity(&stage_loaded[stage], parity)) {
    }
    const std::int64_t tile = stage_tile[stage];
    if (tile >= tiles) break;  // the same for every thread; no copy is left in flight (tiles come in order)

    // The same vector-striped layout as in global memory: each warp's int4 reads from shared memory cover 512
    // contiguous bytes, free of bank conflicts.
    std::uint32_t items[T::kVectorsPerThread][kVectorItems];
    const bool full_tile = (tile + 1) * T::kTileItems <= n;
    if (full_tile) load_segment<T>(ring + stage * T::kTileItems + warp * T::kWarpItems, items);
    else load_tile<T>(in, n, true, tile, items);

    const TileOffsets offsets = scan_tile<T>(items, shared);
    // After scan_tile's barrier every thread has its items in registers: the stage is free again, and the
    // producer refills it (its atomic and copy overlap warp 0's look-back).
    if (producer) fill_stage(stage);
    const std::uint32_t exclusive_prefix = tile_exclusive_prefix<T>(status, tile, offsets.tile_aggregate, shared);
    add_and_store_tile<T>(out, n, true, tile, exclusive_prefix + offsets.segment_offset, items);
  }
#endif
}

// Enqueues the scan with bulk copies where the code running on this GPU was compiled for sm_90 or newer
// (the kernel's PTX version says which __CUDA_ARCH__ it was built for), the ring fits in a block's shared
// memory and both buffers are 16-byte aligned; otherwise the register path with the same tiles.
template <class T>
inline void inclusive_scan_bulk_copy(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                                     cudaStream_t stream) {
  using RegisterPath = typename T::RegisterPath;
  static_assert(RegisterPath::kTileItems == T::kTileItems, "both paths share the workspace layout");
  if (n == 0) return;
  static PersistentPlan plan;
  plan_for_current_device(plan, [] {
    PersistentPlan p;
    cudaFuncAttributes attributes{};
    int device = 0;
    int max_shared_per_block = 0;
    TUT_CUDA_CHECK(cudaFuncGetAttributes(&attributes, scan_tiles_bulk_copy_kernel<T>));
    TUT_CUDA_CHECK(cudaGetDevice(&device));
    TUT_CUDA_CHECK(cudaDeviceGetAttribute(&max_shared_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (attributes.ptxVersion < 90 ||
        T::kRingBytes + attributes.sharedSizeBytes > static_cast<std::size_t>(max_shared_per_block))
      return p;  // resident_blocks = 0: the register path
    // Above 48 KiB of dynamic shared memory a kernel must opt in; and ask for the largest shared-memory
    // share of the L1/shared split, so that the occupancy the grid is sized for is the one the launch gets.
    TUT_CUDA_CHECK(cudaFuncSetAttribute(scan_tiles_bulk_copy_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(T::kRingBytes)));
    TUT_CUDA_CHECK(cudaFuncSetAttribute(scan_tiles_bulk_copy_kernel<T>,
                                        cudaFuncAttributePreferredSharedMemoryCarveout,
                                        static_cast<int>(cudaSharedmemCarveoutMaxShared)));
    p.resident_blocks = resident_blocks(scan_tiles_bulk_copy_kernel<T>, T::kBlockThreads, T::kRingBytes);
    return p;
  });
  if (plan.resident_blocks == 0 || !vector_aligned(d_in, d_out))
    return inclusive_scan_with<RegisterPath>(d_in, d_out, n, d_workspace, stream);

  const std::size_t tiles = tile_count<T>(n);
  launch_init_tile_status(workspace_tile_counter(d_workspace), workspace_status(d_workspace), tiles, stream);
  scan_tiles_bulk_copy_kernel<T><<<grid_for(plan, tiles), T::kBlockThreads, T::kRingBytes, stream>>>(
      reinterpret_cast<const std::uint32_t*>(d_in), reinterpret_cast<std::uint32_t*>(d_out),
      static_cast<std::int64_t>(n), static_cast<std::int64_t>(tiles), workspace_tile_counter(d_workspace),
      workspace_status(d_workspace));
  TUT_CHECK_LAUNCH();
}

// ---- Beyond the stage: one tile per block, landing in shared memory ------------------------------------------
// In scan_tiles_kernel the loads land in registers, and registers are what limits the blocks per SM (64 per
// thread at 256 x 32: 4 blocks, 128 KiB of loads per SM at most). Here the tile lands in shared memory (up to
// 227 KiB per SM), and the scan reads it twice in small pieces, so a thread holds 2 registers per vector
// instead of 4 and more blocks fit:
//   pass 1  each vector's sum; the row scans give each vector its offset in the warp's segment (registers);
//           the warps' sums, the look-back (as in scan_tiles_kernel)
//   pass 2  each vector again from shared memory: scan its 4 elements, add its offset, int4 store to global
// Each thread reads back only the vectors it staged itself, so no barrier guards the tile's data.
// Two ways to fill the tile:
//   kCpAsync   sm_80+: each thread issues cp.async of its own 16-byte vectors (LDGSTS: global to shared
//              without a register), then waits for its own copies;
//   kBulkCopy  sm_90+: the thread that claims the tile issues one cp.async.bulk (TMA) per warp segment at
//              once; an mbarrier completes when all their bytes have landed.
// Below those architectures the same code stages through registers (plain loads and shared stores).
// RegisterItems > 0 adds rows that land in registers as in scan_tiles_kernel (a hybrid): the shared-memory
// landing zone is full at about 216 KiB per SM, the registers' is not.
// Offsets::kRecomputed keeps no per-vector offset from pass 1 to pass 2 (pass 1 only sums, pass 2 scans the
// rows again): 2 fewer registers per vector, 5 more shuffles per row. MinBlocksPerSM > 0 asks the compiler to
// fit that many blocks per SM in registers (__launch_bounds__); 0 leaves the register budget to it.
enum class Staging { kCpAsync, kBulkCopy };
enum class Offsets { kKept, kRecomputed };

template <int BlockThreads, int StagedItems, Staging Stage, TileOrder Order = TileOrder::kAtomicCounter,
          int RegisterItems = 0, Offsets Offset = Offsets::kKept, int MinBlocksPerSM = 0,
          Launch LaunchMode = Launch::kStreamOrdered>
struct StagedTuning : Tuning<BlockThreads, StagedItems + RegisterItems, 64, 512, CacheHint::kDefault, Order> {
  static constexpr Staging kStaging = Stage;
  static constexpr Offsets kOffsets = Offset;
  static constexpr int kMinBlocksPerSM = MinBlocksPerSM;
  static constexpr Launch kLaunch = LaunchMode;
  static constexpr int kStagedVectors = StagedItems / kVectorItems;      // rows 0 .. kStagedVectors-1: shared
  static constexpr int kRegisterVectors = RegisterItems / kVectorItems;  // the rows after them: registers
  static constexpr int kWarpStagedBytes = kWarpSize * StagedItems * static_cast<int>(sizeof(std::uint32_t));
  static constexpr int kStagedBytes = BlockThreads / kWarpSize * kWarpStagedBytes;  // dynamic shared memory
  static_assert(StagedItems > 0 && StagedItems % kVectorItems == 0 && RegisterItems % kVectorItems == 0,
                "whole int4 vectors in shared memory (at least one) and in registers");
  static_assert(kWarpStagedBytes % 16 == 0, "bulk copies move multiples of 16 bytes");
  static_assert(kStagedBytes <= 64 * 1024, "a tile that leaves room for more than one block per SM");
};

// A staged tuning with another look-back backoff (first and longest sleep): a waiting block holds its landing
// zone idle, so how soon it notices its predecessors is worth measuring on its own.
template <class Staged, int FirstSleepNs, int MaxSleepNs>
struct WithBackoff : Staged {
  static constexpr int kFirstSleepNs = FirstSleepNs;
  static constexpr int kMaxSleepNs = MaxSleepNs;
  static_assert(FirstSleepNs > 0 && FirstSleepNs <= MaxSleepNs, "a sensible backoff");
};

// One 16-byte global-to-shared copy that does not pass through registers (cp.async.cg: cached in L2 only).
__device__ __forceinline__ void copy_vector_async(uint4* destination, const uint4* source) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(shared_address(destination)), "l"(source)
               : "memory");
#else
  *destination = *source;
#endif
}
// Waits until all of this thread's cp.async copies have landed (they are then visible to this thread).
__device__ __forceinline__ void wait_own_async_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

// Pass 1: the offset of each of this thread's vectors in the warp's segment (the sum of the segment's
// elements before it); vector_at(r) is the thread's vector of row r. Returns the segment's sum to every lane.
template <class T, class VectorAt>
__device__ __forceinline__ std::uint32_t segment_vector_offsets(VectorAt vector_at,
                                                                std::uint32_t (&vector_offset)[T::kVectorsPerThread]) {
  std::uint32_t row_scan[T::kVectorsPerThread];
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r) {
    const uint4 v = vector_at(r);
    vector_offset[r] = v.x + v.y + v.z + v.w;  // the vector's sum, for now
    row_scan[r] = vector_offset[r];
  }
#pragma unroll
  for (int d = 1; d < kWarpSize; d *= 2)
#pragma unroll
    for (int r = 0; r < T::kVectorsPerThread; ++r) row_scan[r] = shfl_up_add(row_scan[r], d);
  std::uint32_t rows_before = 0;
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r) {
    vector_offset[r] = rows_before + row_scan[r] - vector_offset[r];  // inclusive row scan minus own sum
    rows_before += __shfl_sync(kFullMask, row_scan[r], kWarpSize - 1);
  }
  return rows_before;
}

// One vector, element by element with zeros past n (the last tile, misaligned buffers).
__device__ __forceinline__ uint4 load_vector_guarded(const std::uint32_t* in, std::int64_t first, std::int64_t n) {
  std::uint32_t e[kVectorItems];
#pragma unroll
  for (int c = 0; c < kVectorItems; ++c) e[c] = first + c < n ? in[first + c] : 0u;
  return make_uint4(e[0], e[1], e[2], e[3]);
}

// The blocks per SM that __launch_bounds__ asks registers for (0: none, the compiler's own budget): sm_75 holds
// only 1024 threads per SM, where the shapes tuned for 9 blocks of 128 cannot fit, so none there.
__host__ __device__ constexpr int staged_min_blocks_per_sm(int wanted) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  return static_cast<void>(wanted), 0;
#else
  return wanted;
#endif
}

template <class T>
__global__ __launch_bounds__(T::kBlockThreads, staged_min_blocks_per_sm(T::kMinBlocksPerSM)) void
scan_tiles_staged_kernel(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, bool vector_io,
                         unsigned* tile_counter, StatusWord* status) {
  extern __shared__ uint4 staged_vectors[];  // every warp's staged rows (dynamic shared memory)
  __shared__ std::uint64_t tile_landed;     // kBulkCopy: completes when the bulk copies' bytes have all landed
  __shared__ TileScanShared<T> shared;
  __shared__ unsigned tile_shared;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr bool kBulk = T::kStaging == Staging::kBulkCopy;
#else
  constexpr bool kBulk = false;
#endif
  constexpr int kStagedRowsPerWarp = kWarpSize * T::kStagedVectors;  // vectors
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const auto is_full = [&](std::int64_t tile) { return vector_io && (tile + 1) * T::kTileItems <= n; };
  // Launch::kProgrammatic: the counter and the status words belong to the status reset until it has finished.
  // With the counter the wait comes first; with tile = blockIdx.x only the look-back (step 3) needs them, so
  // the tile's loads are already in flight while the reset finishes.
  constexpr bool kProgrammatic = T::kLaunch == Launch::kProgrammatic;
  if constexpr (kProgrammatic && T::kOrder == TileOrder::kAtomicCounter) wait_for_previous_kernel();

  // 1. The tile; with bulk copies, the thread that learns it starts every warp segment's copy at once.
  if (threadIdx.x == 0) {
    const std::int64_t tile = T::kOrder == TileOrder::kAtomicCounter ? atomicAdd(tile_counter, 1u) : blockIdx.x;
    tile_shared = static_cast<unsigned>(tile);
    if constexpr (kBulk) {
      if (is_full(tile)) {
        mbarrier_init(&tile_landed, 1);
        fence_mbarrier_init();
        mbarrier_arrive_expect_tx(&tile_landed, T::kStagedBytes);
        for (int w = 0; w < T::kWarps; ++w)
          bulk_copy_global_to_shared(staged_vectors + w * kStagedRowsPerWarp,
                                     in + tile * T::kTileItems + w * T::kWarpItems, T::kWarpStagedBytes,
                                     &tile_landed);
      }
    }
  }
  __syncthreads();
  const std::int64_t tile = tile_shared;
  const std::int64_t segment_begin = tile * T::kTileItems + static_cast<std::int64_t>(warp) * T::kWarpItems;
  uint4* staged = staged_vectors + warp * kStagedRowsPerWarp;  // row r, this lane: staged[r * 32 + lane]
  uint4 held[T::kRegisterVectors > 0 ? T::kRegisterVectors : 1];  // row kStagedVectors + r, this lane

  // 2. Stage the warp's segment in the layout of load_segment: row r is 32 vectors, lane l holds vector
  //    r * 32 + l. The register rows' loads are issued before the wait, so both are in flight together.
  const bool full = is_full(tile);
  if (full) {
    const uint4* source = reinterpret_cast<const uint4*>(in + segment_begin) + lane;
    if constexpr (!kBulk) {
#pragma unroll
      for (int r = 0; r < T::kStagedVectors; ++r)
        copy_vector_async(staged + r * kWarpSize + lane, source + r * kWarpSize);
    }
#pragma unroll
    for (int r = 0; r < T::kRegisterVectors; ++r) held[r] = source[(T::kStagedVectors + r) * kWarpSize];
    if constexpr (kBulk) {
      while (!mbarrier_try_wait_parity(&tile_landed, 0)) {
      }
    } else {
      wait_own_async_copies();
    }
  } else {  // the last tile or misaligned buffers: element by element, zeros past the end
#pragma unroll
    for (int r = 0; r < T::kVectorsPerThread; ++r) {
      const std::int64_t first = segment_begin + static_cast<std::int64_t>(r * kWarpSize + lane) * kVectorItems;
      const uint4 v = load_vector_guarded(in, first, n);
      if (r < T::kStagedVectors) staged[r * kWarpSize + lane] = v;
      else held[r - T::kStagedVectors] = v;
    }
  }
  const auto vector_at = [&](int r) {
    return r < T::kStagedVectors ? staged[r * kWarpSize + lane] : held[r - T::kStagedVectors];
  };

  // 3. Pass 1, the warps' sums (one barrier), the look-back (one barrier).
  std::uint32_t vector_offset[T::kOffsets == Offsets::kKept ? T::kVectorsPerThread : 1];
  std::uint32_t segment_sum;
  if constexpr (T::kOffsets == Offsets::kKept) {
    segment_sum = segment_vector_offsets<T>(vector_at, vector_offset);
  } else {  // only the sum now; pass 2 scans the rows again
    segment_sum = 0;
#pragma unroll
    for (int r = 0; r < T::kVectorsPerThread; ++r) {
      const uint4 x = vector_at(r);
      segment_sum += x.x + x.y + x.z + x.w;
    }
    segment_sum = reduce_warp(segment_sum);
  }
  const TileOffsets offsets = scan_warp_sums<T>(segment_sum, shared);
  if constexpr (kProgrammatic && T::kOrder == TileOrder::kBlockIndex) wait_for_previous_kernel();
  const std::uint32_t exclusive_prefix = tile_exclusive_prefix<T>(status, tile, offsets.tile_aggregate, shared);
  const std::uint32_t base = exclusive_prefix + offsets.segment_offset;

  // 4. Pass 2: scan each vector, add everything before it, store.
  std::uint32_t rows_before = 0;  // kRecomputed: the sum of the segment's rows above row r
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r) {
    const int v = r * kWarpSize + lane;
    uint4 x = vector_at(r);
    if constexpr (T::kOffsets == Offsets::kKept) {
      x.x += base + vector_offset[r];
      x.y += x.x;
      x.z += x.y;
      x.w += x.z;
    } else {  // the vector's own scan first: its sum (x.w) feeds the row's scan
      x.y += x.x;
      x.z += x.y;
      x.w += x.z;
      const std::uint32_t row_inclusive = scan_warp(x.w);
      std::uint32_t before = rows_before + row_inclusive - x.w;  // the segment's elements before the vector
      rows_before += __shfl_sync(kFullMask, row_inclusive, kWarpSize - 1);
      before += base;
      x.x += before;
      x.y += before;
      x.z += before;
      x.w += before;
    }
    if (full) {
      reinterpret_cast<uint4*>(out + segment_begin)[v] = x;
    } else {
      const std::uint32_t scanned[kVectorItems] = {x.x, x.y, x.z, x.w};
#pragma unroll
      for (int c = 0; c < kVectorItems; ++c)
        if (segment_begin + v * kVectorItems + c < n) out[segment_begin + v * kVectorItems + c] = scanned[c];
    }
  }
}

// Asks once per device for the shared memory the staged kernel needs: opting in above 48 KiB per block, and
// the largest shared-memory share of the L1/shared split, so that smem does not cap the blocks per SM.
struct StagedPlan {
  int device = -1;
  bool programmatic_launch = false;  // sm_90+: the launch attribute of Launch::kProgrammatic applies
};

template <class T>
inline void inclusive_scan_staged(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                                  cudaStream_t stream) {
  if (n == 0) return;
  static StagedPlan plan;
  plan_for_current_device(plan, [] {
    TUT_CUDA_CHECK(cudaFuncSetAttribute(scan_tiles_staged_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        T::kStagedBytes));
    TUT_CUDA_CHECK(cudaFuncSetAttribute(scan_tiles_staged_kernel<T>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                        static_cast<int>(cudaSharedmemCarveoutMaxShared)));
    int device = 0, major = 0;
    TUT_CUDA_CHECK(cudaGetDevice(&device));
    TUT_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    StagedPlan p;
    p.programmatic_launch = major >= 9;
    return p;
  });
  const std::size_t tiles = tile_count<T>(n);
  launch_init_tile_status(workspace_tile_counter(d_workspace), workspace_status(d_workspace), tiles, stream);
  // Launch::kProgrammatic: the attribute lets the scan start before the status reset has finished (sm_90+).
  cudaLaunchAttribute programmatic;
  programmatic.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  programmatic.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(tiles));
  config.blockDim = dim3(T::kBlockThreads);
  config.dynamicSmemBytes = T::kStagedBytes;
  config.stream = stream;
  config.attrs = &programmatic;
  config.numAttrs = T::kLaunch == Launch::kProgrammatic && plan.programmatic_launch ? 1 : 0;
  TUT_CUDA_CHECK(cudaLaunchKernelEx(&config, scan_tiles_staged_kernel<T>,
                                    reinterpret_cast<const std::uint32_t*>(d_in),
                                    reinterpret_cast<std::uint32_t*>(d_out), static_cast<std::int64_t>(n),
                                    vector_aligned(d_in, d_out), workspace_tile_counter(d_workspace),
                                    workspace_status(d_workspace)));
}

// The stage's entry points, with DefaultTuning.
inline std::size_t workspace_bytes(std::size_t n) { return workspace_bytes_for<DefaultTuning>(n); }

inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  inclusive_scan_with<DefaultTuning>(d_in, d_out, n, d_workspace, stream);
}

}  // namespace scan_decoupled_lookback_tuned
