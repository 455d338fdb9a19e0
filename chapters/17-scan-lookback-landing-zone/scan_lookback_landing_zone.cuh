// Chapter 17: the decoupled look-back scan of chapter 16, with the tile landing in shared memory.
// Same algorithm (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back",
// NVIDIA 2016) and the same one-tile-per-block kernel; what changes is where the loads land:
//   - in chapter 16 every loaded element holds a register until it is stored, so registers cap the blocks
//     per SM (4 of 256 x 32) and with them the bytes of loads an SM can have in flight;
//   - here most of each thread's vectors land in shared memory (cp.async: global to shared without a
//     register), a second landing zone of about the same size, and the rest in registers on top;
//   - pass 1 only sums; pass 2 reads the tile again and scans it row by row, so registers hold data, not
//     per-vector offsets, and 6 blocks of 192 threads fit per SM.
// The alternatives measured around this design (bulk copies, offsets kept from pass 1, programmatic
// dependent launch) run the general kernel of lab/landing_zone_options.cuh.
//
//   init_tile_status_kernel    reset the tile counter and every tile's status word to X
//   scan_tiles_kernel<Tuning>  <<<tiles, BlockThreads, staged bytes>>>  take a tile, land it, sum it,
//                              look back (warp 0), publish, scan it again, store as int4
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "cp_async.cuh"
#include "warp_scan.cuh"
#include "setup_registry.cuh"

namespace scan_lookback_landing_zone {

constexpr int kWarpSize = 32;
constexpr int kVectorItems = 4;  // int32 per int4
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kInitThreads = 256;     // threads per block of the status-reset kernel
constexpr int kMaxInitBlocks = 1024;  // it loops over the status words beyond this many blocks

enum class TileOrder {
  kAtomicCounter,  // tiles in the order blocks start (an atomic counter): deadlock-free by construction
  kBlockIndex,     // tile = blockIdx.x, as CUB does: relies on blocks being dispatched in index order
};

// One configuration. Each thread owns StagedItems int32 in shared memory and RegisterItems in registers
// (the tile is BlockThreads * (StagedItems + RegisterItems)); MinBlocksPerSM > 0 asks the compiler to fit that
// many blocks per SM in registers (__launch_bounds__). The look-back sleeps FirstSleepNs, then twice as long
// each time, up to MaxSleepNs, while a predecessor is not ready (MaxSleepNs = 0: spin without sleeping).
template <int BlockThreads, int StagedItems, int RegisterItems, int MinBlocksPerSM,
          TileOrder Order = TileOrder::kAtomicCounter, int FirstSleepNs = 64, int MaxSleepNs = 512>
struct Tuning {
  static constexpr int kBlockThreads = BlockThreads;
  static constexpr int kItemsPerThread = StagedItems + RegisterItems;
  static constexpr int kVectorsPerThread = kItemsPerThread / kVectorItems;
  static constexpr int kStagedVectors = StagedItems / kVectorItems;      // rows 0 .. kStagedVectors-1: shared
  static constexpr int kRegisterVectors = RegisterItems / kVectorItems;  // the rows after them: registers
  static constexpr int kWarps = BlockThreads / kWarpSize;
  static constexpr int kWarpItems = kWarpSize * kItemsPerThread;  // one warp's contiguous segment
  static constexpr int kTileItems = BlockThreads * kItemsPerThread;
  static constexpr int kWarpStagedBytes = kWarpSize * StagedItems * static_cast<int>(sizeof(std::uint32_t));
  static constexpr int kStagedBytes = BlockThreads / kWarpSize * kWarpStagedBytes;  // dynamic shared memory
  static constexpr int kMinBlocksPerSM = MinBlocksPerSM;
  static constexpr TileOrder kOrder = Order;
  static constexpr int kFirstSleepNs = FirstSleepNs;
  static constexpr int kMaxSleepNs = MaxSleepNs;
  static_assert(BlockThreads % kWarpSize == 0 && BlockThreads >= kWarpSize && BlockThreads <= 1024,
                "a block is 1 to 32 whole warps");
  static_assert(StagedItems > 0 && StagedItems % kVectorItems == 0 && RegisterItems % kVectorItems == 0,
                "whole int4 vectors in shared memory (at least one) and in registers");
  static_assert(kStagedBytes <= 64 * 1024, "a tile that leaves room for more than one block per SM");
  static_assert(MaxSleepNs == 0 || (FirstSleepNs > 0 && FirstSleepNs <= MaxSleepNs), "a sensible backoff");
};

// The stage's configuration: 192 threads x (48 int32 in shared memory + 32 in registers) = 15,360-element
// (60 KiB) tiles, 6 blocks per SM: 360 KiB of loads in flight per SM. main.cu's on-demand variants are the
// other configurations measured.
using DefaultTuning = Tuning<192, 48, 32, 6>;

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

// ---- Moving the data: the landing zone in shared memory ---------------------------------------------------
// Each warp owns a contiguous segment, vector-striped as in chapter 16 (row r is 32 int4 vectors, lane l
// holds vector r * 32 + l). Rows 0 .. kStagedVectors-1 land in the warp's part of shared memory in that
// layout (each thread reads back only the vectors it copied itself: no barrier guards them); the rows
// after them land in registers.
// shared_address, and the 16-byte cp.async copy and wait (chapter 26's cp.async, which does not pass
// through registers) live in common/cp_async.cuh; the landing zone waits for all of a thread's copies.
using tut::async_copy::shared_address;
__device__ __forceinline__ void copy_vector_async(uint4* destination, const uint4* source) {
  tut::async_copy::cp_async_16(destination, source);
}
__device__ __forceinline__ void wait_own_async_copies() { tut::async_copy::cp_async_wait_all(); }

// One vector, element by element with zeros past n (the last tile, misaligned buffers).
__device__ __forceinline__ uint4 load_vector_guarded(const std::uint32_t* in, std::int64_t first, std::int64_t n) {
  std::uint32_t e[kVectorItems];
#pragma unroll
  for (int c = 0; c < kVectorItems; ++c) e[c] = first + c < n ? in[first + c] : 0u;
  return make_uint4(e[0], e[1], e[2], e[3]);
}

// ---- Scanning in registers ---------------------------------------------------------------------------------
// shfl_up_add and scan_warp (chapter 12's predicated Kogge-Stone scan) and reduce_warp (sum over the
// warp by xor-butterfly shuffles, returned to every lane) live in common/warp_scan.cuh.
using tut::warp::reduce_warp;
using tut::warp::scan_warp;
using tut::warp::shfl_up_add;

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
// everything before the tile to every thread. Contains one barrier (the other warps wait at it). carry_in is
// added to tile 0's prefix, and so to every output (a scan that continues an earlier one).
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

// ---- Kernels ----------------------------------------------------------------------------------------------
// Resets the counter and every status word to X before each scan (as in chapter 15).
__global__ void init_tile_status_kernel(unsigned* tile_counter, StatusWord* status, std::int64_t tiles) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = first; t < tiles; t += stride) status[t] = make_status(kInvalid, 0);
  if (first == 0) *tile_counter = 0;
}

