// Exercise 13 (chapter 13-scan-reduce-then-scan): the block reduction of ReduceThenScan.
//
// ScanThenFan moves 4 int32 per element: scan_parts reads and writes every element, add_base reads
// and writes it again. ReduceThenScan moves 3: the first pass only REDUCES each part (reads, writes
// one sum per part), the part sums are scanned (recursively), and the second pass scans each part
// from its base (reads, writes):
//
//   pass 1  reduce_parts:      in --read--> part_sums[p] = sum of part p
//           scan of part_sums: recursively (a small array)
//   pass 2  scan_parts_with_base: in --read--> out = scan within the part + part_sums[p - 1]
//
// The article used cub::BlockReduce for pass 1; here it is written by hand with shuffles.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"

namespace reduce_then_scan {

constexpr int kPartSize = 1024;  // elements per part = threads per block
constexpr int kMaxBlocks = 128;  // grid cap; a grid-stride loop over parts covers the rest
constexpr int kWarpSize = 32;
constexpr int kMaxWarps = 1024 / kWarpSize;
constexpr unsigned kFullMask = 0xffffffffu;

__host__ __device__ inline std::size_t part_count(std::size_t n) { return (n + kPartSize - 1) / kPartSize; }

// a + b with two's-complement wrap-around (signed overflow is undefined; unsigned wraps).
__device__ __forceinline__ std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// The sum of one value per thread over the whole block, returned to EVERY thread. Every thread of
// the block calls it; blockDim.x is a multiple of 32, at most 1024. Callable again and again.
//
// TODO: without CUB:
//   1. each warp sums its 32 values with shuffles (__shfl_xor_sync or __shfl_down_sync; with xor
//      every lane ends up holding the warp's total);
//   2. one lane per warp writes the warp's total to a __shared__ array of kMaxWarps ints;
//   3. after a barrier, the warp totals (only blockDim.x / 32 of them are valid) are summed again
//      with shuffles, so that every thread gets the block's total;
//   4. before returning, make sure a second call cannot overwrite the shared totals while a warp
//      of this call is still reading them.
// Add with wrap_add.
__device__ std::int32_t reduce_block(std::int32_t value) {
  return value;
}

// Given: the inclusive block scan (warp shuffles; exercises 07 and 11).
__device__ __forceinline__ std::int32_t scan_warp(std::int32_t value) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const std::int32_t below = __shfl_up_sync(kFullMask, value, offset);
    if (lane >= offset) value = wrap_add(value, below);
  }
  return value;
}

__device__ std::int32_t scan_block(std::int32_t value) {
  __shared__ std::int32_t warp_sums[kMaxWarps];
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize, warp = static_cast<int>(threadIdx.x) / kWarpSize;
  const int warps = static_cast<int>(blockDim.x) / kWarpSize;
  value = scan_warp(value);
  if (lane == kWarpSize - 1) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    const std::int32_t total = scan_warp(lane < warps ? warp_sums[lane] : 0);
    if (lane < warps) warp_sums[lane] = total;
  }
  __syncthreads();
  if (warp > 0) value = wrap_add(value, warp_sums[warp - 1]);
  __syncthreads();
  return value;
}

// Pass 1: the sum of every part.
__global__ void reduce_parts_kernel(const std::int32_t* in, std::int32_t* part_sums, std::size_t n) {
  for (std::size_t part = blockIdx.x; part < part_count(n); part += gridDim.x) {
    const std::size_t i = part * kPartSize + threadIdx.x;
    const std::int32_t total = reduce_block(i < n ? in[i] : 0);
    if (threadIdx.x == 0) part_sums[part] = total;
  }
}

// Pass 2: each part scanned from its base, the inclusive scan of the part sums before it.
// in and out may be the same array (the recursion scans the part sums in place).
__global__ void scan_parts_with_base_kernel(const std::int32_t* in, std::int32_t* out,
                                            const std::int32_t* scanned_part_sums, std::size_t n) {
  for (std::size_t part = blockIdx.x; part < part_count(n); part += gridDim.x) {
    const std::size_t i = part * kPartSize + threadIdx.x;
    const std::int32_t base = part == 0 ? 0 : scanned_part_sums[part - 1];
    const std::int32_t scanned = scan_block(i < n ? in[i] : 0);
    if (i < n) out[i] = wrap_add(scanned, base);
  }
}

inline std::size_t sums_bytes(std::size_t n) { return (part_count(n) * sizeof(std::int32_t) + 255) / 256 * 256; }

// Scratch: this level's part sums, then the workspace of their scan.
inline std::size_t workspace_bytes(std::size_t n) {
  if (n <= kPartSize) return 0;  // one part: pass 2 alone scans it
  return sums_bytes(n) + workspace_bytes(part_count(n));
}

inline unsigned blocks_for(std::size_t parts) { return static_cast<unsigned>(parts < kMaxBlocks ? parts : kMaxBlocks); }

// The inclusive scan of n int32 (d_in and d_out may be the same array).
inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t parts = part_count(n);
  auto* part_sums = static_cast<std::int32_t*>(d_workspace);
  if (parts > 1) {
    reduce_parts_kernel<<<blocks_for(parts), kPartSize, 0, stream>>>(d_in, part_sums, n);
    TUT_CHECK_LAUNCH();
    inclusive_scan(part_sums, part_sums, parts, static_cast<unsigned char*>(d_workspace) + sums_bytes(n), stream);
  }
  scan_parts_with_base_kernel<<<blocks_for(parts), kPartSize, 0, stream>>>(d_in, d_out, part_sums, n);
  TUT_CHECK_LAUNCH();
}

}  // namespace reduce_then_scan
