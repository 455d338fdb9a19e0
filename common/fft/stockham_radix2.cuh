// The radix-2 Stockham autosort FFT with one launch per pass through global memory: chapter 31's stage, and
// chapter 32's fallback for signals longer than its shared memory holds, shared unchanged.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "complex.cuh"
#include "cuda_check.cuh"

namespace tut::fft {

constexpr int kRadix2PassThreads = 256;
static_assert((kRadix2PassThreads & (kRadix2PassThreads - 1)) == 0, "the thread count must be a power of two");

// One Stockham radix-2 pass, ns = 2^log2ns the length of the sub-transforms already done (1, 2, 4, ..., N/2).
// Butterfly j of a signal reads x[j] and x[j + N/2] (both coalesced across a warp), multiplies the second by
// the twiddle of its position p = j mod ns inside its sub-transform, and writes the sum and difference to
// positions d and d + ns of the output, d = (j / ns) * 2ns + p: the pass merges pairs of length-ns transforms
// into length-2ns transforms and sorts them as it goes, so no bit-reversal is ever needed.
__global__ void __launch_bounds__(kRadix2PassThreads) stockham_radix2_pass(const float2* __restrict__ in,
                                                                           float2* __restrict__ out, int log2n,
                                                                           int log2ns, long long butterflies) {
  const long long t = static_cast<long long>(blockIdx.x) * kRadix2PassThreads + threadIdx.x;
  if (t >= butterflies) return;
  const unsigned half = 1u << (log2n - 1);
  const unsigned j = static_cast<unsigned>(t) & (half - 1);
  const long long base = (t >> (log2n - 1)) << log2n;  // the signal's first element
  const unsigned ns = 1u << log2ns;
  const unsigned p = j & (ns - 1);
  const float2 a = in[base + j];
  // W_(2 ns)^p = exp(-i pi p / ns)
  const float2 b = cmul_fma(in[base + j + half], twiddle_pi(p, 1.0f / static_cast<float>(ns)));
  const unsigned d = ((j >> log2ns) << (log2ns + 1)) + p;
  out[base + d] = make_float2(a.x + b.x, a.y + b.y);
  out[base + d + ns] = make_float2(a.x - b.x, a.y - b.y);
}

// One batch's worth of float2: the second buffer of the ping-pong.
inline std::size_t radix2_passes_workspace_bytes(int log2n, long long batch) {
  return static_cast<std::size_t>(batch << log2n) * sizeof(float2);
}

// log2 N launches. Pass s reads what pass s-1 wrote (the input for s = 0) and writes to `out` when an even
// number of passes remain after it, else to the workspace, so the last pass lands in `out` and `in` is
// never written.
inline void radix2_passes(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                          cudaStream_t stream) {
  const long long butterflies = batch << (log2n - 1);
  if (butterflies == 0) return;
  const unsigned blocks = static_cast<unsigned>((butterflies + kRadix2PassThreads - 1) / kRadix2PassThreads);
  float2* scratch = static_cast<float2*>(workspace);
  const float2* src = in;
  for (int s = 0; s < log2n; ++s) {
    float2* dst = (log2n - 1 - s) % 2 == 0 ? out : scratch;
    stockham_radix2_pass<<<blocks, kRadix2PassThreads, 0, stream>>>(src, dst, log2n, s, butterflies);
    TUT_CHECK_LAUNCH();
    src = dst;
  }
}

}  // namespace tut::fft
