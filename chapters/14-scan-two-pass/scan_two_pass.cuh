// Chapter 14: two-pass ReduceThenScan, without recursion.
// After "CUDA high-performance classic problem: prefix sum" (OneFlow, Will Zhang, 2022), §11.
//
// Chapter 13 recurses because 1024-element parts leave n / 1024 part totals, too many for one
// block. Here the parts are large instead: at most kMaxParts = 1024 parts of about n / 1024
// elements, one block per part, so one block can scan all the part totals:
//   1. reduce_parts_kernel    <<<parts, 1024>>>  block p adds up part p (each thread a strided
//                                                slice, then a block reduce) into part_sums[p];
//   2. scan_part_sums_kernel  <<<1, 1024>>>      one block scans the <= 1024 part totals in place;
//   3. scan_parts_kernel      <<<parts, 1024>>>  block p walks part p in tiles of 1024 elements:
//                                                block scan + running base, write the output.
//
//   in:  | part 0: tile tile ... tile | part 1: tile tile ... tile | ... | part parts-1 |
//   base of part p = part_sums[p - 1]; within a part the base grows by each tile's total.
//
// Three launches whatever n is. Global memory traffic per element, as in chapter 13: the input is
// read twice and the output written once.
//
// The block scan is chapter 12's: registers, a predicated inline-PTX warp scan, shared memory for
// the 32 warp totals only. The reduction uses CUB's cub::BlockReduce, as the article does: a sum
// over a block is not this stage's lesson, and CUB's is a tuned, tested building block.
//
// Values are scanned as uint32_t: the same bits as int32_t, and unsigned addition wraps by
// definition (signed overflow would be undefined behaviour), matching the CPU reference.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cub/block/block_reduce.cuh>

#include "cuda_check.cuh"
#include "warp_scan.cuh"

