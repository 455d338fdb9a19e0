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

// How many i in [0, n) a predicate calls bad, and the smallest such i (when count > 0).
struct BadCount {
  std::size_t count = 0;
  std::size_t first = 0;
};

namespace detail {

// counters[0]: positions is_bad(i) calls bad; counters[1]: the smallest. One atomic per warp that found any.
template <class IsBad>
__global__ void count_bad_kernel(std::size_t n, IsBad is_bad, unsigned long long* counters) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0, first = ULLONG_MAX;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    if (is_bad(i)) {
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

// The bits of T as an unsigned integer of the same size, so that floats compare bit for bit.
template <class T>
using BitsOf = std::conditional_t<sizeof(T) == 8, unsigned long long,
                                  std::conditional_t<sizeof(T) == 4, unsigned int,
                                                     std::conditional_t<sizeof(T) == 2, unsigned short, unsigned char>>>;

template <class Bits>
struct ElementsDiffer {
  const Bits* expected;
  const Bits* actual;
  __device__ bool operator()(std::size_t i) const { return expected[i] != actual[i]; }
};

template <class T>
struct ElementDiffersFrom {
  const T* actual;
  T value;
  __device__ bool operator()(std::size_t i) const { return actual[i] != value; }
};

template <class T>
T download_one(const T* d_element) {
  T v{};
  TUT_CUDA_CHECK(cudaMemcpy(&v, d_element, sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

}  // namespace detail

// Counts the i in [0, n) for which the device functor is_bad(i) is true: one pass over n on the GPU, 16 bytes
// back. The building block of the checks below (and of checks that compare with a rule, not a reference).
template <class IsBad>
BadCount count_bad_on_device(std::size_t n, IsBad is_bad, cudaStream_t stream = 0) {
  DeviceBuffer<unsigned long long> counters(2);
  const unsigned long long init[2] = {0, ULLONG_MAX};
  TUT_CUDA_CHECK(cudaMemcpyAsync(counters.data(), init, sizeof init, cudaMemcpyHostToDevice, stream));
  if (n > 0) {
    constexpr int kThreads = 256;
    const std::size_t blocks = (n + kThreads - 1) / kThreads;
    const int grid = static_cast<int>(blocks < 4096 ? blocks : 4096);  // a grid-stride loop covers the rest
    detail::count_bad_kernel<<<grid, kThreads, 0, stream>>>(n, is_bad, counters.data());
    TUT_CUDA_CHECK(cudaGetLastError());
  }
  unsigned long long result[2];
  TUT_CUDA_CHECK(cudaMemcpyAsync(result, counters.data(), sizeof result, cudaMemcpyDeviceToHost, stream));
  TUT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return {static_cast<std::size_t>(result[0]), result[0] ? static_cast<std::size_t>(result[1]) : 0};
}

// The same result as compare_exact(expected, actual, n) on the host, for device pointers. Floats are compared
// bit for bit (as compare_exact does for outputs that must reproduce their input exactly).
template <class T>
CheckResult compare_exact_on_device(const T* d_expected, const T* d_actual, std::size_t n,
                                    cudaStream_t stream = 0) {
  static_assert(std::is_integral_v<T> || std::is_floating_point_v<T>, "exact comparison of numbers");
  using Bits = detail::BitsOf<T>;
  static_assert(sizeof(Bits) == sizeof(T));
  const BadCount bad = count_bad_on_device(
      n,
      detail::ElementsDiffer<Bits>{reinterpret_cast<const Bits*>(d_expected), reinterpret_cast<const Bits*>(d_actual)},
      stream);
  CheckResult r;
  if (bad.count == 0) return r;
  r.ok = false;
  r.bad_count = bad.count;
  r.first_bad = bad.first;
  r.expected = value_text(detail::download_one(d_expected + bad.first));
  r.actual = value_text(detail::download_one(d_actual + bad.first));
  return r;
}

// Checks that d_actual[0, n) holds `value` everywhere (e.g. the poison pattern past a filter's output).
template <class T>
CheckResult check_all_equal_on_device(const T* d_actual, std::size_t n, T value, cudaStream_t stream = 0) {
  static_assert(std::is_integral_v<T>, "for integers");
  const BadCount bad = count_bad_on_device(n, detail::ElementDiffersFrom<T>{d_actual, value}, stream);
  CheckResult r;
  if (bad.count == 0) return r;
  r.ok = false;
  r.bad_count = bad.count;
  r.first_bad = bad.first;
  r.expected = value_text(value);
  r.actual = value_text(detail::download_one(d_actual + bad.first));
  return r;
}

}  // namespace tut
