// Chapter 33: the article's batched FFT (seed 002, section 3): registers for the butterflies, shared memory
// only to exchange values between passes, three regimes by the signal length N.
//
//   N = 8, 16      one thread computes one signal in registers (256 threads per block)
//                  fft_per_thread_kernel            natural layout, transposed through shared memory
//                  fft_per_thread_prearranged_kernel the article's pre-arranged layout (see below)
//   N = 32..4096   N / 16 threads compute one signal: 16 elements per thread, radix-16 passes in registers
//                  (the last one of radix N / 16^k), values exchanged through shared memory between passes;
//                  a block holds 2048 / N signals (at least one): fft_block_kernel<N, kHalfExchange>
//                  (N = 2048: one signal, 128 threads, radix 16 x 16 x 8)
//   N >= 8192      four-step FFT, N = N1 x N2, two kernels through a global-memory workspace, running
//                  block_fft on the columns and the rows (common/fft/four_step.cuh: fft_columns_kernel,
//                  fft_rows_kernel); N1 = 32..256, N2 = 256..4096
//
// Every FFT pass here is a Stockham autosort pass: see tut::fft::stockham_output_index in
// common/fft/dft_registers.cuh for where a pass of radix R reads and writes.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda_check.cuh"
#include "dft_registers.cuh"
#include "dispatch.hpp"
#include "four_step.cuh"
#include "pass_plan.cuh"

namespace fft_registers_exchange {

// From common/fft: the R-point DFT in registers and the Stockham output position (dft_registers.cuh), the pass
// plan, one pass's butterflies (here with twiddles by sincospif on the exact phase) and where values sit
// (pass_plan.cuh).
using tut::fft::butterflies;
using tut::fft::dft_in_registers;
using tut::fft::load_direct;
using tut::fft::store_direct;
using tut::fft::SincospifTwiddle;
using tut::fft::stockham_output_index;

// ---- Regime 1: N = 8 or 16, one thread per signal ------------------------------------------------------
constexpr int kPerThreadBlock = 256;  // the article's block size for N = 16

// Natural layout: the block's 256 signals are contiguous (256 N complex values). Coalesced 64-bit loads
// put them in shared memory; each thread then takes its own signal's N values from there. Shared memory
// is only a transpose here: no thread reads what another thread computed.
template <int N>
__global__ void __launch_bounds__(kPerThreadBlock) fft_per_thread_kernel(const float2* __restrict__ in,
                                                                         float2* __restrict__ out,
                                                                         long long batch) {
  __shared__ float2 tile[kPerThreadBlock * N];
  const long long first = static_cast<long long>(blockIdx.x) * kPerThreadBlock;  // first signal
  const int signals = static_cast<int>(min(static_cast<long long>(kPerThreadBlock), batch - first));
  const float2* src = in + first * N;
  float2* dst = out + first * N;
#pragma unroll
  for (int i = 0; i < N; ++i) {  // element e = i * 256 + threadIdx.x of the block's contiguous range
    const int e = i * kPerThreadBlock + threadIdx.x;
    if (e < signals * N) tile[e] = src[e];
  }
  __syncthreads();
  float2 v[N];
#pragma unroll
  for (int r = 0; r < N; ++r) v[r] = tile[threadIdx.x * N + r];  // stride N: an N-way bank conflict
  dft_in_registers<N>(v);
#pragma unroll
  for (int r = 0; r < N; ++r) tile[threadIdx.x * N + r] = v[r];  // only this thread's own slots
  __syncthreads();
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const int e = i * kPerThreadBlock + threadIdx.x;
    if (e < signals * N) dst[e] = tile[e];
  }
}

// The article's layout (section 3.1): the data were rearranged beforehand so that element r of the
// block's signal t sits at r * W + t, W = the block's signal count (256, fewer in a last partial block).
// Thread t then reads its N elements as N coalesced 64-bit loads, straight into registers, and writes the
// transform back in the same layout. Given the natural layout this computes the transforms of permuted
// inputs: the chapter program reports that as its known defect, and test.cu checks it on pre-arranged data.
// The barriers between loads, compute and stores are the article's ("to get the best bandwidth"); no data
// crosses threads, so they only pace the block.
template <int N>
__global__ void __launch_bounds__(kPerThreadBlock) fft_per_thread_prearranged_kernel(
    const float2* __restrict__ in, float2* __restrict__ out, long long batch) {
  const long long first = static_cast<long long>(blockIdx.x) * kPerThreadBlock;
  const int signals = static_cast<int>(min(static_cast<long long>(kPerThreadBlock), batch - first));
  const bool active = threadIdx.x < signals;
  const float2* src = in + first * N + threadIdx.x;
  float2* dst = out + first * N + threadIdx.x;
  float2 v[N];
#pragma unroll
  for (int r = 0; r < N; ++r) v[r] = active ? src[r * signals] : make_float2(0.f, 0.f);
  __syncthreads();
  dft_in_registers<N>(v);
  __syncthreads();
  if (active) {
#pragma unroll
    for (int r = 0; r < N; ++r) dst[r * signals] = v[r];
  }
}

