// Exact comparison on the GPU of an output with a reference that is already in device memory (a
// reference computed on the CPU and uploaded once, or an input a copy must reproduce).
//
// Why: the tests check arrays of 2^30 and 2^31 elements. Downloading each variant's 8 GiB output and
// comparing on the host costs seconds per variant (a pageable copy, a zero-filled vector, the compare);
// this costs milliseconds and moves 16 bytes back. The reference itself stays the CPU's.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <type_traits>

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "verify.hpp"

namespace tut {
namespace detail {

// counters[0]: mismatches; counters[1]: the smallest mismatching index. One atomic per warp that found any.
template <class T>
__global__ void count_mismatches_kernel(const T* __restrict__ expected, const T* __restrict__ actual,
                                        std::size_t n, unsigned long long* counters) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0, first = ULLONG_MAX;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    if (expected[i] != actual[i]) {
      ++bad;
      first = first < i ? first : i;
    }
  for (int offset = 16; offset > 0; offset /= 2) {  // warp totals, then one lane publishes them
    bad += __shfl_down_sync(0xffffffffu, bad, offset);
    const unsigned long long other = __shfl_down_sync(0xffffffffu, first, offset);
    first = other < first ? other : first;
  }
  if ((threadIdx.x & 31) == 0 && bad != 0) {
    atomicAdd(&counters[0], bad);
    atomicMin(&counters[1], first);
  }
}

// The same count for a constant expected value.
template <class T>
__global__ void count_not_equal_kernel(const T* __restrict__ actual, std::size_t n, T value,
                                       unsigned long long* counters) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0, first = ULLONG_MAX;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    if (actual[i] != value) {
      ++bad;
      first = first < i ? first : i;
    }
  for (int offset = 16; offset > 0; offset /= 2) {
    bad += __shfl_down_sync(0xffffffffu, bad, offset);
    const unsigned long long other = __shfl_down_sync(0xffffffffu, first, offset);
    first = other < first ? other : first;
  }
  if ((threadIdx.x & 31) == 0 && bad != 0) {
    atomicAdd(&counters[0], bad);
    atomicMin(&counters[1], first);
  }
}

}  // namespace detail

// The same result as compare_exact(expected, actual, n) on the host, for device pointers. Floats are compared
// bit for bit (as compare_exact does for outputs that must reproduce their input exactly).
template <class T>
CheckResult compare_exact_on_device(const T* d_expected, const T* d_actual, std::size_t n,
                                    cudaStream_t stream = 0) {
  static_assert(std::is_integral_v<T> || std::is_floating_point_v<T>, "exact comparison of numbers");
  // The bits of T as an unsigned integer of the same size.
  using Bits = std::conditional_t<sizeof(T) == 8, unsigned long long,
                                  std::conditional_t<sizeof(T) == 4, unsigned int,
                                                     std::conditional_t<sizeof(T) == 2, unsigned short, unsigned char>>>;
  static_assert(sizeof(Bits) == sizeof(T));
  DeviceBuffer<unsigned long long> counters(2);
  const unsigned long long init[2] = {0, ULLONG_MAX};
  TUT_CUDA_CHECK(cudaMemcpyAsync(counters.data(), init, sizeof init, cudaMemcpyHostToDevice, stream));
  if (n > 0) {
    constexpr int kThreads = 256;
    const std::size_t blocks = (n + kThreads - 1) / kThreads;
    const int grid = static_cast<int>(blocks < 4096 ? blocks : 4096);  // a grid-stride loop covers the rest
    detail::count_mismatches_kernel<<<grid, kThreads, 0, stream>>>(reinterpret_cast<const Bits*>(d_expected),
                                                                   reinterpret_cast<const Bits*>(d_actual), n,
                                                                   counters.data());
    TUT_CUDA_CHECK(cudaGetLastError());
  }
  unsigned long long result[2];
  TUT_CUDA_CHECK(cudaMemcpyAsync(result, counters.data(), sizeof result, cudaMemcpyDeviceToHost, stream));
  TUT_CUDA_CHECK(cudaStreamSynchronize(stream));
  CheckResult r;
  if (result[0] == 0) return r;
  r.ok = false;
  r.bad_count = static_cast<std::size_t>(result[0]);
  r.first_bad = static_cast<std::size_t>(result[1]);
  T want{}, got{};
  TUT_CUDA_CHECK(cudaMemcpy(&want, d_expected + r.first_bad, sizeof(T), cudaMemcpyDeviceToHost));
  TUT_CUDA_CHECK(cudaMemcpy(&got, d_actual + r.first_bad, sizeof(T), cudaMemcpyDeviceToHost));
  r.expected = value_text(want);
  r.actual = value_text(got);
  return r;
}

// Checks that d_actual[0, n) holds `value` everywhere (e.g. the poison pattern past a filter's output).
template <class T>
CheckResult check_all_equal_on_device(const T* d_actual, std::size_t n, T value, cudaStream_t stream = 0) {
  static_assert(std::is_integral_v<T>, "for integers");
  DeviceBuffer<unsigned long long> counters(2);
  const unsigned long long init[2] = {0, ULLONG_MAX};
  TUT_CUDA_CHECK(cudaMemcpyAsync(counters.data(), init, sizeof init, cudaMemcpyHostToDevice, stream));
  if (n > 0) {
    const std::size_t blocks = (n + 255) / 256;
    detail::count_not_equal_kernel<<<static_cast<int>(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(
        d_actual, n, value, counters.data());
    TUT_CUDA_CHECK(cudaGetLastError());
  }
  unsigned long long result[2];
  TUT_CUDA_CHECK(cudaMemcpyAsync(result, counters.data(), sizeof result, cudaMemcpyDeviceToHost, stream));
  TUT_CUDA_CHECK(cudaStreamSynchronize(stream));
  CheckResult r;
  if (result[0] == 0) return r;
  r.ok = false;
  r.bad_count = static_cast<std::size_t>(result[0]);
  r.first_bad = static_cast<std::size_t>(result[1]);
  T got{};
  TUT_CUDA_CHECK(cudaMemcpy(&got, d_actual + r.first_bad, sizeof(T), cudaMemcpyDeviceToHost));
  r.expected = value_text(value);
  r.actual = value_text(got);
  return r;
}

}  // namespace tut
