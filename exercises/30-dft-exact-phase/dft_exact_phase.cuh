// Exercise 30: the direct DFT of chapter 30, whose twiddle factor exp(-2*pi*i*j*k/N) must be as
// accurate as single precision allows.
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.cuh"

namespace dft_exact_phase {

constexpr int kThreads = 256;
constexpr int kChunk = 64;     // terms summed on their own before joining the total (rounding grows slower)
constexpr int kMaxLog2n = 12;  // longest length tested

// exp(-2*pi*i*j*k/N) for N = 2^log2n, 0 <= j, k < N.
__device__ __forceinline__ float2 twiddle(unsigned j, unsigned k, int log2n) {
  // TODO: return exp(-2*pi*i*j*k/N) = (cos(2*pi*j*k/N), -sin(2*pi*j*k/N)), accurate to about one ulp for
  // every j, k < N = 2^log2n (up to 4096 here). The test compares the whole DFT with a CPU FFT in double:
  // sincosf(-2 * pi * j * k / N) in float is NOT accurate enough for large j*k (see the README).
  (void)j;
  (void)k;
  (void)log2n;
  return make_float2(1.0f, 0.0f);
}

__device__ __forceinline__ float2 complex_mul_add(float2 a, float2 b, float2 acc) {
  acc.x = fmaf(a.x, b.x, fmaf(-a.y, b.y, acc.x));
  acc.y = fmaf(a.x, b.y, fmaf(a.y, b.x, acc.y));
  return acc;
}

// One thread per output element: element `index` of the batch is X[k] of signal index / N.
__global__ void __launch_bounds__(kThreads) dft(const float2* __restrict__ in, float2* __restrict__ out, int log2n,
                                                long long total) {
  const long long index = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (index >= total) return;
  const unsigned n = 1u << log2n;
  const unsigned k = static_cast<unsigned>(index) & (n - 1);
  const float2* x = in + (index - k);
  float2 sum = make_float2(0.f, 0.f);
  for (unsigned j0 = 0; j0 < n; j0 += kChunk) {
    float2 part = make_float2(0.f, 0.f);
    const unsigned end = j0 + (n < kChunk ? n : kChunk);
    for (unsigned j = j0; j < end; ++j) part = complex_mul_add(x[j], twiddle(j, k, log2n), part);
    sum.x += part.x;
    sum.y += part.y;
  }
  out[index] = sum;
}

inline void forward(const float2* in, float2* out, int log2n, long long batch, void*, cudaStream_t stream) {
  const long long total = batch << log2n;
  if (total == 0) return;
  dft<<<static_cast<unsigned>((total + kThreads - 1) / kThreads), kThreads, 0, stream>>>(in, out, log2n, total);
  TUT_CHECK_LAUNCH();
}

}  // namespace dft_exact_phase
