// Complex arithmetic on float2 (x = real, y = imaginary) and twiddle factors by an exact phase: the device
// building blocks every FFT chapter (30-38) shares unchanged. Chapters call these; none keeps a copy.
#pragma once

#include <cuda_runtime.h>

namespace tut::fft {

__device__ __forceinline__ float2 cadd(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float2 csub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// a * b with the fused multiply-adds written out, so that the rounding does not depend on which products
// ptxas chooses to fuse (the radix-2 chapters 31 and 32, whose READMEs quote its error bound).
__device__ __forceinline__ float2 cmul_fma(float2 a, float2 b) {
  return make_float2(fmaf(a.x, b.x, -a.y * b.y), fmaf(a.x, b.y, a.y * b.x));
}

// exp(-i pi p s): the twiddle whose angle is p * s half-turns, for an integer p and a power of two s (2/N for
// the DFT's W_N^p, 1/ns for a radix-2 pass's W_(2 ns)^p). p * s is then a dyadic fraction, exact in float,
// and sincospif takes its argument in units of pi, so the only rounding is sincospif's own (about one ulp).
// Forming the angle in radians in float instead would round p and the product with pi.
__device__ __forceinline__ float2 twiddle_pi(unsigned p, float s) {
  float sin_v, cos_v;
  sincospif(static_cast<float>(p) * s, &sin_v, &cos_v);
  return make_float2(cos_v, -sin_v);
}

// exp(-2 pi i m / n) for run-time m < n <= 2^24, n a power of two: -2m/n is exact in float, and sincospif
// takes its argument in units of pi, so no reduction error enters (chapters 33-35's per-pass twiddles).
__device__ __forceinline__ float2 twiddle(int m, int n) {
  float s, c;
  sincospif(-2.0f * static_cast<float>(m) / static_cast<float>(n), &s, &c);
  return make_float2(c, s);
}

// A radix-R butterfly's inputs times their twiddles, v[r] *= exp(-2 pi i r k / n) for r = 1 .. R - 1 (r k < n as
// above), with about log2(R) sincospif instead of R - 1. Up to r = 15 the factors at powers of two h come from
// sincospif on the exact phase, and w[h + l] = w[h] w[l] for l < h; each is applied as soon as it is made, so the
// last group's die at once. From r = 16 on, r = 16 q + l takes w[l] times one more sincospif factor per q, so that
// at most 16 factors sit in registers beside v (R = 32 and 64). No factor is more than 4 products from sincospif
// (each product adds about one ulp); sincospif calls: 4 for R = 16, 5 for 32, 7 for 64.
template <int R>
__device__ __forceinline__ void twiddle_inputs(float2* v, int k, int n) {
  static_assert(R >= 2 && R <= 64 && (R & (R - 1)) == 0, "R is a power of two, 2..64");
  constexpr int G = R < 16 ? R : 16;
  float2 w[G];
#pragma unroll
  for (int h = 1; h < G; h *= 2) {
    w[h] = twiddle(h * k, n);
    v[h] = cmul(v[h], w[h]);
#pragma unroll
    for (int l = 1; l < h; ++l) {
      w[h + l] = cmul(w[h], w[l]);  // h < h + l < 2h
      v[h + l] = cmul(v[h + l], w[h + l]);
    }
  }
#pragma unroll
  for (int q = 1; q < R / G; ++q) {
    const float2 wq = twiddle(q * G * k, n);
    v[q * G] = cmul(v[q * G], wq);
#pragma unroll
    for (int l = 1; l < G; ++l) v[q * G + l] = cmul(v[q * G + l], cmul(wq, w[l]));
  }
}

}  // namespace tut::fft
