// The R-point DFT of values held in one thread's registers (R = 2, 4, ..., 64), with its twiddles folded to
// immediate operands: the butterfly of the register-based FFT chapters (33-35), shared unchanged.
#pragma once

#include <cuda_runtime.h>

#include "complex.cuh"

namespace tut::fft {

__host__ __device__ constexpr int ilog2(int x) { return x <= 1 ? 0 : 1 + ilog2(x / 2); }

// cos(r pi / 32) for r = 0..16. Called only with indices that are constants after unrolling, so the switch
// folds away and the butterflies' twiddles become immediate operands.
__device__ __forceinline__ float cos_pi_over_32(int r) {
  switch (r) {
    case 0: return 1.0f;
    case 1: return 0.99518472667219689f;
    case 2: return 0.98078528040323043f;
    case 3: return 0.95694033573220882f;
    case 4: return 0.92387953251128674f;
    case 5: return 0.88192126434835505f;
    case 6: return 0.83146961230254524f;
    case 7: return 0.77301045336273697f;
    case 8: return 0.70710678118654752f;
    case 9: return 0.63439328416364549f;
    case 10: return 0.55557023301960222f;
    case 11: return 0.47139673682599764f;
    case 12: return 0.38268343236508977f;
    case 13: return 0.29028467725446233f;
    case 14: return 0.19509032201612825f;
    case 15: return 0.09801714032956060f;
    default: return 0.0f;
  }
}

// v * exp(-2 pi i m / 64) for a compile-time m (after unrolling). Multiples of a quarter turn are exact
// (a swap and sign changes); the rest is one complex multiply by constants.
__device__ __forceinline__ float2 rotate_by_64ths(float2 v, int m) {
  m &= 63;
  const int quarter = m / 16, r = m % 16;
  // (-i)^quarter first: (x + iy)(-i) = y - ix
  for (int q = 0; q < quarter; ++q) v = make_float2(v.y, -v.x);
  if (r == 0) return v;
  const float c = cos_pi_over_32(r), s = cos_pi_over_32(16 - r);  // angle r pi / 32: (cos, sin)
  return cmul(v, make_float2(c, -s));
}

// The R-point DFT of v[0..R) in registers (R a power of two, 2..64): radix-2 decimation in frequency, then
// the bit-reversal permutation, which after unrolling is only a renaming of registers.
template <int R>
__device__ __forceinline__ void dft_in_registers(float2* v) {
  static_assert(R >= 2 && R <= 64 && (R & (R - 1)) == 0, "the register DFT handles R = 2, 4, ..., 64");
  constexpr int kBits = ilog2(R);
#pragma unroll
  for (int stage = 0; stage < kBits; ++stage) {
    const int half = R >> (stage + 1);  // butterfly span
#pragma unroll
    for (int base = 0; base < R; base += 2 * half) {
#pragma unroll
      for (int k = 0; k < half; ++k) {
        const float2 a = v[base + k], b = v[base + k + half];
        v[base + k] = cadd(a, b);
        v[base + k + half] = rotate_by_64ths(csub(a, b), k * (64 / (2 * half)));  // * W_(2 half)^k
      }
    }
  }
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int j = static_cast<int>(__brev(static_cast<unsigned>(i)) >> (32 - kBits));  // folds: i is constant
    if (j > i) {
      const float2 t = v[i];
      v[i] = v[j];
      v[j] = t;
    }
  }
}

// Every FFT pass of chapters 33-35 is a Stockham autosort pass (Stockham; in this form Govindaraju et al.,
// "High performance discrete Fourier transforms on graphics processors", SC08): a pass of radix R after passes
// whose radices multiply to Ns takes butterfly j's inputs at j + r N/R (r < R), multiplies input r by
// W_(Ns R)^(r (j mod Ns)) and writes output r to stockham_output_index<R, Ns>(j, r). The last pass leaves the
// result in natural order, so no bit reversal is needed, and the first pass reads and the last pass writes
// consecutive addresses with consecutive threads: both touch global memory directly, coalesced.
template <int R, int Ns>
__device__ __forceinline__ int stockham_output_index(int j, int r) {
  return (j / Ns) * Ns * R + j % Ns + r * Ns;
}

}  // namespace tut::fft
