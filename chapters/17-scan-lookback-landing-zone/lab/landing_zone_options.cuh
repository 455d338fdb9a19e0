// The options measured around chapter 17's design, which its lesson kernel leaves out: each changes one
// thing and none made the chapter's stage faster (the README's tables):
//   Staging::kBulkCopy     sm_90+: the thread that claims the tile starts one cp.async.bulk (TMA) per warp
//                          segment at once; an mbarrier completes when all the bytes have landed (cp.async
//                          below sm_90);
//   Offsets::kKept         pass 1 keeps each vector's offset in its warp's segment in a register for pass 2
//                          (the staged-* and hybrid-* steps that came before the rescan);
//   Launch::kProgrammatic  sm_90+: programmatic dependent launch, the scan may start while the status reset
//                          is still running.
// scan_tiles_options_kernel is the lesson's scan_tiles_kernel with these three switches; everything else
// (status words, look-back, warps' scan, workspace) is the lesson's, included from the chapter.
#pragma once

#include "../scan_lookback_landing_zone.cuh"
#include "bulk_copy.cuh"

namespace scan_lookback_landing_zone {

enum class Staging { kCpAsync, kBulkCopy };
enum class Offsets { kKept, kRecomputed };
enum class Launch { kStreamOrdered, kProgrammatic };

// The lesson's Tuning plus the three options (the defaults are the lesson's choices).
template <int BlockThreads, int StagedItems, int RegisterItems, int MinBlocksPerSM,
          Staging Stage = Staging::kCpAsync, TileOrder Order = TileOrder::kAtomicCounter,
          Offsets Offset = Offsets::kRecomputed, Launch LaunchMode = Launch::kStreamOrdered>
struct OptionsTuning : Tuning<BlockThreads, StagedItems, RegisterItems, MinBlocksPerSM, Order> {
  static constexpr Staging kStaging = Stage;
  static constexpr Offsets kOffsets = Offset;
  static constexpr Launch kLaunch = LaunchMode;  // (a warp's staged bytes, 128 per item, suit bulk copies)
};

// Bulk copies and their mbarriers (PTX ISA 8.0, sm_90+; called only where __CUDA_ARCH__ >= 900): in
// common/bulk_copy.cuh.
using tut::bulk_copy::bulk_copy_global_to_shared;
using tut::bulk_copy::fence_mbarrier_init;
using tut::bulk_copy::mbarrier_arrive_expect_tx;
using tut::bulk_copy::mbarrier_init;
using tut::bulk_copy::mbarrier_try_wait_parity;

// Offsets::kKept's pass 1: the offset of each of this thread's vectors in the warp's segment (the sum of the
// segment's elements before it); vector_at(r) is the thread's vector of row r. Returns the segment's sum.
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

// ---- Programmatic dependent launch (sm_90+) ----------------------------------------------------------------
// Launched with cudaLaunchAttributeProgrammaticStreamSerialization, the scan may start once every block of the
// status reset has executed launch_dependents; until griddepcontrol.wait returns (the reset has finished and
// its writes are visible) it must not touch the workspace. No-ops for a kernel launched normally.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// The status reset of chapter 17, which first lets a programmatically launched scan start.
__global__ void init_tile_status_early_launch_kernel(unsigned* tile_counter, StatusWord* status,
                                                     std::int64_t tiles) {
  allow_dependent_launch();
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = first; t < tiles; t += stride) status[t] = make_status(kInvalid, 0);
  if (first == 0) *tile_counter = 0;
}