// ---- Regime 2: N = 32..4096, N / 16 threads per signal, exchanges through shared memory --------------------
constexpr int kPerThread = 16;  // complex values each thread holds in registers (the article's 16)

// The passes for N (common/fft/pass_plan.cuh): radix 16 while 16 divides what is left, then one pass of the
// remaining radix (2, 4 or 8). N = 2048: 16 x 16 x 8, N = 4096: 16 x 16 x 16, N = 1024: 16 x 16 x 4,
// N = 64: 16 x 4. kThreads = N / 16 threads per signal; 2 passes for N <= 256, 3 up to 4096.
template <int N>
struct BlockPlan : tut::fft::PassPlan<N, kPerThread> {
  static_assert(N >= 32 && N <= 4096 && (N & (N - 1)) == 0, "the block FFT handles N = 32..4096");
};

// The exchange between pass `pass` (its outputs in v) and pass + 1 (its inputs into v), through `buf`.
//
// Plain exchange (kHalfExchange = false): buf holds N values. Every thread writes, barrier, every thread
// reads, barrier (the buffer is reused by the next exchange).
//
// The article's half exchange (kHalfExchange = true): buf holds N / 2 values. The first half of the threads
// write, barrier, everybody reads what lies in that half, barrier; then the second half of the threads
// write, and so on. It works because of two facts about Stockham passes (written out in the README): a
// radix-16 pass (every pass but the last) writes from threads t < T/2 exactly the positions < N/2, and the
// next pass's input r of butterfly j sits in the first half exactly when r < R/2.
template <int N, bool kHalfExchange, int kPass>
__device__ __forceinline__ void exchange(float2* v, float2* buf, int t) {
  using Plan = BlockPlan<N>;
  constexpr int Rw = Plan::radix(kPass), Nsw = Plan::stride(kPass);          // the writing pass
  constexpr int Rr = Plan::radix(kPass + 1);                                 // the reading pass
  constexpr int T = Plan::kThreads;
  static_assert(Rw == kPerThread, "only the last pass may have a radix below 16: one butterfly per thread");
  if (!kHalfExchange) {
#pragma unroll
    for (int r = 0; r < Rw; ++r) buf[stockham_output_index<Rw, Nsw>(t, r)] = v[r];
    __syncthreads();
#pragma unroll
    for (int b = 0; b < kPerThread / Rr; ++b)
#pragma unroll
      for (int r = 0; r < Rr; ++r) v[b * Rr + r] = buf[t + b * T + r * (N / Rr)];
    __syncthreads();
  } else {
    static_assert(Nsw * kPerThread <= N / 2, "a written half must not straddle the middle");
    // The inputs go to `next`, not v: a thread of the second half still has to write its outputs (v) in round 1.
    float2 next[kPerThread];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if (t / (T / 2) == h) {  // warp-uniform when T / 2 is a multiple of 32 (N >= 1024)
#pragma unroll
        for (int r = 0; r < Rw; ++r) buf[stockham_output_index<Rw, Nsw>(t, r) - h * (N / 2)] = v[r];
      }
      __syncthreads();
#pragma unroll
      for (int b = 0; b < kPerThread / Rr; ++b)
#pragma unroll
        for (int r = h * (Rr / 2); r < (h + 1) * (Rr / 2); ++r)
          next[b * Rr + r] = buf[t + b * T + r * (N / Rr) - h * (N / 2)];
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) v[i] = next[i];
  }
}

// The N-point FFT of one signal by its T = N / 16 threads t = 0..T-1. On entry v[i] holds element
// input_element<BlockPlan<N>>(t, i), on return output element output_element<BlockPlan<N>>(t, i). In between,
// values cross threads only through `buf` (N values, or N / 2 with the half exchange), free again on return.
template <int N, bool kHalfExchange>
__device__ __forceinline__ void block_fft(float2 (&v)[kPerThread], float2* buf, int t) {
  using Plan = BlockPlan<N>;
  butterflies<Plan, 0, SincospifTwiddle>(v, t);  // common/fft/pass_plan.cuh, twiddles by sincospif
  exchange<N, kHalfExchange, 0>(v, buf, t);
  butterflies<Plan, 1, SincospifTwiddle>(v, t);
  if constexpr (Plan::kPasses == 3) {
    exchange<N, kHalfExchange, 1>(v, buf, t);
    butterflies<Plan, 2, SincospifTwiddle>(v, t);
  }
}

// Several signals per block, as in chapter 32: S = max(1, 128 / T) signals of T = N / 16 threads each, so that
// a block has 128 threads (the article's block for N = 2048) or more (N = 4096: 256). Thread s T + t is thread
// t of the block's signal s. A last block with fewer signals still runs every thread through the barriers;
// the missing signals neither load nor store.
constexpr int kBlockThreads = 128;

template <int N>
struct BlockShape {
  static constexpr int kSignals = BlockPlan<N>::kThreads >= kBlockThreads ? 1 : kBlockThreads / BlockPlan<N>::kThreads;
  static constexpr int kThreads = kSignals * BlockPlan<N>::kThreads;
};