namespace scan_two_pass {

constexpr int kTileSize = 1024;  // elements per tile = threads per block
constexpr int kMaxParts = 1024;  // parts = blocks; one block of kTileSize threads scans their totals
constexpr int kWarpSize = 32;
constexpr int kWarpsPerTile = kTileSize / kWarpSize;
static_assert(kWarpsPerTile == kWarpSize, "a tile is 32 warps, so that one warp scans the 32 warp totals");
static_assert(kMaxParts <= kTileSize, "scan_part_sums_kernel scans the part totals as one tile");

// The warp and block scans are chapter 12's, unchanged: common/warp_scan.cuh.

// Elements per part: n / kMaxParts rounded up to whole tiles, and at least one tile. Whole tiles
// keep all threads of a block in the tile loop of scan_parts_kernel for the same number of
// iterations (the loop contains __syncthreads()). Below 1024 * 1024 elements this gives fewer
// than 1024 parts (n = 1000: one part; n = 2^20 + 1: 513 parts of 2048).
inline std::size_t part_size(std::size_t n) {
  const std::size_t per_part = (n + kMaxParts - 1) / kMaxParts;
  const std::size_t tiles = per_part == 0 ? 1 : (per_part + kTileSize - 1) / kTileSize;
  return tiles * kTileSize;
}

inline std::size_t part_count(std::size_t n) { return (n + part_size(n) - 1) / part_size(n); }

// CUB's block-wide sum for blocks of kTileSize threads; the result is valid in thread 0 only.
using BlockReduce = cub::BlockReduce<std::uint32_t, kTileSize>;

// Block p adds up part p: each thread sums the elements begin + threadIdx.x, + 1024, + 2048, ...
// (each step of the block reads 1024 consecutive words: coalesced), then the block reduce adds the
// 1024 partial sums and thread 0 writes the part's total.
__global__ void reduce_parts_kernel(const std::uint32_t* in, std::uint32_t* part_sums, std::int64_t n,
                                    std::int64_t part_length) {
  __shared__ typename BlockReduce::TempStorage reduce_storage;
  const std::int64_t begin = blockIdx.x * part_length;  // 64-bit: n may pass 2^31
  const std::int64_t end = begin + part_length < n ? begin + part_length : n;
  std::uint32_t sum = 0;
  for (std::int64_t i = begin + threadIdx.x; i < end; i += kTileSize) sum += in[i];
  const std::uint32_t total = BlockReduce(reduce_storage).Sum(sum);
  if (threadIdx.x == 0) part_sums[blockIdx.x] = total;
}

// One block scans the (at most kMaxParts) part totals in place, as a single tile.
__global__ void scan_part_sums_kernel(std::uint32_t* part_sums, std::int64_t parts) {
  __shared__ std::uint32_t warp_sums[kWarpsPerTile];
  const bool mine = threadIdx.x < parts;
  std::uint32_t val = mine ? part_sums[threadIdx.x] : 0;
  val = tut::warp::scan_block_32_warps(val, warp_sums);
  if (mine) part_sums[threadIdx.x] = val;
}

// Block p scans part p tile by tile. `base` starts as the total of all earlier parts and grows by
// each tile's total, which scan_block_32_warps leaves in warp_sums[kWarpsPerTile - 1]; the barrier at the
// top of the next tile keeps it there until every thread has read it.
__global__ void scan_parts_kernel(const std::uint32_t* in, const std::uint32_t* part_prefix, std::uint32_t* out,
                                  std::int64_t n, std::int64_t part_length) {
  __shared__ std::uint32_t warp_sums[kWarpsPerTile];
  const std::int64_t begin = blockIdx.x * part_length;
  const std::int64_t end = begin + part_length < n ? begin + part_length : n;
  std::uint32_t base = blockIdx.x > 0 ? part_prefix[blockIdx.x - 1] : 0;
  // The loop condition does not depend on threadIdx.x: every thread runs every iteration.
  for (std::int64_t tile = begin; tile < end; tile += kTileSize) {
    const std::int64_t i = tile + threadIdx.x;
    std::uint32_t val = i < end ? in[i] : 0;
    __syncthreads();  // orders the previous tile's reads of warp_sums before this tile's writes
    val = tut::warp::scan_block_32_warps(val, warp_sums);  // in registers
    if (i < end) out[i] = base + val;
    base += warp_sums[kWarpsPerTile - 1];  // this tile's total
  }
}

// The part totals only: at most kMaxParts uint32, whatever n is.
inline std::size_t workspace_bytes(std::size_t n) { return part_count(n) * sizeof(std::uint32_t); }

// Enqueues the inclusive scan of n int32 on `stream`; no allocation, no synchronisation.
// Every part total is written before it is read, so the workspace need not be zeroed.
inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  if (n == 0) return;
  // int32_t and uint32_t may alias each other (same type but for signedness), so the kernels can
  // work on the caller's int32 arrays through uint32 pointers.
  const auto* in = reinterpret_cast<const std::uint32_t*>(d_in);
  auto* out = reinterpret_cast<std::uint32_t*>(d_out);
  auto* part_sums = static_cast<std::uint32_t*>(d_workspace);
  const auto n64 = static_cast<std::int64_t>(n);
  const auto size64 = static_cast<std::int64_t>(part_size(n));
  const std::size_t parts = part_count(n);  // <= kMaxParts
  const unsigned blocks = static_cast<unsigned>(parts);

  reduce_parts_kernel<<<blocks, kTileSize, 0, stream>>>(in, part_sums, n64, size64);
  TUT_CHECK_LAUNCH();
  scan_part_sums_kernel<<<1, kTileSize, 0, stream>>>(part_sums, static_cast<std::int64_t>(parts));
  TUT_CHECK_LAUNCH();
  scan_parts_kernel<<<blocks, kTileSize, 0, stream>>>(in, part_sums, out, n64, size64);
  TUT_CHECK_LAUNCH();
}

}  // namespace scan_two_pass
