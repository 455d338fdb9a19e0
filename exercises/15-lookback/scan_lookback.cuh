// Exercise 15 (chapter 15-scan-decoupled-lookback, stretch): the look-back of a single-pass scan.
//
// The single-pass scan reads and writes every element once (2 int32 moved per element, like a
// copy). Each block takes the next tile (a counter hands tiles out in order of arrival), scans it,
// and needs the sum of all tiles before it: its exclusive prefix. Instead of waiting for the tile
// just before it to finish completely (a chain through all blocks), it publishes its own total at
// once and then LOOKS BACK over its predecessors' published words:
//
//   status[t] = (flag, value)   flag INVALID:   tile t has published nothing yet
//                               flag AGGREGATE: value = the sum of tile t alone
//                               flag PREFIX:    value = the sum of tiles 0..t (inclusive prefix)
//
//   tile:     ... t-5    t-4    t-3    t-2    t-1  | t (this block)
//   flag:         P      A      A      A      A    |
//   exclusive prefix of t = value(t-5) + value(t-4) + ... + value(t-1): walk back, adding
//   aggregates, until the first PREFIX; spin while a word is still INVALID.
//
// Then it publishes (PREFIX, exclusive + own total) for the tiles behind it, and adds `exclusive`
// to its scanned tile. Flag and value share one 64-bit word, written and read atomically, so a
// reader never sees a flag with the wrong value.
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"

namespace scan_lookback {

constexpr int kTile = 1024;  // threads per block = elements per tile
constexpr int kWarpSize = 32;
constexpr int kWarps = kTile / kWarpSize;
constexpr unsigned kFullMask = 0xffffffffu;

// ---- Tile status words: flag in the high 32 bits, value in the low 32 --------------------------
using Status = unsigned long long;
constexpr std::uint32_t kFlagInvalid = 0;
constexpr std::uint32_t kFlagAggregate = 1;
constexpr std::uint32_t kFlagPrefix = 2;

__host__ __device__ constexpr Status make_status(std::uint32_t flag, std::uint32_t value) {
  return (static_cast<Status>(flag) << 32) | value;
}
__host__ __device__ constexpr std::uint32_t status_flag(Status s) { return static_cast<std::uint32_t>(s >> 32); }
__host__ __device__ constexpr std::uint32_t status_value(Status s) { return static_cast<std::uint32_t>(s); }

// Device-scope atomic load and store of a status word (the block that writes a word and the block
// that reads it run on different SMs).
__device__ __forceinline__ Status load_status(Status* word) {
  return cuda::atomic_ref<Status, cuda::thread_scope_device>(*word).load(cuda::memory_order_acquire);
}
__device__ __forceinline__ void store_status(Status* word, Status s) {
  cuda::atomic_ref<Status, cuda::thread_scope_device>(*word).store(s, cuda::memory_order_release);
}

// ---- Tile scan -------------------------------------------------------------------------------------
__device__ __forceinline__ std::uint32_t scan_warp(std::uint32_t value) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const std::uint32_t below = __shfl_up_sync(kFullMask, value, offset);
    if (lane >= offset) value += below;  // uint32: wraps like the CPU reference
  }
  return value;
}

// Inclusive scan across the block's kTile threads; *tile_total gets the sum of all kTile values.
__device__ std::uint32_t scan_block(std::uint32_t value, std::uint32_t* tile_total) {
  __shared__ std::uint32_t warp_sums[kWarps];
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize, warp = static_cast<int>(threadIdx.x) / kWarpSize;
  value = scan_warp(value);
  if (lane == kWarpSize - 1) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) warp_sums[lane] = scan_warp(warp_sums[lane]);
  __syncthreads();
  if (warp > 0) value += warp_sums[warp - 1];
  *tile_total = warp_sums[kWarps - 1];
  return value;
}

