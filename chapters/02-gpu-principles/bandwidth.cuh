// Chapter 02, experiment 4: device-memory bandwidth by access width ("Optimisation techniques for
// GPU programs", §1.5). One element (of 4, 8 or 16 bytes) per thread, so the block size and the
// width of each load and store are the only things that change.
#pragma once

#include <cstddef>
#include <cstdint>

#include "principles.cuh"

namespace principles {

// out = in for n floats, read and written as Vec (float, float2 or float4: 32-, 64- or 128-bit
// accesses; cudaMalloc's 256-byte alignment makes every Vec aligned). Consecutive threads touch
// consecutive Vecs, so a warp's access is one contiguous run of 32 x sizeof(Vec) bytes. The last
// n % width floats, which make no whole Vec, are copied one by one by the first threads.
template <class Vec>
__global__ void copy_vectors(const float* __restrict__ in, float* __restrict__ out, std::uint64_t n) {
  constexpr int kWidth = sizeof(Vec) / sizeof(float);
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t vectors = n / kWidth;
  if (i < vectors) reinterpret_cast<Vec*>(out)[i] = reinterpret_cast<const Vec*>(in)[i];
  const std::uint64_t tail = vectors * kWidth + i;
  if (tail < n && i < static_cast<std::uint64_t>(kWidth)) out[tail] = in[tail];
}

// For contrast: the same copy, but thread i reads element strided_source(i), `stride` floats away
// from its neighbour's. Writes stay coalesced; each warp's read touches up to 32 different sectors
// and uses 4 bytes of each.
__global__ void gather_strided(const float* __restrict__ in, float* __restrict__ out, std::uint64_t n,
                               std::uint64_t stride) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[strided_source(i, n, stride)];
}

}  // namespace principles
