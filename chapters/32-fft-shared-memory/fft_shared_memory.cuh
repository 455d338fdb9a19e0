// Stage 32: the same radix-2 Stockham passes as stage 31, but all of them inside one kernel, on a copy of the
// signal in shared memory: one block loads its signal from global memory once, runs the log2 N passes with a
// barrier between them, and stores the result once. DRAM traffic drops from log2 N round trips to one; the
// price is two __syncthreads() per pass and a signal that must fit in shared memory (N <= 4096 here).
// Longer signals fall back to stage 31's one launch per pass (common/fft/stockham_radix2.cuh, unchanged).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "complex.cuh"
#include "cuda_check.cuh"
#include "stockham_radix2.cuh"

namespace fft_shared_memory {

constexpr int kThreads = 256;  // the stage's block
// Longest signal done in shared memory: 4096 float2 = 32 KiB, within the 48 KiB of static shared memory every
// GPU gives a block without opting in, and small enough that several blocks share an SM.
constexpr int kMaxSharedLog2n = 12;
static_assert((kThreads & (kThreads - 1)) == 0, "the thread count must be a power of two");
static_assert((std::size_t{1} << kMaxSharedLog2n) * 8 <= 48 * 1024, "the longest signal must fit in 48 KiB");

// ---- N <= 4096: the whole signal in shared memory ---------------------------------------------------------

// The block's shape for signals of 2^kLog2n and blocks of kBlock threads (256 for the stage): kBlock threads do
// the N/2 butterflies of each signal per pass. A signal with fewer butterflies than threads (N < 2 kBlock) shares
// the block with others, so that short signals still get full blocks; a longer one gives each thread several
// butterflies.
template <int kLog2n, int kBlock>
struct SharedShape {
  static constexpr int kN = 1 << kLog2n;
  static constexpr int kSignalsPerBlock = kN / 2 >= kBlock ? 1 : 2 * kBlock / kN;
  static constexpr int kButterfliesPerThread = kN / 2 >= kBlock ? kN / 2 / kBlock : 1;
  static constexpr int kElements = kSignalsPerBlock * kN;
  static_assert((kBlock & (kBlock - 1)) == 0 && kBlock <= 1024, "blocks of a power of two threads, at most 1024");
  static_assert(kSignalsPerBlock * kN / 2 == kBlock * kButterfliesPerThread, "every butterfly has one thread");
  static_assert(kElements * 8 <= 48 * 1024, "the block's signals must fit in 48 KiB of shared memory");
};

// All log2 N passes of one block's signals in shared memory. The pass body is stage 31's butterfly, with
// `data` in shared memory in place of the global ping-pong: each thread first reads all of its butterflies'
// inputs into registers, a barrier makes sure every thread has read before anyone overwrites, then each
// thread writes its results in place, and a second barrier makes them visible to the next pass.
template <int kLog2n, int kBlock>
__global__ void __launch_bounds__(kBlock) stockham_shared(const float2* __restrict__ in, float2* __restrict__ out,
                                                          long long batch) {
  using Shape = SharedShape<kLog2n, kBlock>;
  constexpr int kN = Shape::kN, kHalf = kN / 2;
  __shared__ float2 data[Shape::kElements];

  const long long first_signal = static_cast<long long>(blockIdx.x) * Shape::kSignalsPerBlock;
  const long long left = batch - first_signal;
  const int signals = left < Shape::kSignalsPerBlock ? static_cast<int>(left) : Shape::kSignalsPerBlock;
  const int valid = signals * kN;  // elements this block owns (fewer in the last block of a ragged batch)
  const float2* src = in + first_signal * kN;
  float2* dst = out + first_signal * kN;

  // One coalesced read of the block's signals, which lie next to each other in global memory.
  for (int i = threadIdx.x; i < valid; i += kBlock) data[i] = src[i];
  __syncthreads();

#pragma unroll 1
  for (int log2ns = 0; log2ns < kLog2n; ++log2ns) {
    const unsigned ns = 1u << log2ns;
    const float inv_ns = 1.0f / static_cast<float>(ns);
    float2 sum[Shape::kButterfliesPerThread], diff[Shape::kButterfliesPerThread];
#pragma unroll
    for (int q = 0; q < Shape::kButterfliesPerThread; ++q) {
      const int t = threadIdx.x + q * kBlock;  // the block's butterfly
      const int signal = t >> (kLog2n - 1);
      const unsigned j = t & (kHalf - 1);
      if (signal < signals) {
        const float2* x = data + signal * kN;
        const float2 a = x[j];
        const float2 b = tut::fft::cmul_fma(x[j + kHalf], tut::fft::twiddle_pi(j & (ns - 1), inv_ns));
        sum[q] = make_float2(a.x + b.x, a.y + b.y);
        diff[q] = make_float2(a.x - b.x, a.y - b.y);
      }
    }
    __syncthreads();  // every input of this pass has been read
#pragma unroll
    for (int q = 0; q < Shape::kButterfliesPerThread; ++q) {
      const int t = threadIdx.x + q * kBlock;
      const int signal = t >> (kLog2n - 1);
      const unsigned j = t & (kHalf - 1);
      if (signal < signals) {
        float2* y = data + signal * kN;
        const unsigned d = ((j >> log2ns) << (log2ns + 1)) + (j & (ns - 1));
        y[d] = sum[q];
        y[d + ns] = diff[q];
      }
    }
    __syncthreads();  // every output of this pass is visible to the next
  }

  // One coalesced write.
  for (int i = threadIdx.x; i < valid; i += kBlock) dst[i] = data[i];
}

template <int kLog2n, int kBlock>
void launch_shared(const float2* in, float2* out, long long batch, cudaStream_t stream) {
  constexpr int kPerBlock = SharedShape<kLog2n, kBlock>::kSignalsPerBlock;
  const unsigned blocks = static_cast<unsigned>((batch + kPerBlock - 1) / kPerBlock);
  stockham_shared<kLog2n, kBlock><<<blocks, kBlock, 0, stream>>>(in, out, batch);
  TUT_CHECK_LAUNCH();
}

// ---- N > 4096: stage 31's passes through global memory (tut::fft::radix2_passes), unchanged -------------

// No workspace in shared memory; one batch of float2 for the fallback's ping-pong.
inline std::size_t workspace_bytes(int log2n, long long batch) {
  return log2n <= kMaxSharedLog2n ? 0 : tut::fft::radix2_passes_workspace_bytes(log2n, batch);
}

// Blocks of kBlockThreads threads, or (kOneSignalPerBlock) of min(kBlockThreads, N/2): one block per signal,
// literally, even when that leaves a block of 4 threads for N = 8 (an on-demand variant that shows why short
// signals share a block).
template <int kLog2n, int kBlockThreads, bool kOneSignalPerBlock>
constexpr int block_threads() {
  return kOneSignalPerBlock && (1 << (kLog2n - 1)) < kBlockThreads ? (1 << (kLog2n - 1)) : kBlockThreads;
}

template <int kBlockThreads, bool kOneSignalPerBlock = false>
void forward_with(const float2* in, float2* out, int log2n, long long batch, void* workspace, cudaStream_t stream) {
  if (batch == 0) return;
  switch (log2n) {
#define TUT_FFT_SHARED_CASE(L) \
    case L: return launch_shared<L, block_threads<L, kBlockThreads, kOneSignalPerBlock>()>(in, out, batch, stream);
    TUT_FFT_SHARED_CASE(3) TUT_FFT_SHARED_CASE(4) TUT_FFT_SHARED_CASE(5) TUT_FFT_SHARED_CASE(6)
    TUT_FFT_SHARED_CASE(7) TUT_FFT_SHARED_CASE(8) TUT_FFT_SHARED_CASE(9) TUT_FFT_SHARED_CASE(10)
    TUT_FFT_SHARED_CASE(11) TUT_FFT_SHARED_CASE(12)
#undef TUT_FFT_SHARED_CASE
    default: return tut::fft::radix2_passes(in, out, log2n, batch, workspace, stream);
  }
}

// The stage: 256 threads per block.
inline void forward(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                    cudaStream_t stream) {
  forward_with<kThreads>(in, out, log2n, batch, workspace, stream);
}

}  // namespace fft_shared_memory