// The blocks per SM that __launch_bounds__ asks registers for: none below sm_80, whose SMs hold only 1024
// threads, where the shapes tuned for 9 blocks of 128 cannot fit.
__host__ __device__ constexpr int min_blocks_per_sm(int wanted) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  return static_cast<void>(wanted), 0;
#else
  return wanted;
#endif
}

// One tile per block; the grid has exactly as many blocks as tiles. vector_io: both buffers are 16-byte
// aligned, so full tiles use cp.async and int4 stores.
template <class T>
__global__ __launch_bounds__(T::kBlockThreads, min_blocks_per_sm(T::kMinBlocksPerSM)) void scan_tiles_kernel(
    const std::uint32_t* in, std::uint32_t* out, std::int64_t n, bool vector_io, std::uint32_t carry_in,
    unsigned* tile_counter, StatusWord* status) {
  extern __shared__ uint4 staged_vectors[];  // every warp's staged rows (dynamic shared memory)
  __shared__ TileScanShared<T> shared;
  __shared__ unsigned tile_shared;
  constexpr int kStagedRowsPerWarp = kWarpSize * T::kStagedVectors;  // vectors
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;

  // 1. The tile: from the counter (the order blocks start) unless the tuning asks for CUB's blockIdx.x.
  if (threadIdx.x == 0)
    tile_shared = T::kOrder == TileOrder::kAtomicCounter ? atomicAdd(tile_counter, 1u) : blockIdx.x;
  __syncthreads();
  const std::int64_t tile = tile_shared;  // 64-bit from here on: n may exceed 2^31
  const std::int64_t segment_begin = tile * T::kTileItems + static_cast<std::int64_t>(warp) * T::kWarpItems;
  uint4* staged = staged_vectors + warp * kStagedRowsPerWarp;     // row r, this lane: staged[r * 32 + lane]
  uint4 held[T::kRegisterVectors > 0 ? T::kRegisterVectors : 1];  // row kStagedVectors + r, this lane

  // 2. Land the warp's segment: the staged rows by copies that bypass registers, the register rows by
  //    ordinary int4 loads issued before the wait, so that both are in flight together.
  const bool full = vector_io && (tile + 1) * T::kTileItems <= n;
  if (full) {
    const uint4* source = reinterpret_cast<const uint4*>(in + segment_begin) + lane;
#pragma unroll
    for (int r = 0; r < T::kStagedVectors; ++r)
      copy_vector_async(staged + r * kWarpSize + lane, source + r * kWarpSize);
#pragma unroll
    for (int r = 0; r < T::kRegisterVectors; ++r) held[r] = source[(T::kStagedVectors + r) * kWarpSize];
    wait_own_async_copies();
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

  // 3. Pass 1: only the segment's sum (no per-vector offsets held for pass 2), then the warps' sums (one
  //    barrier).
  std::uint32_t segment_sum = 0;
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r) {
    const uint4 x = vector_at(r);
    segment_sum += x.x + x.y + x.z + x.w;
  }
  const TileOffsets offsets = scan_warp_sums<T>(reduce_warp(segment_sum), shared);

  // 4. Warp 0 looks back while the other warps wait (one barrier).
  const std::uint32_t exclusive_prefix =
      tile_exclusive_prefix<T>(status, tile, offsets.tile_aggregate, carry_in, shared);
  const std::uint32_t base = exclusive_prefix + offsets.segment_offset;

  // 5. Pass 2: read each vector again, scan it, scan the row across the warp (the vectors to its left), add
  //    the rows above, the segment's offset and the tile's prefix, store.
  std::uint32_t rows_before = 0;  // the sum of the segment's rows above row r
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r) {
    const int v = r * kWarpSize + lane;
    uint4 x = vector_at(r);
    x.y += x.x;
    x.z += x.y;
    x.w += x.z;
    const std::uint32_t row_inclusive = scan_warp(x.w);
    std::uint32_t before = rows_before + row_inclusive - x.w;  // the segment's elements before the vector
    rows_before += __shfl_sync(kFullMask, row_inclusive, kWarpSize - 1);
    before += base;
    x = make_uint4(x.x + before, x.y + before, x.z + before, x.w + before);
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

// True when both buffers are 16-byte aligned (int4 and 16-byte cp.async need it).
inline bool vector_aligned(const void* d_in, const void* d_out) {
  return ((reinterpret_cast<std::uintptr_t>(d_in) | reinterpret_cast<std::uintptr_t>(d_out)) % sizeof(uint4)) == 0;
}

// Opts `kernel` in to `staged_bytes` of dynamic shared memory (above 48 KiB a kernel must ask), and asks for
// the largest shared-memory share of the L1/shared split, so that shared memory does not cap the blocks per
// SM. Attributes of the current device.
template <class Kernel>
inline void allow_staged_shared_memory(Kernel kernel, int staged_bytes) {
  TUT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, staged_bytes));
  TUT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      static_cast<int>(cudaSharedmemCarveoutMaxShared)));
}

