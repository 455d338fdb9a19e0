// Stage 30: the direct DFT, O(N^2) per signal. One thread computes one output X[k] of one signal as the sum
// over j of x[j] * exp(-2*pi*i*j*k/N). The baseline every FFT is measured against: correct by construction,
// simple, and N times more work than it needs.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "complex.cuh"
#include "cuda_check.cuh"

namespace fft_dft {

constexpr int kThreads = 256;
// The inner sum runs in chunks of kChunk terms, each chunk summed on its own and then added to the total:
// the rounding error of a float sum of N terms grows like sqrt(N) when summed one after another, and like
// sqrt(kChunk) + sqrt(N / kChunk) in two levels (about 16 ulps instead of 90 at N = 2^14).
constexpr int kChunk = 64;
// Longest length supported: the work grows as N^2, so a 1 GiB batch at N = 2^14 already takes seconds per run
// (2^41 complex multiply-adds), and 2^15 would take four times longer for no new lesson.
constexpr int kMaxLog2n = 14;
static_assert((kThreads & (kThreads - 1)) == 0, "the thread count must be a power of two");

__device__ __forceinline__ float2 complex_mul_add(float2 a, float2 b, float2 acc) {
  acc.x = fmaf(a.x, b.x, fmaf(-a.y, b.y, acc.x));
  acc.y = fmaf(a.x, b.y, fmaf(a.y, b.x, acc.y));
  return acc;
}

// One thread per output element: element `index` of the batch is X[k] of signal index / N.
__global__ void __launch_bounds__(kThreads) dft_direct(const float2* __restrict__ in, float2* __restrict__ out,
                                                       int log2n, long long total) {
  const long long index = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (index >= total) return;
  const unsigned n = 1u << log2n;
  const unsigned k = static_cast<unsigned>(index) & (n - 1);
  const float2* x = in + (index - k);  // the signal's first element
  const float two_over_n = 2.0f / static_cast<float>(n);
  float2 sum = make_float2(0.f, 0.f);
  for (unsigned j0 = 0; j0 < n; j0 += kChunk) {
    float2 part = make_float2(0.f, 0.f);
    const unsigned chunk = n < kChunk ? n : kChunk;
    for (unsigned j = j0; j < j0 + chunk; ++j)
      // W_N^(jk) = exp(-i pi (jk mod N) 2/N) with the exact phase (tut::fft::twiddle_pi): j * k reduced mod N
      // exactly (unsigned arithmetic wraps modulo 2^32, a multiple of N), times 2/N, a power of two. Forming
      // 2*pi*j*k/N in float instead would round j*k (up to 2^28) to 24 bits and the angle by up to pi/8 radians.
      part = complex_mul_add(x[j], tut::fft::twiddle_pi((j * k) & (n - 1), two_over_n), part);
    sum.x += part.x;
    sum.y += part.y;
  }
  out[index] = sum;
}

inline void forward(const float2* in, float2* out, int log2n, long long batch, void*, cudaStream_t stream) {
  const long long total = batch << log2n;
  if (total == 0) return;
  const long long blocks = (total + kThreads - 1) / kThreads;
  dft_direct<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(in, out, log2n, total);
  TUT_CHECK_LAUNCH();
}

}  // namespace fft_dft
