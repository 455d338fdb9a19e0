// Stage 31: the radix-2 Stockham autosort FFT, one kernel launch per pass. Each of the log2 N passes reads the
// whole batch from global memory, does one radix-2 butterfly per pair of elements, and writes the whole batch
// back, ping-ponging between the output and a workspace of the same size. O(N log N) work instead of the
// DFT's O(N^2), but log2 N round trips through DRAM instead of one.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda_check.cuh"

namespace fft_stockham_global {

constexpr int kThreads = 256;
static_assert((kThreads & (kThreads - 1)) == 0, "the thread count must be a power of two");

// exp(-2*pi*i*p/(2*ns)) = exp(-pi*i*p/ns) for 0 <= p < ns: sincospif takes its argument in units of pi, and
// p/ns is a dyadic fraction (ns is a power of two), exact in float, so the only rounding is sincospif's own
// (about one ulp). No table, no recurrence: every twiddle is as accurate as float allows.
__device__ __forceinline__ float2 twiddle(unsigned p, float inv_ns) {
  float s, c;
  sincospif(static_cast<float>(p) * inv_ns, &s, &c);
  return make_float2(c, -s);
}

__device__ __forceinline__ float2 complex_mul(float2 a, float2 b) {
  return make_float2(fmaf(a.x, b.x, -a.y * b.y), fmaf(a.x, b.y, a.y * b.x));
}

// One Stockham radix-2 pass, ns = 2^log2ns the length of the sub-transforms already done (1, 2, 4, ..., N/2).
// Butterfly j of a signal reads x[j] and x[j + N/2] (both coalesced across a warp), multiplies the second by
// the twiddle of its position p = j mod ns inside its sub-transform, and writes the sum and difference to
// positions d and d + ns of the output, d = (j / ns) * 2ns + p: the pass merges pairs of length-ns transforms
// into length-2ns transforms and sorts them as it goes, so no bit-reversal is ever needed.
__global__ void __launch_bounds__(kThreads) stockham_radix2_pass(const float2* __restrict__ in,
                                                                 float2* __restrict__ out, int log2n, int log2ns,
                                                                 long long butterflies) {
  const long long t = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (t >= butterflies) return;
  const unsigned half = 1u << (log2n - 1);
  const unsigned j = static_cast<unsigned>(t) & (half - 1);
  const long long base = (t >> (log2n - 1)) << log2n;  // the signal's first element
  const unsigned ns = 1u << log2ns;
  const unsigned p = j & (ns - 1);
  const float2 a = in[base + j];
  const float2 b = complex_mul(in[base + j + half], twiddle(p, 1.0f / static_cast<float>(ns)));
  const unsigned d = ((j >> log2ns) << (log2ns + 1)) + p;
  out[base + d] = make_float2(a.x + b.x, a.y + b.y);
  out[base + d + ns] = make_float2(a.x - b.x, a.y - b.y);
}

// One batch's worth of float2: the second buffer of the ping-pong.
inline std::size_t workspace_bytes(int log2n, long long batch) {
  return static_cast<std::size_t>(batch << log2n) * sizeof(float2);
}

// log2 N launches. Pass s reads what pass s-1 wrote (the input for s = 0) and writes to `out` when an even
// number of passes remain after it, else to the workspace, so the last pass lands in `out` and `in` is
// never written.
inline void forward(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                    cudaStream_t stream) {
  const long long butterflies = batch << (log2n - 1);
  if (butterflies == 0) return;
  const unsigned blocks = static_cast<unsigned>((butterflies + kThreads - 1) / kThreads);
  float2* scratch = static_cast<float2*>(workspace);
  const float2* src = in;
  for (int s = 0; s < log2n; ++s) {
    float2* dst = (log2n - 1 - s) % 2 == 0 ? out : scratch;
    stockham_radix2_pass<<<blocks, kThreads, 0, stream>>>(src, dst, log2n, s, butterflies);
    TUT_CHECK_LAUNCH();
    src = dst;
  }
}

}  // namespace fft_stockham_global
