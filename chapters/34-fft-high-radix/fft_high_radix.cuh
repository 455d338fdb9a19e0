// Chapter 34: what changes in today's FFTs (cuFFT, VkFFT) against chapter 33's design: higher radices, so
// that every N <= 4096 takes two passes (one shared-memory exchange), and twiddle factors read from a table
// computed once in double precision instead of a sincospif per value and pass.
//
//   N = 8, 16, 32  one thread computes one signal in registers (256, 256, 128 threads per block)
//                  fft_per_thread_kernel
//   N = 64..4096   N / E threads compute one signal in two passes, N = R0 x R1 with R0 = E values per thread:
//                  8x8, 16x8, 16x16, 32x16, 32x32, 64x32, 64x64 (chapter 33: up to three passes of <= 16)
//                  fft_block_kernel<N, kTableTwiddles>
//   N >= 8192      four-step FFT, N = N1 x N2, two kernels through a global-memory workspace, running
//                  block_fft on the columns and the rows (common/fft/four_step.cuh: fft_columns_kernel,
//                  fft_rows_kernel); N1 = 64..256, N2 = 128..4096
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
#include "twiddle_table.cuh"

namespace fft_high_radix {

// From common/fft: complex arithmetic and twiddles by exact phase (complex.cuh), the R-point DFT in registers
// and the Stockham output position (dft_registers.cuh), the pass plan, one pass's butterflies and where
// values sit (pass_plan.cuh).
using tut::fft::butterflies;
using tut::fft::dft_in_registers;
using tut::fft::ilog2;
using tut::fft::load_direct;
using tut::fft::store_direct;
using tut::fft::stockham_output_index;
using tut::fft::twiddle;

// In-block twiddles may come from the table of common/fft/twiddle_table.cuh: W_4096^m rounded once from
// double, filled once per device by the variant's setup (setup_twiddle_table), read with one L1 hit where
// sincospif costs some 20 instructions.

// The same sincospif as a real call: on sm_75 the 64-value kernels with 63 inlined sincospif per pass would
// spill (ptxas hits 255 registers at N = 2048); newer architectures inline it without spilling.
__device__ __noinline__ float2 twiddle_call(int m, int n) { return twiddle(m, n); }

// exp(-2 pi i m / n) for m < n <= 4096, the Twiddle of common/fft/pass_plan.cuh's butterflies: from the
// table, or (kTable = false) by sincospif as in chapter 33.
template <bool kTable>
struct BlockTwiddle {
  static __device__ __forceinline__ float2 at(int m, int n) {
    if (kTable) return tut::fft::table_twiddle(m, n);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    return twiddle_call(m, n);
#else
    return twiddle(m, n);
#endif
  }
};

// ---- Regime 1: N = 8, 16, 32, one thread per signal ---------------------------------------------------
// 256 signals per block for N <= 16 (the article's block size), 128 for N = 32 (so the tile stays 32 KB).
template <int N>
struct PerThreadPlan {
  static constexpr int kThreads = N <= 16 ? 256 : 128;
};

// Natural layout: the block's signals are contiguous (kThreads N complex values). Coalesced 64-bit loads
// put them in shared memory; each thread then takes its own signal's N values from there. Shared memory
// is only a transpose here: no thread reads what another thread computed.
template <int N>
__global__ void __launch_bounds__(PerThreadPlan<N>::kThreads) fft_per_thread_kernel(const float2* __restrict__ in,
                                                                                  float2* __restrict__ out,
                                                                                  long long batch) {
  constexpr int kSignals = PerThreadPlan<N>::kThreads;
  __shared__ float2 tile[kSignals * N];
  const long long first = static_cast<long long>(blockIdx.x) * kSignals;  // first signal
  const int signals = static_cast<int>(min(static_cast<long long>(kSignals), batch - first));
  const float2* src = in + first * N;
  float2* dst = out + first * N;
#pragma unroll
  for (int i = 0; i < N; ++i) {  // element e = i * kSignals + threadIdx.x of the block's contiguous range
    const int e = i * kSignals + threadIdx.x;
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
    const int e = i * kSignals + threadIdx.x;
    if (e < signals * N) dst[e] = tile[e];
  }
}

// ---- Regime 2: N = 64..4096, N / E threads per signal, two passes, one exchange through shared memory ----
// N = R0 x R1: R0 = E = 2^ceil(log2(N) / 2) values per thread (8, 16, 16, 32, 32, 64, 64 for N = 64..4096),
// T = N / E threads, R1 = N / E <= E (common/fft/pass_plan.cuh's plan for this E). The second pass does
// E / R1 butterflies per thread (two for N = 2048 and 512, one otherwise).
template <int N>
struct BlockPlan : tut::fft::PassPlan<N, 1 << ((ilog2(N) + 1) / 2)> {
  static_assert(N >= 64 && N <= 4096 && (N & (N - 1)) == 0, "the block FFT handles N = 64..4096");
  static_assert(tut::fft::PassPlan<N, 1 << ((ilog2(N) + 1) / 2)>::kPasses == 2, "two passes");
};

// The exchange between the two passes through `buf` (N values): every thread writes its E outputs of
// pass 0, barrier, every thread reads its inputs of pass 1, barrier (the buffer may be reused).
template <int N>
__device__ __forceinline__ void exchange(float2* v, float2* buf, int t) {
  using Plan = BlockPlan<N>;
  constexpr int E = Plan::kPerThread, T = Plan::kThreads, Rr = Plan::kLastRadix;
#pragma unroll
  for (int r = 0; r < E; ++r) buf[stockham_output_index<E, 1>(t, r)] = v[r];
  __syncthreads();
#pragma unroll
  for (int b = 0; b < E / Rr; ++b)
#pragma unroll
    for (int r = 0; r < Rr; ++r) v[b * Rr + r] = buf[t + b * T + r * (N / Rr)];
  __syncthreads();
}

// The N-point FFT of one signal by its T threads t = 0..T-1. On entry v[i] holds element
// input_element<BlockPlan<N>>(t, i), on return output element output_element<BlockPlan<N>>(t, i). `buf`
// (N values) is free on return.
template <int N, bool kTable>
__device__ __forceinline__ void block_fft(float2 (&v)[BlockPlan<N>::kPerThread], float2* buf, int t) {
  using Plan = BlockPlan<N>;
  butterflies<Plan, 0, BlockTwiddle<kTable>>(v, t);
  exchange<N>(v, buf, t);
  butterflies<Plan, 1, BlockTwiddle<kTable>>(v, t);
}

// Several signals per block, as in chapters 32 and 33: S = max(1, 128 / T) signals of T = N / E threads each,
// at most 4096 / N so that a block's buffers stay within 32 KB. Thread s T + t is thread t of the block's
// signal s. A last block with fewer signals still runs every thread through the barrier; the missing signals
// neither load nor store.
constexpr int kBlockThreads = 128;

template <int N>
struct BlockShape {
  static constexpr int kWanted = kBlockThreads / BlockPlan<N>::kThreads;
  static constexpr int kFit = 4096 / N;
  static constexpr int kSignals = kWanted < 1 ? 1 : (kWanted < kFit ? kWanted : kFit);
  static constexpr int kThreads = kSignals * BlockPlan<N>::kThreads;
};

template <int N, bool kTable>
__global__ void __launch_bounds__(BlockShape<N>::kThreads) fft_block_kernel(const float2* __restrict__ in,
                                                                           float2* __restrict__ out,
                                                                           long long batch) {
  using Plan = BlockPlan<N>;
  constexpr int E = Plan::kPerThread, T = Plan::kThreads;
  __shared__ float2 buf[BlockShape<N>::kSignals * N];
  const int s = threadIdx.x / T, t = threadIdx.x % T;
  const long long signal = static_cast<long long>(blockIdx.x) * BlockShape<N>::kSignals + s;
  const bool active = signal < batch;
  float2 v[E];
  load_direct<Plan>(v, in + signal * N, active, t);
  block_fft<N, kTable>(v, buf + s * N, t);
  store_direct<Plan>(v, out + signal * N, active, t);
}

// ---- Regime 3: N >= 8192, four-step FFT through global memory -------------------------------------------
// common/fft/four_step.cuh's column and row kernels, running block_fft on N1 = max(64, N / 4096) columns and
// N2 = N / N1 rows: N1 = 64..256, N2 = 128..4096, so N <= 2^20.
template <bool kTable>
struct FourStepFft : tut::fft::UnpaddedBuffers {
  template <int N>
  using Plan = BlockPlan<N>;
  static constexpr int kMinColumnLog2n = 6;
  template <int N>
  static __device__ __forceinline__ void run(float2 (&v)[BlockPlan<N>::kPerThread], float2* buf, int t) {
    block_fft<N, kTable>(v, buf, t);
  }
};

// ---- Host side ---------------------------------------------------------------------------------------------
constexpr int kMinLog2n = 3, kMaxLog2n = tut::fft::kFourStepMaxLog2n;
constexpr int kMaxBlockLog2n = tut::fft::kFourStepMaxBlockLog2n;  // N <= 4096 in one block

// Workspace: the four-step intermediate, batch N complex values (none for N <= 4096).
inline std::size_t workspace_bytes(int log2n, long long batch) {
  return tut::fft::four_step_workspace_bytes(log2n, batch);
}

template <int N, bool kTable>
void launch_block(const float2* in, float2* out, long long batch, cudaStream_t stream) {
  const long long blocks = (batch + BlockShape<N>::kSignals - 1) / BlockShape<N>::kSignals;
  fft_block_kernel<N, kTable><<<static_cast<unsigned>(blocks), BlockShape<N>::kThreads, 0, stream>>>(in, out, batch);
  TUT_CHECK_LAUNCH();
}

template <bool kTable>
void launch_signals_per_block(const float2* in, float2* out, int log2n, long long batch, cudaStream_t stream) {
  tut::fft::dispatch_length<6, kMaxBlockLog2n>(
      log2n, "fft_high_radix::launch_signals_per_block",
      [&](auto n) { launch_block<decltype(n)::value, kTable>(in, out, batch, stream); });
}

template <int N>
void launch_per_thread(const float2* in, float2* out, long long batch, cudaStream_t stream) {
  constexpr int kSignals = PerThreadPlan<N>::kThreads;
  const unsigned blocks = static_cast<unsigned>((batch + kSignals - 1) / kSignals);
  fft_per_thread_kernel<N><<<blocks, kSignals, 0, stream>>>(in, out, batch);
  TUT_CHECK_LAUNCH();
}

// The three regimes behind one entry point. kTable: in-block twiddles from the table (else sincospif), which
// the variant's setup must have filled on this device (main.cu: setup_twiddle_table); the launch only checks.
template <bool kTable>
void fft(const float2* in, float2* out, int log2n, long long batch, void* workspace, cudaStream_t stream) {
  constexpr const char* kVariant = kTable ? "fft-high-radix" : "sincospif-twiddles";
  tut::fft::require_length(kVariant, log2n, kMinLog2n, kMaxLog2n);
  if (batch <= 0) return;
  if (log2n == 3) return launch_per_thread<8>(in, out, batch, stream);
  if (log2n == 4) return launch_per_thread<16>(in, out, batch, stream);
  if (log2n == 5) return launch_per_thread<32>(in, out, batch, stream);
  if (kTable && !tut::fft::twiddle_table_filled()) tut::fft::throw_twiddle_table_missing(kVariant);
  if (log2n <= kMaxBlockLog2n) return launch_signals_per_block<kTable>(in, out, log2n, batch, stream);
  tut::fft::launch_four_step<FourStepFft<kTable>>(in, out, log2n, batch, static_cast<float2*>(workspace), stream,
                                                  "fft_high_radix::launch_four_step");
}

inline void fft_high_radix(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                           cudaStream_t stream) {
  fft<true>(in, out, log2n, batch, workspace, stream);
}
inline void fft_sincospif(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                          cudaStream_t stream) {
  fft<false>(in, out, log2n, batch, workspace, stream);
}

}  // namespace fft_high_radix
