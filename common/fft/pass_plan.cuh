// The pass plan of the register-based block FFTs (chapters 33-38), shared unchanged: how an N-point FFT by
// T = N / E threads of E values each splits into Stockham passes, the butterflies of one pass, which signal
// element each value is before and after the transform, and the direct loads and stores by those positions.
// A chapter picks E, the twiddles and its exchanges (and what it adds, such as padding); the rest follows.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "dft_registers.cuh"

namespace tut::fft {

// Passes of radix E while E divides what is left, then one pass of the remaining radix N / E^k (<= E):
// N = 2048, E = 16 is 16 x 16 x 8; N = 64, E = 8 is 8 x 8. Pass p follows passes whose radices multiply to
// stride(p), the Stockham Ns of stockham_output_index.
template <int N, int E>
struct PassPlan {
  static_assert(N >= 4 && (N & (N - 1)) == 0, "N is a power of two");
  static_assert(E >= 2 && E < N && (E & (E - 1)) == 0, "E is a power of two below N");
  static constexpr int kPerThread = E;
  static constexpr int kThreads = N / E;                                // T
  static constexpr int kPasses = (ilog2(N) + ilog2(E) - 1) / ilog2(E);  // ceil(log N / log E)
  static constexpr int kLastRadix = N >> (ilog2(E) * (kPasses - 1));    // <= E
  __host__ __device__ static constexpr int radix(int pass) { return pass + 1 < kPasses ? E : kLastRadix; }
  __host__ __device__ static constexpr int stride(int pass) { return 1 << (ilog2(E) * pass); }
};
static_assert(PassPlan<2048, 16>::kPasses == 3 && PassPlan<2048, 16>::radix(1) == 16 &&
                  PassPlan<2048, 16>::radix(2) == 8 && PassPlan<2048, 16>::stride(2) == 256,
              "2048 = 16 x 16 x 8");
static_assert(PassPlan<64, 8>::kPasses == 2 && PassPlan<64, 8>::kLastRadix == 8 && PassPlan<64, 8>::kThreads == 8,
              "64 = 8 x 8");
static_assert(PassPlan<16384, 32>::kPasses == 3 && PassPlan<16384, 32>::kLastRadix == 16, "16384 = 32 x 32 x 16");

// Which element of the signal v[i] holds, for thread t: before the FFT (pass 0 is radix E, butterfly t reads
// elements t + i T: consecutive threads, consecutive elements) and after it (the last pass, Ns R = N, writes
// output r of butterfly j to j + r N/R: consecutive again). Plan: a PassPlan or a type derived from one.
template <class Plan>
__device__ __forceinline__ int input_element(int t, int i) {
  return t + i * Plan::kThreads;
}
template <class Plan>
__device__ __forceinline__ int output_element(int t, int i) {
  constexpr int Rl = Plan::kLastRadix, T = Plan::kThreads, N = Plan::kPerThread * T;
  return t + (i / Rl) * T + (i % Rl) * (N / Rl);
}

// Pass kPass's arithmetic on thread t's E values in v: E / R butterflies of radix R = Plan::radix(kPass), butterfly
// b being j = t + b T; v[b R + r] holds its input r on entry, output r on exit. Input r is first multiplied by
// W_(Ns R)^(r (j mod Ns)), Ns = Plan::stride(kPass), which Twiddle::at(m, n) = exp(-2 pi i m / n) supplies: the
// one thing the stages change here (sincospif, a table).
// A Twiddle may instead twiddle a butterfly's inputs at once (kByButterfly = true and a static inputs<R>(v, k, n):
// v[r] *= W_n^(r k)), as PowersTwiddle does.
template <class Twiddle, class = void>
struct twiddles_by_butterfly : std::false_type {};
template <class Twiddle>
struct twiddles_by_butterfly<Twiddle, std::void_t<decltype(Twiddle::kByButterfly)>>
    : std::bool_constant<Twiddle::kByButterfly> {};

template <class Plan, int kPass, class Twiddle>
__device__ __forceinline__ void butterflies(float2* v, int t) {
  constexpr int E = Plan::kPerThread, T = Plan::kThreads, R = Plan::radix(kPass), Ns = Plan::stride(kPass);
#pragma unroll
  for (int b = 0; b < E / R; ++b) {
    const int j = t + b * T;
    if (Ns > 1) {
      const int k = j % Ns;
      if constexpr (twiddles_by_butterfly<Twiddle>::value) {
        Twiddle::template inputs<R>(v + b * R, k, Ns * R);
      } else {
#pragma unroll
        for (int r = 1; r < R; ++r) v[b * R + r] = cmul(v[b * R + r], Twiddle::at(r * k, Ns * R));
      }
    }
    dft_in_registers<R>(v + b * R);
  }
}

// The Twiddle of butterflies that computes each factor by sincospif on its exact phase (complex.cuh).
struct SincospifTwiddle {
  static __device__ __forceinline__ float2 at(int m, int n) { return twiddle(m, n); }
};

// The Twiddle of butterflies that twiddles a butterfly's inputs together: sincospif at the powers of two, products
// for the rest (complex.cuh's twiddle_inputs), about log2(R) sincospif per butterfly instead of R - 1.
struct PowersTwiddle {
  static constexpr bool kByButterfly = true;
  template <int R>
  static __device__ __forceinline__ void inputs(float2* v, int k, int n) {
    twiddle_inputs<R>(v, k, n);
  }
};

// The four-step's twiddle on thread t's outputs of a column FFT (Plan's N1 = E T points) of column j2:
// v[i] *= W_n^(j2 k1), k1 = output_element<Plan>(t, i), j2 k1 < n (n, the four-step's N, beyond the twiddle table).
// As Twiddle makes a butterfly's factors: one sincospif each on the exact phase; or, for a Twiddle that twiddles by
// butterfly (PowersTwiddle), by powers: k1 = t + s T with s = q + Q l for i = q Rl + l (Rl = Plan::kLastRadix,
// Q = E / Rl: output_element), s a permutation of 0 .. E - 1, so the factor is W_n^(j2 t) W_n^(s j2 T). One sincospif
// for the first, then Twiddle::inputs<E> on the values in s order for the second: 1 + log2(E) sincospif instead of E
// (5 for E = 16), each value at most 5 complex products from sincospif values: inputs<E>'s 4, and one for
// W_n^(j2 t). Up to E = 16: beside 32 values the 16 factors of inputs<32> spilled (chapter 37's c8-e32, 128
// registers), so E = 32 keeps one sincospif per value.
template <class Plan, class Twiddle>
__device__ __forceinline__ void twiddle_outputs(float2 (&v)[Plan::kPerThread], int t, int j2, int n) {
  constexpr int E = Plan::kPerThread, T = Plan::kThreads, Rl = Plan::kLastRadix, Q = E / Rl;
  if constexpr (twiddles_by_butterfly<Twiddle>::value && E <= 16) {
    const float2 first = twiddle(j2 * t, n);
    float2 u[E];  // u[s]: the value whose k1 is t + s T (register renaming once unrolled)
#pragma unroll
    for (int i = 0; i < E; ++i) u[i / Rl + Q * (i % Rl)] = cmul(v[i], first);
    Twiddle::template inputs<E>(u, j2 * T, n);
#pragma unroll
    for (int i = 0; i < E; ++i) v[i] = u[i / Rl + Q * (i % Rl)];
  } else {
#pragma unroll
    for (int i = 0; i < E; ++i) v[i] = cmul(v[i], twiddle(j2 * output_element<Plan>(t, i), n));
  }
}

// One signal's values between global memory and registers, direct: v[i] = x[input_element(t, i)] before the FFT
// (32 consecutive threads read 32 consecutive complex values: 256 bytes, whole sectors), x[output_element(t, i)]
// = v[i] after it. A thread whose signal does not exist (active false) loads zeros and stores nothing.
template <class Plan>
__device__ __forceinline__ void load_direct(float2 (&v)[Plan::kPerThread], const float2* src, bool active, int t) {
#pragma unroll
  for (int i = 0; i < Plan::kPerThread; ++i) v[i] = active ? src[input_element<Plan>(t, i)] : make_float2(0.f, 0.f);
}
template <class Plan>
__device__ __forceinline__ void store_direct(const float2 (&v)[Plan::kPerThread], float2* dst, bool active, int t) {
  if (!active) return;
#pragma unroll
  for (int i = 0; i < Plan::kPerThread; ++i) dst[output_element<Plan>(t, i)] = v[i];
}

}  // namespace tut::fft