// The devices on which tuning T's kernel has its shared-memory attributes (one record per tuning).
template <class T>
inline tut::PerDevice<tut::SetupDone> shared_memory_allowed;

// One-time set-up of tuning T on the current device (idempotent, cheap on repeat): call it on every device
// before inclusive_scan_with<T> runs there. (Workload::setup calls it through the variant's setup.)
template <class T>
inline void setup_inclusive_scan_with() {
  shared_memory_allowed<T>.ensure([] {
    allow_staged_shared_memory(scan_tiles_kernel<T>, T::kStagedBytes);
    return tut::SetupDone{};
  });
}

// Enqueues the inclusive scan of n int32 with tuning T: a reset of the tile status, then one kernel.
// carry_in is added to every output (two's-complement wrap-around, like the sums). Throws std::logic_error
// when setup_inclusive_scan_with<T>() has not run on the current device (n = 0 enqueues nothing and needs none).
template <class T>
inline void inclusive_scan_with(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                                cudaStream_t stream, std::int32_t carry_in = 0) {
  if (n == 0) return;
  shared_memory_allowed<T>.require("scan_lookback_landing_zone", "setup_inclusive_scan_with<Tuning>");
  // int32_t and uint32_t may alias each other, so the kernel works on the caller's arrays as uint32.
  const auto* in = reinterpret_cast<const std::uint32_t*>(d_in);
  auto* out = reinterpret_cast<std::uint32_t*>(d_out);
  const std::size_t tiles = tile_count<T>(n);  // < 2^31 for any n that fits in a GPU's memory
  launch_init_tile_status(workspace_tile_counter(d_workspace), workspace_status(d_workspace), tiles, stream);
  scan_tiles_kernel<T><<<static_cast<unsigned>(tiles), T::kBlockThreads, T::kStagedBytes, stream>>>(
      in, out, static_cast<std::int64_t>(n), vector_aligned(d_in, d_out), static_cast<std::uint32_t>(carry_in),
      workspace_tile_counter(d_workspace), workspace_status(d_workspace));
  TUT_CHECK_LAUNCH();
}

// The stage's entry points, with DefaultTuning.
inline std::size_t workspace_bytes(std::size_t n) { return workspace_bytes_for<DefaultTuning>(n); }

// The stage's set-up on the current device: call it on every device before inclusive_scan runs there.
inline void setup_inclusive_scan() { setup_inclusive_scan_with<DefaultTuning>(); }

inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream, std::int32_t carry_in = 0) {
  inclusive_scan_with<DefaultTuning>(d_in, d_out, n, d_workspace, stream, carry_in);
}

}  // namespace scan_lookback_landing_zone
