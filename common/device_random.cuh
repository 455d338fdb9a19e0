// Seeded random input made on the GPU: the same values as tut::random_integers (verify.hpp), for inputs too
// large to make on the host and upload (a scan over several GPUs holds more than the host can comfortably).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "verify.hpp"

namespace tut {
namespace detail {

// verify.hpp's splitmix64 and random_bits, for the device (verify.hpp is host-only C++). The GPU tests check
// that both give the same values.
__device__ __forceinline__ std::uint64_t device_splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class T>
__global__ void fill_random_integers_kernel(T* out, std::size_t count, std::uint64_t mixed_seed,
                                            std::uint64_t first_index) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    out[i] = static_cast<T>(device_splitmix64(mixed_seed ^ (first_index + i)));
}

}  // namespace detail

// Fills d_out[0, count) with elements first_index .. first_index + count - 1 of
// random_integers<T>(..., seed): so a shard of a larger array gets exactly its part of the host's input.
template <class T>
void fill_random_integers_on_device(T* d_out, std::size_t count, std::uint64_t seed, std::uint64_t first_index = 0,
                                    cudaStream_t stream = 0) {
  if (count == 0) return;
  constexpr int kThreads = 256;
  const std::size_t blocks_needed = (count + kThreads - 1) / kThreads;
  const unsigned blocks = static_cast<unsigned>(blocks_needed < 65536 ? blocks_needed : 65536);
  detail::fill_random_integers_kernel<<<blocks, kThreads, 0, stream>>>(d_out, count, splitmix64(seed), first_index);
  TUT_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tut