template <int N, bool kHalfExchange>
__global__ void __launch_bounds__(BlockShape<N>::kThreads) fft_block_kernel(const float2* __restrict__ in,
                                                                           float2* __restrict__ out,
                                                                           long long batch) {
  using Plan = BlockPlan<N>;
  constexpr int T = Plan::kThreads, kBuffer = kHalfExchange ? N / 2 : N;
  __shared__ float2 buf[BlockShape<N>::kSignals * kBuffer];
  const int s = threadIdx.x / T, t = threadIdx.x % T;
  const long long signal = static_cast<long long>(blockIdx.x) * BlockShape<N>::kSignals + s;
  const bool active = signal < batch;
  float2 v[kPerThread];
  load_direct<Plan>(v, in + signal * N, active, t);
  block_fft<N, kHalfExchange>(v, buf + s * kBuffer, t);
  store_direct<Plan>(v, out + signal * N, active, t);
}

// ---- Regime 3: N >= 8192, four-step FFT through global memory -------------------------------------------
// common/fft/four_step.cuh's column and row kernels, running block_fft with the plain exchange (N values of
// buffer) on N1 = max(32, N / 4096) columns and N2 = N / N1 rows: N1 = 32..256, N2 = 256..4096, so N <= 2^20.
struct FourStepFft : tut::fft::UnpaddedBuffers {
  template <int N>
  using Plan = BlockPlan<N>;
  static constexpr int kMinColumnLog2n = 5;
  template <int N>
  static __device__ __forceinline__ void run(float2 (&v)[kPerThread], float2* buf, int t) {
    block_fft<N, false>(v, buf, t);
  }
};

// ---- Host side ---------------------------------------------------------------------------------------------
constexpr int kMinLog2n = 3, kMaxLog2n = tut::fft::kFourStepMaxLog2n;
constexpr int kMaxBlockLog2n = tut::fft::kFourStepMaxBlockLog2n;  // N <= 4096 in one block

// Workspace: the four-step intermediate, batch N complex values (none for N <= 4096).
inline std::size_t workspace_bytes(int log2n, long long batch) {
  return tut::fft::four_step_workspace_bytes(log2n, batch);
}

template <int N, bool kHalf>
void launch_block(const float2* in, float2* out, long long batch, cudaStream_t stream) {
  const long long blocks = (batch + BlockShape<N>::kSignals - 1) / BlockShape<N>::kSignals;
  fft_block_kernel<N, kHalf><<<static_cast<unsigned>(blocks), BlockShape<N>::kThreads, 0, stream>>>(in, out, batch);
  TUT_CHECK_LAUNCH();
}

template <bool kHalf>
void launch_signals_per_block(const float2* in, float2* out, int log2n, long long batch, cudaStream_t stream) {
  tut::fft::dispatch_length<5, kMaxBlockLog2n>(
      log2n, "fft_registers_exchange::launch_signals_per_block",
      [&](auto n) { launch_block<decltype(n)::value, kHalf>(in, out, batch, stream); });
}

template <int N>
void launch_per_thread(const float2* in, float2* out, long long batch, bool prearranged, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>((batch + kPerThreadBlock - 1) / kPerThreadBlock);
  if (prearranged)
    fft_per_thread_prearranged_kernel<N><<<blocks, kPerThreadBlock, 0, stream>>>(in, out, batch);
  else
    fft_per_thread_kernel<N><<<blocks, kPerThreadBlock, 0, stream>>>(in, out, batch);
  TUT_CHECK_LAUNCH();
}

// The three regimes behind one entry point. kHalf: the article's half exchange for N = 32..4096;
// kPrearranged: the article's pre-arranged layout for N = 8 and 16 (other N as the stage).
template <bool kHalf, bool kPrearranged>
void fft(const float2* in, float2* out, int log2n, long long batch, void* workspace, cudaStream_t stream) {
  constexpr const char* kVariant = kHalf ? "half-exchange" : kPrearranged ? "prearranged" : "fft-registers-exchange";
  tut::fft::require_length(kVariant, log2n, kMinLog2n, kMaxLog2n);
  if (batch <= 0) return;
  if (log2n == 3) return launch_per_thread<8>(in, out, batch, kPrearranged, stream);
  if (log2n == 4) return launch_per_thread<16>(in, out, batch, kPrearranged, stream);
  if (log2n <= kMaxBlockLog2n) return launch_signals_per_block<kHalf>(in, out, log2n, batch, stream);
  tut::fft::launch_four_step<FourStepFft>(in, out, log2n, batch, static_cast<float2*>(workspace), stream,
                                         "fft_registers_exchange::launch_four_step");
}

inline void fft_registers_exchange(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                                   cudaStream_t stream) {
  fft<false, false>(in, out, log2n, batch, workspace, stream);
}
inline void fft_half_exchange(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                              cudaStream_t stream) {
  fft<true, false>(in, out, log2n, batch, workspace, stream);
}
inline void fft_prearranged(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                            cudaStream_t stream) {
  fft<false, true>(in, out, log2n, batch, workspace, stream);
}

}  // namespace fft_registers_exchange
