// Chapter 17's lab: the two persistent designs that lost to one tile per block (kept runnable, with the
// measurements that rejected them, in this folder's README). Both keep loads in flight during the look-back
// by looping: a grid of as many blocks as fit on the GPU at once, each block taking tile after tile.
//   scan_tiles_prefetch_kernel<Tuning>       the next tile's int4 loads into a second set of registers
//   scan_tiles_bulk_copy_kernel<BulkTuning>  sm_90+: cp.async.bulk (TMA) into a ring of tiles in shared memory
// They reuse chapter 16's building blocks (the register tile, its scan, the look-back, the status words).
//
// Tiles still come from the atomic counter, and each block claims its tiles in increasing order and
// finishes them in that order, so the scan stays deadlock-free: the smallest unfinished tile belongs to a
// running block whose earlier tiles are all finished, so that block is working on it, and everything that
// tile's look-back waits for is smaller, hence finished.
#pragma once

#include "scan_decoupled_lookback_tuned.cuh"  // chapter 16 (the include path is set in meson.build)
#include "bulk_copy.cuh"
#include "setup_registry.cuh"

namespace scan_lookback_lab {

using namespace scan_decoupled_lookback_tuned;

// Scans each warp's segment in registers, then the warps' sums. Contains one barrier: after it, every thread
// of the block has finished reading the tile's input (the bulk-copy kernel refills its buffer then).
template <class T>
__device__ __forceinline__ TileOffsets scan_tile(std::uint32_t (&items)[T::kVectorsPerThread][kVectorItems],
                                                 TileScanShared<T>& shared) {
  return scan_warp_sums<T>(scan_segment<T>(items), shared);
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

// A persistent kernel's launch settings on one device, worked out by its setup_...() (the queries cost
// microseconds of host time, which a small scan would notice) and kept per device and kernel instantiation.
struct PersistentPlan {
  unsigned resident_blocks = 0;  // 0: use the one-tile-per-block kernel instead
};

constexpr const char* kStage = "scan_lookback_lab";

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
    const std::uint32_t exclusive_prefix = tile_exclusive_prefix<T>(status, tile, offsets.tile_aggregate, 0u, shared);
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
inline tut::PerDevice<PersistentPlan> prefetch_plans;

// One-time set-up of the prefetching scan with tuning T on the current device (idempotent): the grid of one
// resident wave.
template <class T>
inline void setup_inclusive_scan_prefetch() {
  prefetch_plans<T>.ensure(
      [] { return PersistentPlan{resident_blocks(scan_tiles_prefetch_kernel<T>, T::kBlockThreads, 0)}; });
}

// Throws std::logic_error when setup_inclusive_scan_prefetch<T>() has not run on the current device.
template <class T>
inline void inclusive_scan_prefetch(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                                    cudaStream_t stream) {
  if (n == 0) return;
  const PersistentPlan& plan = prefetch_plans<T>.require(kStage, "setup_inclusive_scan_prefetch<Tuning>");
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

// The bulk copies and mbarriers (PTX ISA 8.0, sm_90): in common/bulk_copy.cuh.
using tut::bulk_copy::bulk_copy_global_to_shared;
using tut::bulk_copy::fence_mbarrier_init;
using tut::bulk_copy::mbarrier_arrive;
using tut::bulk_copy::mbarrier_arrive_expect_tx;
using tut::bulk_copy::mbarrier_init;
using tut::bulk_copy::mbarrier_try_wait_parity;

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
    const std::uint32_t exclusive_prefix = tile_exclusive_prefix<T>(status, tile, offsets.tile_aggregate, 0u, shared);
    add_and_store_tile<T>(out, n, true, tile, exclusive_prefix + offsets.segment_offset, items);
  }
#endif
}

template <class T>
inline tut::PerDevice<PersistentPlan> bulk_copy_plans;

// One-time set-up of the bulk-copy scan with tuning T on the current device (idempotent): whether the ring
// can run here (code built for sm_90+, the ring fits in a block's shared memory), its shared-memory
// attributes and the grid of one resident wave. (The register path, chapter 16's kernel, needs no set-up.)
template <class T>
inline void setup_inclusive_scan_bulk_copy() {
  bulk_copy_plans<T>.ensure([] {
    cudaFuncAttributes attributes{};
    int max_shared_per_block = 0;
    TUT_CUDA_CHECK(cudaFuncGetAttributes(&attributes, scan_tiles_bulk_copy_kernel<T>));
    TUT_CUDA_CHECK(cudaDeviceGetAttribute(&max_shared_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                          tut::current_device()));
    if (attributes.ptxVersion < 90 ||
        T::kRingBytes + attributes.sharedSizeBytes > static_cast<std::size_t>(max_shared_per_block))
      return PersistentPlan{};  // resident_blocks = 0: the register path
    // Above 48 KiB of dynamic shared memory a kernel must opt in; and ask for the largest shared-memory
    // share of the L1/shared split, so that the occupancy the grid is sized for is the one the launch gets.
    TUT_CUDA_CHECK(cudaFuncSetAttribute(scan_tiles_bulk_copy_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(T::kRingBytes)));
    TUT_CUDA_CHECK(cudaFuncSetAttribute(scan_tiles_bulk_copy_kernel<T>,
                                        cudaFuncAttributePreferredSharedMemoryCarveout,
                                        static_cast<int>(cudaSharedmemCarveoutMaxShared)));
    return PersistentPlan{resident_blocks(scan_tiles_bulk_copy_kernel<T>, T::kBlockThreads, T::kRingBytes)};
  });
}

// Enqueues the scan with bulk copies where the code running on this GPU was compiled for sm_90 or newer
// (the kernel's PTX version says which __CUDA_ARCH__ it was built for), the ring fits in a block's shared
// memory and both buffers are 16-byte aligned; otherwise the register path with the same tiles. Throws
// std::logic_error when setup_inclusive_scan_bulk_copy<T>() has not run on the current device.
template <class T>
inline void inclusive_scan_bulk_copy(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                                     cudaStream_t stream) {
  using RegisterPath = typename T::RegisterPath;
  static_assert(RegisterPath::kTileItems == T::kTileItems, "both paths share the workspace layout");
  if (n == 0) return;
  const PersistentPlan& plan = bulk_copy_plans<T>.require(kStage, "setup_inclusive_scan_bulk_copy<Tuning>");
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

}  // namespace scan_lookback_lab