// ---- The look-back -----------------------------------------------------------------------------
// Called by all 32 lanes of warp 0 of the block that scans tile `tile` (>= 1), after that block has
// published (AGGREGATE, its total). Returns the exclusive prefix of the tile: the sum of tiles
// 0 .. tile-1 (lane 0's return value is the one used).
//
// TODO: walk back over the predecessors' status words, tile - 1, tile - 2, ...:
//   - read each word with load_status (another SM writes it: a plain load may never see it change);
//   - while a word is INVALID, that tile has published nothing yet: read it again;
//   - an AGGREGATE adds its value (that tile alone) and the walk goes on;
//   - a PREFIX adds its value (all tiles up to it) and the walk stops.
// Tile 0 always publishes a PREFIX, so the walk ends. Sums wrap (uint32).
// One lane can do the walk alone (return the same value from every lane, or at least lane 0); the
// fast version lets the 32 lanes read 32 predecessors at once (__any_sync, __ballot_sync, __clz,
// a shuffle reduction) and moves the window back 32 tiles at a time.
__device__ std::uint32_t look_back(Status* status, std::int64_t tile) {
  (void)status, (void)tile;
  return 0;
}

// ---- The kernels -----------------------------------------------------------------------------------
// Before each scan: every status word INVALID, the tile counter 0 (the workspace arrives poisoned).
__global__ void init_kernel(Status* status, std::int64_t tiles, unsigned long long* tile_counter) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < tiles; t += stride)
    status[t] = make_status(kFlagInvalid, 0);
  if (blockIdx.x == 0 && threadIdx.x == 0) *tile_counter = 0;
}

// One block per tile. Tiles are taken from a counter in the order blocks start, so every tile a
// block looks back at belongs to a block that is already running: the spinning cannot deadlock.
__global__ void scan_kernel(const std::int32_t* in, std::int32_t* out, Status* status,
                            unsigned long long* tile_counter, std::size_t n) {
  __shared__ unsigned long long tile_shared;
  __shared__ std::uint32_t exclusive_shared;
  if (threadIdx.x == 0) tile_shared = atomicAdd(tile_counter, 1ull);
  __syncthreads();
  const auto tile = static_cast<std::int64_t>(tile_shared);
  const std::size_t i = static_cast<std::size_t>(tile) * kTile + threadIdx.x;

  std::uint32_t tile_total;
  const std::uint32_t scanned = scan_block(i < n ? static_cast<std::uint32_t>(in[i]) : 0u, &tile_total);

  std::uint32_t exclusive = 0;
  if (tile == 0) {
    if (threadIdx.x == 0) store_status(&status[0], make_status(kFlagPrefix, tile_total));
  } else {
    if (threadIdx.x == 0) store_status(&status[tile], make_status(kFlagAggregate, tile_total));
    if (threadIdx.x < kWarpSize) {
      const std::uint32_t found = look_back(status, tile);
      if (threadIdx.x == 0) {
        store_status(&status[tile], make_status(kFlagPrefix, found + tile_total));
        exclusive_shared = found;
      }
    }
    __syncthreads();
    exclusive = exclusive_shared;
  }
  if (i < n) out[i] = static_cast<std::int32_t>(scanned + exclusive);
}

// ---- Host side ---------------------------------------------------------------------------------------
inline std::size_t tile_count(std::size_t n) { return (n + kTile - 1) / kTile; }

// Scratch: the tile counter (256 bytes, to keep the status array aligned), then one word per tile.
inline std::size_t workspace_bytes(std::size_t n) { return 256 + tile_count(n) * sizeof(Status); }

inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t tiles = tile_count(n);
  auto* counter = static_cast<unsigned long long*>(d_workspace);
  auto* status = reinterpret_cast<Status*>(static_cast<unsigned char*>(d_workspace) + 256);
  const std::size_t init_blocks = (tiles + 255) / 256;
  init_kernel<<<static_cast<unsigned>(init_blocks < 1024 ? init_blocks : 1024), 256, 0, stream>>>(
      status, static_cast<std::int64_t>(tiles), counter);
  TUT_CHECK_LAUNCH();
  scan_kernel<<<static_cast<unsigned>(tiles), kTile, 0, stream>>>(d_in, d_out, status, counter, n);
  TUT_CHECK_LAUNCH();
}

}  // namespace scan_lookback