// The stage's kernel (scan_tiles_kernel) with the three options. One tile per block; vector_io: both buffers
// are 16-byte aligned, so full tiles use cp.async / bulk copies and int4 stores.
template <class T>
__global__ __launch_bounds__(T::kBlockThreads, min_blocks_per_sm(T::kMinBlocksPerSM)) void
scan_tiles_options_kernel(
    const std::uint32_t* in, std::uint32_t* out, std::int64_t n, bool vector_io, unsigned* tile_counter,
    StatusWord* status) {
  extern __shared__ uint4 staged_vectors[];  // every warp's staged rows (dynamic shared memory)
  __shared__ std::uint64_t tile_landed;     // kBulkCopy: completes when the tile's bytes have all landed
  __shared__ TileScanShared<T> shared;
  __shared__ unsigned tile_shared;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr bool kBulk = T::kStaging == Staging::kBulkCopy;
#else
  constexpr bool kBulk = false;  // below sm_90 the bulk-copy shapes stage with cp.async
#endif
  constexpr int kStagedRowsPerWarp = kWarpSize * T::kStagedVectors;  // vectors
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const auto is_full = [&](std::int64_t tile) { return vector_io && (tile + 1) * T::kTileItems <= n; };
  // kProgrammatic: the counter and the status words belong to the status reset until it has finished. With
  // the counter the wait comes first; with blockIdx.x only the look-back needs them, so it waits there.
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
  const std::int64_t tile = tile_shared;  // 64-bit from here on: n may exceed 2^31
  const std::int64_t segment_begin = tile * T::kTileItems + static_cast<std::int64_t>(warp) * T::kWarpItems;
  uint4* staged = staged_vectors + warp * kStagedRowsPerWarp;     // row r, this lane: staged[r * 32 + lane]
  uint4 held[T::kRegisterVectors > 0 ? T::kRegisterVectors : 1];  // row kStagedVectors + r, this lane

  // 2. Land the warp's segment: the staged rows by copies that bypass registers, the register rows by
  //    ordinary int4 loads issued before the wait, so that both are in flight together.
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

  // 3. Pass 1: the segment's sum, then the warps' sums (one barrier).
  std::uint32_t vector_offset[T::kOffsets == Offsets::kKept ? T::kVectorsPerThread : 1];
  std::uint32_t segment_sum = 0;
  if constexpr (T::kOffsets == Offsets::kKept) {
    segment_sum = segment_vector_offsets<T>(vector_at, vector_offset);
  } else {
#pragma unroll
    for (int r = 0; r < T::kVectorsPerThread; ++r) {
      const uint4 x = vector_at(r);
      segment_sum += x.x + x.y + x.z + x.w;
    }
    segment_sum = reduce_warp(segment_sum);
  }
  const TileOffsets offsets = scan_warp_sums<T>(segment_sum, shared);

  // 4. Warp 0 looks back while the other warps wait (one barrier).
  if constexpr (kProgrammatic && T::kOrder == TileOrder::kBlockIndex) wait_for_previous_kernel();
  const std::uint32_t exclusive_prefix =
      tile_exclusive_prefix<T>(status, tile, offsets.tile_aggregate, 0u, shared);
  const std::uint32_t base = exclusive_prefix + offsets.segment_offset;

  // 5. Pass 2: scan each vector (again), add everything before it, store.
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
      x = make_uint4(x.x + before, x.y + before, x.z + before, x.w + before);
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

// What the launch of tuning T needs from its device: whether programmatic dependent launch is available there.
struct OptionsPlan {
  bool programmatic = false;
};
template <class T>
inline tut::PerDevice<OptionsPlan> options_plans;

// One-time set-up of tuning T (an OptionsTuning) on the current device, idempotent: the shared-memory
// attributes, and whether the device can launch programmatically (sm_90+).
template <class T>
inline void setup_inclusive_scan_options() {
  options_plans<T>.ensure([] {
    allow_staged_shared_memory(scan_tiles_options_kernel<T>, T::kStagedBytes);
    int major = 0;
    TUT_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, tut::current_device()));
    return OptionsPlan{T::kLaunch == Launch::kProgrammatic && major >= 9};
  });
}

// Enqueues the scan with tuning T (an OptionsTuning): a reset of the tile status, then one kernel, launched
// with programmatic stream serialization for Launch::kProgrammatic on sm_90+. Throws std::logic_error when
// setup_inclusive_scan_options<T>() has not run on the current device.
template <class T>
inline void inclusive_scan_options(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                                   cudaStream_t stream) {
  if (n == 0) return;
  const bool programmatic =
      options_plans<T>.require("scan_lookback_landing_zone (lab options)", "setup_inclusive_scan_options<Tuning>")
          .programmatic;
  const std::size_t tiles = tile_count<T>(n);
  init_tile_status_early_launch_kernel<<<tut::lookback::init_status_blocks(tiles), tut::lookback::kInitThreads, 0,
                                         stream>>>(
      workspace_tile_counter(d_workspace), workspace_status(d_workspace), static_cast<std::int64_t>(tiles));
  TUT_CHECK_LAUNCH();
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(tiles));
  config.blockDim = dim3(T::kBlockThreads);
  config.dynamicSmemBytes = T::kStagedBytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = programmatic ? 1 : 0;
  TUT_CUDA_CHECK(cudaLaunchKernelEx(&config, scan_tiles_options_kernel<T>,
                                    reinterpret_cast<const std::uint32_t*>(d_in),
                                    reinterpret_cast<std::uint32_t*>(d_out), static_cast<std::int64_t>(n),
                                    vector_aligned(d_in, d_out), workspace_tile_counter(d_workspace),
                                    workspace_status(d_workspace)));
}

}  // namespace scan_lookback_landing_zone
