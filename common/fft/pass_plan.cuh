// The pass plan of the register-based block FFTs (chapters 33-38), shared unchanged: how an N-point FFT by
// T = N / E threads of E values each splits into Stockham passes, and which signal element each value is before
// and after the transform. A chapter picks E (and what it adds, such as padding); the plan follows from it.
#pragma once

#include <cuda_runtime.h>

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

}  // namespace tut::fft
