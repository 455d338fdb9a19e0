// Exercise 05 (chapter 05-scan-baseline): the "fan" of ScanThenFan, with indices that survive 2^31.
//
// ScanThenFan scans each 1024-element part on its own, scans the part sums, then adds to every
// element of part p the sum of all parts before it:
//
//   after scan_parts:      [ part 0 scanned ][ part 1 scanned ][ part 2 scanned ] ...
//   scanned part sums:       S0                S0+S1             S0+S1+S2        ...
//   after add_base:        [ + 0            ][ + S0           ][ + S0+S1        ] ...
//
// The article's add-base kernel computed the element index in int32_t, which wraps once
// part * 1024 reaches 2^31 (2 Gi elements, 8 GiB of int32): 64-bit indices fix it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"

namespace add_base {

constexpr int kPartSize = 1024;  // elements per part = threads per block
constexpr int kMaxBlocks = 128;  // the article's block cap; a grid-stride loop covers the other parts

__host__ __device__ inline std::size_t part_count(std::size_t n) { return (n + kPartSize - 1) / kPartSize; }

// a + b with two's-complement wrap-around (signed overflow is undefined; unsigned wraps).
__device__ __forceinline__ std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// data: n int32, each 1024-element part already scanned on its own. scanned_part_sums[p]: the sum
// of parts 0..p. Adds scanned_part_sums[p - 1] to every element of every part p >= 1, in place.
// Launched <<<min(parts, kMaxBlocks), kPartSize>>>: block b takes parts b, b + gridDim.x, ...;
// thread t takes element t of each of its parts.
__global__ void add_base_kernel(std::int32_t* data, const std::int32_t* scanned_part_sums, std::size_t n) {
  const std::size_t parts = part_count(n);
  for (std::size_t part = blockIdx.x; part < parts; part += gridDim.x) {
    if (part == 0) continue;  // nothing comes before part 0
    // 64-bit: part * kPartSize passes 2^31 when n does (the article's int32_t index wrapped there).
    const std::size_t i = part * kPartSize + threadIdx.x;
    if (i < n) data[i] = wrap_add(data[i], scanned_part_sums[part - 1]);
  }
}

inline void add_base(std::int32_t* data, const std::int32_t* scanned_part_sums, std::size_t n, cudaStream_t stream) {
  const std::size_t parts = part_count(n);
  if (parts < 2) return;  // one part (or none): no base to add
  const unsigned blocks = static_cast<unsigned>(parts < kMaxBlocks ? parts : kMaxBlocks);
  add_base_kernel<<<blocks, kPartSize, 0, stream>>>(data, scanned_part_sums, n);
  TUT_CHECK_LAUNCH();
}

}  // namespace add_base
