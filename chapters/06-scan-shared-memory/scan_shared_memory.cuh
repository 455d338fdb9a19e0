// Chapter 06: ScanThenFan with each part staged in shared memory.
// After "CUDA high-performance classic problem: prefix sum" (OneFlow, Will Zhang, 2022), §4.
//
// Inclusive scan of n int32 in three kernels:
//   1. scan_parts_kernel     cut the input into parts of kPartSize elements; scan each part on its
//                            own and write the part's total to part_sums[part];
//   2. scan_part_sums_kernel scan part_sums in place, so part_sums[p] = total of parts 0..p;
//   3. add_base_kernel       add part_sums[p - 1] (the sum of everything before part p) to every
//                            element of part p.
// Each part is still scanned by ONE thread of its block, but no longer straight from global memory:
// all kPartSize threads first copy the part into shared memory (one coalesced load per warp), thread 0
// scans it there, and all threads copy the result back out (one coalesced store per warp).
//
// Values are scanned as uint32_t: the same bits as int32_t, and unsigned addition wraps by
// definition (signed overflow would be undefined behaviour), matching the CPU reference.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"

namespace scan_shared_memory {

constexpr int kPartSize = 1024;  // elements per part = threads per block (the article's part_size)
constexpr int kMaxBlocks = 128;  // the article's block_num = min(part_num, 128), a grid-stride loop over parts

// Inclusive scan of count values, in[0..count) -> out[0..count), by the calling thread alone.
// Returns the total. Each iteration waits for its load: nothing here runs in parallel.
__device__ __forceinline__ std::uint32_t scan_part_serial(const std::uint32_t* in, std::uint32_t* out,
                                                          int count) {
  std::uint32_t acc = 0;
  for (int i = 0; i < count; ++i) {
    acc += in[i];
    out[i] = acc;
  }
  return acc;
}

// Each block takes parts blockIdx.x, blockIdx.x + gridDim.x, ...; the block stages the part in
// shared memory, thread 0 scans it there, and the block writes the scanned part and its total.
__global__ void scan_parts_kernel(const std::uint32_t* in, std::uint32_t* out, std::uint32_t* part_sums,
                                  std::int64_t n, std::int64_t parts) {
  __shared__ std::uint32_t values[kPartSize];
  for (std::int64_t part = blockIdx.x; part < parts; part += gridDim.x) {
    const std::int64_t i = part * kPartSize + threadIdx.x;
    // Element i to slot threadIdx.x: a warp's 32 loads are 32 consecutive words, one 128-byte
    // request. Past the end, 0 (the identity of +) keeps the scan and the total right.
    values[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    if (threadIdx.x == 0) scan_part_serial(values, values, kPartSize);  // in place, on shared memory
    __syncthreads();
    if (i < n) out[i] = values[threadIdx.x];
    if (threadIdx.x == kPartSize - 1) part_sums[part] = values[threadIdx.x];
    // No barrier needed before the next part: each thread next writes only its own slot, which
    // no other thread reads after the barrier above.
  }
}

// Launched <<<1, 1>>>: one thread scans all part totals in place.
__global__ void scan_part_sums_kernel(std::uint32_t* part_sums, std::int64_t parts) {
  std::uint32_t acc = 0;
  for (std::int64_t p = 0; p < parts; ++p) {
    acc += part_sums[p];
    part_sums[p] = acc;
  }
}

// Thread t of the block adds the base of part p to element t of that part. Part 0 has base 0, so
// the loop starts at part 1.
__global__ void add_base_kernel(const std::uint32_t* part_sums, std::uint32_t* out, std::int64_t n,
                                std::int64_t parts) {
  for (std::int64_t part = 1 + blockIdx.x; part < parts; part += gridDim.x) {
    // 64-bit: the article computed this index in int32_t, which wraps past 2^31 elements.
    const std::int64_t i = part * kPartSize + threadIdx.x;
    if (i < n) out[i] += part_sums[part - 1];
  }
}

inline std::size_t part_count(std::size_t n) { return (n + kPartSize - 1) / kPartSize; }

// One uint32 total per part.
inline std::size_t workspace_bytes(std::size_t n) { return part_count(n) * sizeof(std::uint32_t); }

// Enqueues the inclusive scan of n int32 on `stream`; no allocation, no synchronisation.
// Every part total is written before it is read, so the workspace need not be zeroed.
inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t parts = part_count(n);
  const unsigned blocks = static_cast<unsigned>(parts < kMaxBlocks ? parts : kMaxBlocks);
  // int32_t and uint32_t may alias each other (same type but for signedness), so the kernels can
  // work on the caller's int32 arrays through uint32 pointers.
  const auto* in = reinterpret_cast<const std::uint32_t*>(d_in);
  auto* out = reinterpret_cast<std::uint32_t*>(d_out);
  auto* part_sums = static_cast<std::uint32_t*>(d_workspace);
  const auto n64 = static_cast<std::int64_t>(n), parts64 = static_cast<std::int64_t>(parts);

  scan_parts_kernel<<<blocks, kPartSize, 0, stream>>>(in, out, part_sums, n64, parts64);
  TUT_CHECK_LAUNCH();
  scan_part_sums_kernel<<<1, 1, 0, stream>>>(part_sums, parts64);
  TUT_CHECK_LAUNCH();
  add_base_kernel<<<blocks, kPartSize, 0, stream>>>(part_sums, out, n64, parts64);
  TUT_CHECK_LAUNCH();
}

}  // namespace scan_shared_memory
