// Exercise 32 (solution): all radix-2 Stockham passes of a signal in shared memory, the kernel of chapter 32
// for N <= 4096. The exercise is the exchange between passes: in place in shared memory, with barriers.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>

#include "cuda_check.cuh"

namespace shared_exchange {

constexpr int kThreads = 256;
constexpr int kMaxLog2n = 12;  // 4096 float2 = 32 KiB of shared memory

__device__ __forceinline__ float2 twiddle(unsigned p, unsigned ns) {
  float s, c;
  sincospif(static_cast<float>(p) / static_cast<float>(ns), &s, &c);
  return make_float2(c, -s);
}

__device__ __forceinline__ float2 complex_mul(float2 a, float2 b) {
  return make_float2(fmaf(a.x, b.x, -a.y * b.y), fmaf(a.x, b.y, a.y * b.x));
}

// kThreads threads do the N/2 butterflies of each of the block's signals: several signals per block when
// N < 512, several butterflies per thread when N > 512.
template <int kLog2n>
struct Shape {
  static constexpr int kN = 1 << kLog2n;
  static constexpr int kSignalsPerBlock = kN / 2 >= kThreads ? 1 : 2 * kThreads / kN;
  static constexpr int kButterfliesPerThread = kN / 2 >= kThreads ? kN / 2 / kThreads : 1;
};

template <int kLog2n>
__global__ void __launch_bounds__(kThreads) fft_shared(const float2* __restrict__ in, float2* __restrict__ out,
                                                       long long batch) {
  using S = Shape<kLog2n>;
  constexpr int kN = S::kN, kHalf = kN / 2, kB = S::kButterfliesPerThread;
  __shared__ float2 data[S::kSignalsPerBlock * kN];
  const long long first = static_cast<long long>(blockIdx.x) * S::kSignalsPerBlock;
  const int signals = batch - first < S::kSignalsPerBlock ? static_cast<int>(batch - first) : S::kSignalsPerBlock;
  const int valid = signals * kN;
  for (int i = threadIdx.x; i < valid; i += kThreads) data[i] = in[first * kN + i];
  __syncthreads();

  for (int log2ns = 0; log2ns < kLog2n; ++log2ns) {
    const unsigned ns = 1u << log2ns;
    // Read every input of this thread's butterflies into registers before anyone writes: the pass works in
    // place, and another thread's output position may be this thread's input position.
    float2 sum[kB], diff[kB];
#pragma unroll
    for (int q = 0; q < kB; ++q) {
      const int t = threadIdx.x + q * kThreads, signal = t >> (kLog2n - 1);
      const unsigned j = t & (kHalf - 1);
      if (signal < signals) {
        const float2 a = data[signal * kN + j];
        const float2 b = complex_mul(data[signal * kN + j + kHalf], twiddle(j & (ns - 1), ns));
        sum[q] = make_float2(a.x + b.x, a.y + b.y);
        diff[q] = make_float2(a.x - b.x, a.y - b.y);
      }
    }
    __syncthreads();  // all reads of this pass are done: writing is safe
#pragma unroll
    for (int q = 0; q < kB; ++q) {
      const int t = threadIdx.x + q * kThreads, signal = t >> (kLog2n - 1);
      const unsigned j = t & (kHalf - 1);
      if (signal < signals) {
        const unsigned d = ((j >> log2ns) << (log2ns + 1)) + (j & (ns - 1));
        data[signal * kN + d] = sum[q];
        data[signal * kN + d + ns] = diff[q];
      }
    }
    __syncthreads();  // all writes of this pass are visible to the next pass (and to the final store)
  }

  for (int i = threadIdx.x; i < valid; i += kThreads) out[first * kN + i] = data[i];
}

template <int kLog2n>
void launch(const float2* in, float2* out, long long batch, cudaStream_t stream) {
  constexpr int kPer = Shape<kLog2n>::kSignalsPerBlock;
  fft_shared<kLog2n><<<static_cast<unsigned>((batch + kPer - 1) / kPer), kThreads, 0, stream>>>(in, out, batch);
  TUT_CHECK_LAUNCH();
}

// N = 8 .. 4096.
inline void forward(const float2* in, float2* out, int log2n, long long batch, void*, cudaStream_t stream) {
  if (batch == 0) return;
  switch (log2n) {
    case 3: return launch<3>(in, out, batch, stream);
    case 4: return launch<4>(in, out, batch, stream);
    case 5: return launch<5>(in, out, batch, stream);
    case 6: return launch<6>(in, out, batch, stream);
    case 7: return launch<7>(in, out, batch, stream);
    case 8: return launch<8>(in, out, batch, stream);
    case 9: return launch<9>(in, out, batch, stream);
    case 10: return launch<10>(in, out, batch, stream);
    case 11: return launch<11>(in, out, batch, stream);
    case 12: return launch<12>(in, out, batch, stream);
    default: throw std::invalid_argument("shared_exchange: N must be 8 .. 4096");
  }
}

}  // namespace shared_exchange
