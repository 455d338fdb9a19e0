// Exercise 14 (chapter 14-scan-two-pass): the scan pass of the two-pass scan, with its running base.
//
// The two-pass ReduceThenScan cuts the input into exactly kParts = 1024 large parts, one per block,
// so that the part sums fit one block and no recursion is needed:
//
//   pass 1  reduce_parts:     block b sums its part (tile by tile)       -> part_sums[b]
//           scan_part_sums:   one block of 1024 threads scans part_sums  (inclusive, in place)
//   pass 2  scan_with_base:   block b scans its part tile by tile, carrying a running base:
//
//     part b:   | tile 0          | tile 1                  | tile 2                          | ...
//     base:       S(b-1)            S(b-1) + T0               S(b-1) + T0 + T1
//     (S(b-1) = part_sums[b - 1] after the scan, 0 for b = 0; Tk = the sum of tile k)
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"

namespace scan_two_pass {

constexpr int kParts = 1024;     // parts = blocks of both passes; part sums fit one block
constexpr int kTile = 1024;      // threads per block = elements per tile
constexpr int kWarpSize = 32;
constexpr int kWarps = kTile / kWarpSize;
constexpr unsigned kFullMask = 0xffffffffu;
static_assert(kParts == kTile, "scan_part_sums_kernel scans the part sums with one block of kTile threads");

// Elements per part: n / kParts rounded up to whole tiles (the last parts may be short or empty).
__host__ __device__ inline std::size_t part_size(std::size_t n) {
  const std::size_t per_part = (n + kParts - 1) / kParts;
  return (per_part + kTile - 1) / kTile * kTile;
}

// a + b with two's-complement wrap-around (signed overflow is undefined; unsigned wraps).
__device__ __forceinline__ std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

__device__ __forceinline__ std::int32_t scan_warp(std::int32_t value) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const std::int32_t below = __shfl_up_sync(kFullMask, value, offset);
    if (lane >= offset) value = wrap_add(value, below);
  }
  return value;
}

__device__ __forceinline__ std::int32_t reduce_warp(std::int32_t value) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
    value = wrap_add(value, __shfl_xor_sync(kFullMask, value, offset));
  return value;
}

// The inclusive scan across a block of kTile threads; *tile_total receives the sum of all kTile
// values, in every thread. Callable in a loop.
__device__ std::int32_t scan_block(std::int32_t value, std::int32_t* tile_total) {
  __shared__ std::int32_t warp_sums[kWarps];
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize, warp = static_cast<int>(threadIdx.x) / kWarpSize;
  value = scan_warp(value);
  if (lane == kWarpSize - 1) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) warp_sums[lane] = scan_warp(warp_sums[lane]);
  __syncthreads();
  if (warp > 0) value = wrap_add(value, warp_sums[warp - 1]);
  *tile_total = warp_sums[kWarps - 1];
  __syncthreads();  // warp_sums is free for the next tile
  return value;
}

// The sum over a block of kTile threads, in every thread. Callable in a loop.
__device__ std::int32_t reduce_block(std::int32_t value) {
  __shared__ std::int32_t warp_totals[kWarps];
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize, warp = static_cast<int>(threadIdx.x) / kWarpSize;
  value = reduce_warp(value);
  if (lane == 0) warp_totals[warp] = value;
  __syncthreads();
  const std::int32_t total = reduce_warp(warp_totals[lane]);
  __syncthreads();
  return total;
}

// Pass 1: block b sums part b. Each thread first adds up its own elements of every tile, so the
// block reduction runs once per part, not once per tile.
__global__ void reduce_parts_kernel(const std::int32_t* in, std::int32_t* part_sums, std::size_t n) {
  const std::size_t size = part_size(n);
  const std::size_t begin = blockIdx.x * size;
  const std::size_t end = begin + size < n ? begin + size : n;
  std::int32_t mine = 0;
  for (std::size_t i = begin + threadIdx.x; i < end; i += kTile) mine = wrap_add(mine, in[i]);
  const std::int32_t total = reduce_block(mine);
  if (threadIdx.x == 0) part_sums[blockIdx.x] = total;
}

// One block of kTile threads scans the kParts part sums in place.
__global__ void scan_part_sums_kernel(std::int32_t* part_sums) {
  std::int32_t unused_total;
  part_sums[threadIdx.x] = scan_block(part_sums[threadIdx.x], &unused_total);
}

// Pass 2: block b scans part b tile by tile, from the base of the parts before it.
__global__ void scan_with_base_kernel(const std::int32_t* in, std::int32_t* out, const std::int32_t* scanned_part_sums,
                                      std::size_t n) {
  const std::size_t size = part_size(n);
  const std::size_t begin = blockIdx.x * size;  // 64-bit: begin passes 2^31 for n > 2^31
  const std::size_t end = begin + size < n ? begin + size : n;
  std::int32_t running = blockIdx.x == 0 ? 0 : scanned_part_sums[blockIdx.x - 1];  // the parts before
  for (std::size_t tile_begin = begin; tile_begin < end; tile_begin += kTile) {
    const std::size_t i = tile_begin + threadIdx.x;
    std::int32_t tile_total;
    const std::int32_t scanned = scan_block(i < end ? in[i] : 0, &tile_total);
    if (i < end) out[i] = wrap_add(scanned, running);
    running = wrap_add(running, tile_total);  // the next tile starts after this whole tile
  }
}

// Scratch: the kParts part sums.
inline std::size_t workspace_bytes(std::size_t) { return kParts * sizeof(std::int32_t); }

inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  if (n == 0) return;
  auto* part_sums = static_cast<std::int32_t*>(d_workspace);
  reduce_parts_kernel<<<kParts, kTile, 0, stream>>>(d_in, part_sums, n);
  TUT_CHECK_LAUNCH();
  scan_part_sums_kernel<<<1, kTile, 0, stream>>>(part_sums);
  TUT_CHECK_LAUNCH();
  scan_with_base_kernel<<<kParts, kTile, 0, stream>>>(d_in, d_out, part_sums, n);
  TUT_CHECK_LAUNCH();
}

}  // namespace scan_two_pass
