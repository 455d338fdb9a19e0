// Exercise 33 (chapter 33-fft-registers-exchange): the article's half exchange, the exchange between two radix-16
// passes through a shared buffer of N / 2 values instead of N.
//
// Chapter 33's header is included unchanged: the pass plan (BlockPlan<N>: radix 16 passes, T = N / 16 threads per
// signal, 16 values each in registers), one pass's butterflies (common/fft/pass_plan.cuh, twiddles by sincospif),
// the Stockham output position (stockham_output_index), the loads and stores, and the block shape (several signals
// per block). The block FFT and the kernel below are chapter 33's with the half exchange, half_exchange(), the
// function to write.
//
// Why half a buffer is enough (chapter 33's README): a radix-16 pass (every pass but the last) writes from threads
// t < T / 2 exactly the positions < N / 2, and the next pass's input r of butterfly t lies in the first half exactly
// when r < R / 2 (R: the reading pass's radix). So the exchange runs in two rounds h = 0, 1: the threads of half h
// write their outputs (position minus h N / 2), barrier, every thread reads its inputs that lie in half h, barrier.
#pragma once

#include <cuda_runtime.h>

#include "../../chapters/33-fft-registers-exchange/fft_registers_exchange.cuh"  // chapter 33, unchanged
#include "dispatch.hpp"

namespace half_exchange {

using fft_registers_exchange::BlockPlan;
using fft_registers_exchange::BlockShape;
using fft_registers_exchange::kPerThread;
using tut::fft::stockham_output_index;

// The exchange between pass kPass (its 16 outputs in v) and pass kPass + 1 (its inputs, into v) of thread t of one
// signal, through `buf` (N / 2 values, this signal's). On return v[b * Rr + r] holds the value at position
// t + b * T + r * (N / Rr) of the pass's output (Rr: the reading pass's radix, kPerThread / Rr butterflies per
// thread), as chapter 33's plain exchange leaves it; buf is free again.
template <int N, int kPass>
__device__ __forceinline__ void exchange_half(float2 (&v)[kPerThread], float2* buf, int t) {
  using Plan = BlockPlan<N>;
  constexpr int Rw = Plan::radix(kPass), Nsw = Plan::stride(kPass);  // the writing pass
  constexpr int Rr = Plan::radix(kPass + 1);                         // the reading pass
  constexpr int T = Plan::kThreads;
  static_assert(Rw == kPerThread, "only the last pass may have a radix below 16: one butterfly per thread");
  static_assert(Nsw * kPerThread <= N / 2, "a written half must not straddle the middle");
  // TODO: two rounds h = 0, 1. In round h the threads t with t / (T / 2) == h write their outputs v[r] (r < Rw) to
  // buf[stockham_output_index<Rw, Nsw>(t, r) - h * (N / 2)]; a barrier; EVERY thread reads those of its inputs that
  // lie in half h: for b < kPerThread / Rr and r from h * (Rr / 2) to (h + 1) * (Rr / 2) - 1, input b * Rr + r is at
  // position t + b * T + r * (N / Rr), i.e. buf[that - h * (N / 2)]; a barrier before the buffer is written again.
  // Read into a separate array and copy it to v at the end: a thread of the second half still needs its v in round 1.
  // As shipped there is no exchange: every thread goes on with its own outputs, and the transform is wrong.
  (void)buf, (void)t, (void)T, (void)Rr;
}

// Chapter 33's block FFT, with the half exchange.
template <int N>
__device__ __forceinline__ void block_fft(float2 (&v)[kPerThread], float2* buf, int t) {
  using Plan = BlockPlan<N>;
  using Twiddle = tut::fft::SincospifTwiddle;
  tut::fft::butterflies<Plan, 0, Twiddle>(v, t);
  exchange_half<N, 0>(v, buf, t);
  tut::fft::butterflies<Plan, 1, Twiddle>(v, t);
  if constexpr (Plan::kPasses == 3) {
    exchange_half<N, 1>(v, buf, t);
    tut::fft::butterflies<Plan, 2, Twiddle>(v, t);
  }
}

// Chapter 33's kernel for N = 32 .. 4096 with a buffer of N / 2 values per signal.
template <int N>
__global__ void __launch_bounds__(BlockShape<N>::kThreads) half_exchange_kernel(const float2* __restrict__ in,
                                                                               float2* __restrict__ out,
                                                                               long long batch) {
  using Plan = BlockPlan<N>;
  constexpr int T = Plan::kThreads, kBuffer = N / 2;
  __shared__ float2 buf[BlockShape<N>::kSignals * kBuffer];
  const int s = threadIdx.x / T, t = threadIdx.x % T;
  const long long signal = static_cast<long long>(blockIdx.x) * BlockShape<N>::kSignals + s;
  const bool active = signal < batch;
  float2 v[kPerThread];
  tut::fft::load_direct<Plan>(v, in + signal * N, active, t);
  block_fft<N>(v, buf + s * kBuffer, t);
  tut::fft::store_direct<Plan>(v, out + signal * N, active, t);
}

constexpr int kMinLog2n = 5, kMaxLog2n = fft_registers_exchange::kMaxBlockLog2n;  // N = 32 .. 4096

inline void forward(const float2* in, float2* out, int log2n, long long batch, void*, cudaStream_t stream) {
  tut::fft::require_length("half_exchange::forward", log2n, kMinLog2n, kMaxLog2n);
  if (batch <= 0) return;
  tut::fft::dispatch_length<kMinLog2n, kMaxLog2n>(log2n, "half_exchange::forward", [&](auto n) {
    constexpr int N = decltype(n)::value;
    const long long blocks = (batch + BlockShape<N>::kSignals - 1) / BlockShape<N>::kSignals;
    half_exchange_kernel<N><<<static_cast<unsigned>(blocks), BlockShape<N>::kThreads, 0, stream>>>(in, out, batch);
    TUT_CHECK_LAUNCH();
  });
}

}  // namespace half_exchange
