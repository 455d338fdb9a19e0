// Exercise 06 (chapter 06-scan-shared-memory): stage each part in shared memory before the serial scan.
//
// ScanThenFan with one thread per part (stage 05) reads and writes global memory one element at a
// time from a single thread: every access is a separate, uncoalesced trip to L2/DRAM. Here the
// whole block first loads its 1024-element part into shared memory (one coalesced access per warp),
// one thread scans it there (shared memory latency, not DRAM latency), and the block writes it back,
// again coalesced:
//
//   global in  --(1024 threads, coalesced)-->  shared part  --(thread 0, serial scan)-->  shared part
//   shared part  --(1024 threads, coalesced)-->  global out         (and thread 0 writes the part sum)
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"

namespace scan_staged {

constexpr int kPartSize = 1024;  // elements per part = threads per block
constexpr int kMaxBlocks = 128;  // grid cap; a grid-stride loop over parts covers the rest

__host__ __device__ inline std::size_t part_count(std::size_t n) { return (n + kPartSize - 1) / kPartSize; }

// Elements in part `part` of n: kPartSize, except for a shorter last part.
__device__ __forceinline__ int part_length(std::size_t part, std::size_t n) {
  const std::size_t left = n - part * kPartSize;
  return static_cast<int>(left < kPartSize ? left : kPartSize);
}

// a + b with two's-complement wrap-around (signed overflow is undefined; unsigned wraps).
__device__ __forceinline__ std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// One thread scans `count` values in place (in shared or global memory); returns their sum.
__device__ std::int32_t scan_serial(std::int32_t* values, int count) {
  std::int32_t running = 0;
  for (int i = 0; i < count; ++i) {
    running = wrap_add(running, values[i]);
    values[i] = running;
  }
  return running;
}

// Stage 05, for the measurement: thread 0 of each block scans its parts straight in global memory.
__global__ void scan_parts_global_kernel(const std::int32_t* in, std::int32_t* out, std::int32_t* part_sums,
                                         std::size_t n) {
  if (threadIdx.x != 0) return;
  for (std::size_t part = blockIdx.x; part < part_count(n); part += gridDim.x) {
    const std::size_t begin = part * kPartSize;
    const int count = part_length(part, n);
    std::int32_t running = 0;
    for (int i = 0; i < count; ++i) {
      running = wrap_add(running, in[begin + i]);
      out[begin + i] = running;
    }
    part_sums[part] = running;
  }
}

// Stage 06: each part goes through shared memory. <<<min(parts, kMaxBlocks), kPartSize>>>.
__global__ void scan_parts_kernel(const std::int32_t* in, std::int32_t* out, std::int32_t* part_sums, std::size_t n) {
  __shared__ std::int32_t part_values[kPartSize];
  const int tid = static_cast<int>(threadIdx.x);
  for (std::size_t part = blockIdx.x; part < part_count(n); part += gridDim.x) {
    const std::size_t begin = part * kPartSize;
    const int count = part_length(part, n);
    // TODO: the three steps of this stage, for the part [begin, begin + count):
    //   1. every thread loads one element of the part into part_values (coalesced: thread t reads
    //      element t), if it exists;
    //   2. thread 0 scans part_values serially (scan_serial) and writes the part's sum to part_sums[part];
    //   3. every thread stores its element of part_values to out.
    // The threads must wait for each other between the steps, and at the end of each round: the
    // next part's load overwrites part_values.
    // (Marks the names as used, so that the unfinished file compiles without warnings; delete it.)
    (void)in, (void)out, (void)part_sums, (void)begin, (void)count, (void)tid, (void)part_values[0];
  }
}

// One thread scans the part sums in place: <<<1, 1>>>.
__global__ void scan_part_sums_kernel(std::int32_t* part_sums, std::size_t parts) {
  std::int32_t running = 0;
  for (std::size_t p = 0; p < parts; ++p) {
    running = wrap_add(running, part_sums[p]);
    part_sums[p] = running;
  }
}

// Adds scanned_part_sums[p - 1] to every element of part p >= 1 (64-bit indices).
__global__ void add_base_kernel(std::int32_t* data, const std::int32_t* scanned_part_sums, std::size_t n) {
  for (std::size_t part = blockIdx.x; part < part_count(n); part += gridDim.x) {
    if (part == 0) continue;
    const std::size_t i = part * kPartSize + threadIdx.x;
    if (i < n) data[i] = wrap_add(data[i], scanned_part_sums[part - 1]);
  }
}

// Scratch: one int32 per part for the part sums.
inline std::size_t workspace_bytes(std::size_t n) { return part_count(n) * sizeof(std::int32_t); }

// The inclusive scan of n int32: staged in shared memory, or (staged = false) stage 05's global version.
inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream, bool staged = true) {
  if (n == 0) return;
  const std::size_t parts = part_count(n);
  const unsigned blocks = static_cast<unsigned>(parts < kMaxBlocks ? parts : kMaxBlocks);
  auto* part_sums = static_cast<std::int32_t*>(d_workspace);
  if (staged) scan_parts_kernel<<<blocks, kPartSize, 0, stream>>>(d_in, d_out, part_sums, n);
  else scan_parts_global_kernel<<<blocks, kPartSize, 0, stream>>>(d_in, d_out, part_sums, n);
  TUT_CHECK_LAUNCH();
  if (parts == 1) return;
  scan_part_sums_kernel<<<1, 1, 0, stream>>>(part_sums, parts);
  TUT_CHECK_LAUNCH();
  add_base_kernel<<<blocks, kPartSize, 0, stream>>>(d_out, part_sums, n);
  TUT_CHECK_LAUNCH();
}

}  // namespace scan_staged
