// Exercise 31: one radix-2 Stockham pass, the kernel chapter 31 launches log2 N times.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda_check.cuh"

namespace stockham_pass {

constexpr int kThreads = 256;
constexpr int kMaxLog2n = 16;  // longest length tested

// exp(-pi*i*p/ns): the twiddle of position p of a sub-transform of length 2*ns (exact argument for sincospif).
__device__ __forceinline__ float2 twiddle(unsigned p, unsigned ns) {
  float s, c;
  sincospif(static_cast<float>(p) / static_cast<float>(ns), &s, &c);
  return make_float2(c, -s);
}

__device__ __forceinline__ float2 complex_mul(float2 a, float2 b) {
  return make_float2(fmaf(a.x, b.x, -a.y * b.y), fmaf(a.x, b.y, a.y * b.x));
}

// Pass with sub-transforms of length ns = 2^log2ns done; thread t does butterfly t of the batch
// (butterfly j = t mod N/2 of signal t / (N/2)).
__global__ void __launch_bounds__(kThreads) radix2_pass(const float2* __restrict__ in, float2* __restrict__ out,
                                                        int log2n, int log2ns, long long butterflies) {
  const long long t = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (t >= butterflies) return;
  const unsigned half = 1u << (log2n - 1);
  const long long base = (t >> (log2n - 1)) << log2n;  // the signal's first element
  const unsigned j = static_cast<unsigned>(t) & (half - 1);
  // TODO: the butterfly of this pass (sub-transforms of length ns = 2^log2ns are done; this pass merges pairs
  // of them into sub-transforms of length 2 ns). Read a = x[j] and b = x[j + N/2] of this signal, multiply b
  // by twiddle(p, ns) where p is j's position inside its sub-transform, and write a + b and a - b to the
  // positions d and d + ns of `out`, d being where the merged sub-transform of j starts plus p. As shipped
  // the pass copies its input, so the result is the input, not its transform.
  (void)log2ns;
  out[base + j] = in[base + j];
  out[base + j + half] = in[base + j + half];
}

inline std::size_t workspace_bytes(int log2n, long long batch) {
  return static_cast<std::size_t>(batch << log2n) * sizeof(float2);
}

// log2 N passes, ping-pong between `out` and the workspace; the last pass writes `out`.
inline void forward(const float2* in, float2* out, int log2n, long long batch, void* workspace, cudaStream_t stream) {
  const long long butterflies = batch << (log2n - 1);
  if (butterflies == 0) return;
  const unsigned blocks = static_cast<unsigned>((butterflies + kThreads - 1) / kThreads);
  const float2* src = in;
  for (int s = 0; s < log2n; ++s) {
    float2* dst = (log2n - 1 - s) % 2 == 0 ? out : static_cast<float2*>(workspace);
    radix2_pass<<<blocks, kThreads, 0, stream>>>(src, dst, log2n, s, butterflies);
    TUT_CHECK_LAUNCH();
    src = dst;
  }
}

}  // namespace stockham_pass
