// Exercise 30 (solution): the direct DFT of chapter 30, whose twiddle factor exp(-2*pi*i*j*k/N) must be as
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
  // The phase j*k/N only matters modulo 1, so reduce the integer j*k modulo N first, exactly: unsigned
  // arithmetic wraps modulo 2^32, a multiple of N, and the mask keeps the low log2n bits.
  const unsigned p = (j * k) & ((1u << log2n) - 1u);
  // sincospif(x) = (sin(pi x), cos(pi x)). x = 2p/N is a dyadic fraction with at most 24 significant bits,
  // exact in float; sincospif rounds once (about one ulp). The angle in radians, 2*pi*j*k/N in float, would
  // round j*k and the product with pi and lose up to pi/8 for large j*k.
  const float x = static_cast<float>(p) * (2.0f / static_cast<float>(1u << log2n));
  float s, c;
  sincospif(x, &s, &c);
  return make_float2(c, -s);
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
