// Chapter 13: ReduceThenScan.
// After "CUDA high-performance classic problem: prefix sum" (OneFlow, Will Zhang, 2022), §11.
//
// ScanThenFan (chapters 05-12) scans every part in its first pass and writes the scanned part to
// the output, then reads and rewrites the whole output again to add each part's base. Here the
// first pass only *sums* each part, and the scan of each part waits until its base is known:
//   1. reduce_parts_kernel          read the input; write one total per part to part_sums[part];
//   2. (recursion)                  scan part_sums in place, so part_sums[p] = total of parts 0..p,
//                                   with this same algorithm, run on part_sums;
//   3. scan_parts_with_base_kernel  read the input again, scan each part, add part_sums[p - 1] and
//                                   write the output, once.
// Global memory traffic per element: ScanThenFan reads 2 and writes 2 ints (scan pass: read +
// write; add_base_kernel: read + write); ReduceThenScan reads 2 and writes 1.
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

namespace scan_reduce_then_scan {

constexpr int kPartSize = 1024;  // elements per part = threads per block (the article's part_size)
constexpr int kMaxBlocks = 128;  // the article's block_num = min(part_num, 128), a grid-stride loop over parts
constexpr int kWarpSize = 32;
constexpr int kWarpsPerPart = kPartSize / kWarpSize;
static_assert(kWarpsPerPart == kWarpSize, "a part is 32 warps, so that one warp scans the 32 warp totals");

// The warp and block scans are chapter 12's, unchanged: common/warp_scan.cuh.

// CUB's block-wide sum for blocks of kPartSize threads; the result is valid in thread 0 only.
using BlockReduce = cub::BlockReduce<std::uint32_t, kPartSize>;

// Each block takes parts blockIdx.x, blockIdx.x + gridDim.x, ...; each thread loads one element
// of the part, the block adds them up, and thread 0 writes the part's total. Nothing else is written.
__global__ void reduce_parts_kernel(const std::uint32_t* in, std::uint32_t* part_sums, std::int64_t n,
                                    std::int64_t parts) {
  __shared__ typename BlockReduce::TempStorage reduce_storage;
  for (std::int64_t part = blockIdx.x; part < parts; part += gridDim.x) {
    const std::int64_t i = part * kPartSize + threadIdx.x;
    const std::uint32_t val = i < n ? in[i] : 0;
    __syncthreads();  // orders the previous part's use of reduce_storage before this part's
    const std::uint32_t total = BlockReduce(reduce_storage).Sum(val);
    if (threadIdx.x == 0) part_sums[part] = total;
  }
}

// Each block takes parts blockIdx.x, blockIdx.x + gridDim.x, ...; each thread loads one element
// of the part into a register, the block scans the part with all its warps, adds the part's base
// (the total of all earlier parts: part_prefix[part - 1]) and writes the result.
__global__ void scan_parts_with_base_kernel(const std::uint32_t* in, const std::uint32_t* part_prefix,
                                            std::uint32_t* out, std::int64_t n, std::int64_t parts) {
  __shared__ std::uint32_t warp_sums[kWarpsPerPart];
  for (std::int64_t part = blockIdx.x; part < parts; part += gridDim.x) {
    const std::int64_t i = part * kPartSize + threadIdx.x;
    // Element i to this thread's register: a warp's 32 loads are 32 consecutive words, one 128-byte
    // request. Past the end, 0 (the identity of +) keeps the scan right.
    std::uint32_t val = i < n ? in[i] : 0;
    __syncthreads();  // orders the previous part's reads of warp_sums before this part's writes
    val = tut::warp::scan_block_32_warps(val, warp_sums);  // in registers
    if (part > 0) val += part_prefix[part - 1];  // the same address for the whole warp: one load
    if (i < n) out[i] = val;
  }
}

inline std::size_t part_count(std::size_t n) { return (n + kPartSize - 1) / kPartSize; }

// One uint32 total per part, for every level of the recursion: ceil(n / 1024) totals, then
// ceil(that / 1024) totals of those, ... A level with a single part needs none: its base is 0.
inline std::size_t workspace_bytes(std::size_t n) {
  const std::size_t parts = part_count(n);
  return parts >= 2 ? parts * sizeof(std::uint32_t) + workspace_bytes(parts) : 0;
}

// ReduceThenScan on n uint32 (n >= 1); `in` and `out` may be the same array, as they are in the
// recursive calls: scan_parts_with_base_kernel reads each element into a register before the same
// thread writes it back. `part_sums` has room for the totals of this level and of every level below.
inline void reduce_then_scan(const std::uint32_t* in, std::uint32_t* out, std::size_t n, std::uint32_t* part_sums,
                             cudaStream_t stream) {
  const std::size_t parts = part_count(n);
  const unsigned blocks = static_cast<unsigned>(parts < kMaxBlocks ? parts : kMaxBlocks);
  const auto n64 = static_cast<std::int64_t>(n), parts64 = static_cast<std::int64_t>(parts);

  if (parts >= 2) {
    reduce_parts_kernel<<<blocks, kPartSize, 0, stream>>>(in, part_sums, n64, parts64);
    TUT_CHECK_LAUNCH();
    // The part totals are scanned by this same algorithm, in place; their own totals go right
    // after them in the workspace. Each level is 1024 times smaller, so this ends within a few
    // levels, at a level of one part.
    reduce_then_scan(part_sums, part_sums, parts, part_sums + parts, stream);
  }
  // With a single part, part_sums is never read (part 0's base is 0).
  scan_parts_with_base_kernel<<<blocks, kPartSize, 0, stream>>>(in, part_sums, out, n64, parts64);
  TUT_CHECK_LAUNCH();
}

// Enqueues the inclusive scan of n int32 on `stream`; no allocation, no synchronisation.
// Every part total is written before it is read, so the workspace need not be zeroed.
inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  if (n == 0) return;
  // int32_t and uint32_t may alias each other (same type but for signedness), so the kernels can
  // work on the caller's int32 arrays through uint32 pointers.
  const auto* in = reinterpret_cast<const std::uint32_t*>(d_in);
  auto* out = reinterpret_cast<std::uint32_t*>(d_out);
  reduce_then_scan(in, out, n, static_cast<std::uint32_t*>(d_workspace), stream);
}

}  // namespace scan_reduce_then_scan
