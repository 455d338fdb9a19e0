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
//   init_tile_status_kernel    reset the tile counter and every tile's status word to X (common/decoupled_lookback.cuh)
//   scan_tiles_kernel<Tuning>  <<<tiles, BlockThreads, staged bytes>>>  take a tile, land it, sum it,
//                              look back (warp 0), publish, scan it again, store as int4
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "cp_async.cuh"
#include "decoupled_lookback.cuh"
#include "warp_scan.cuh"
#include "setup_registry.cuh"

namespace scan_lookback_landing_zone {

constexpr int kWarpSize = 32;
constexpr int kVectorItems = 4;  // int32 per int4
constexpr unsigned kFullMask = 0xffffffffu;

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

// ---- Status words, workspace, status reset: chapter 16's, in common/decoupled_lookback.cuh ------------------------
using tut::lookback::kAggregate;
using tut::lookback::kInclusive;
using tut::lookback::kInvalid;
using tut::lookback::launch_init_tile_status;
using tut::lookback::make_status;
using tut::lookback::StatusWord;
using tut::lookback::tile_count;
using tut::lookback::workspace_bytes_for;
using tut::lookback::workspace_status;
using tut::lookback::workspace_tile_counter;

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

// ---- The look-back and the tile's block-wide steps: chapter 16's, in common/decoupled_lookback.cuh --------------
// tile_exclusive_prefix<T> takes a carry_in, introduced here: it is added to tile 0's prefix, and so to every
// output (a scan that continues an earlier one; chapter 40).
using tut::lookback::scan_warp_sums;
using tut::lookback::tile_exclusive_prefix;
using tut::lookback::TileOffsets;
using tut::lookback::TileScanShared;

// ---- Kernels ----------------------------------------------------------------------------------------------
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
