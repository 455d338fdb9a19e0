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
//   N >= 8192      four-step FFT, N = N1 x N2, two kernels through a global-memory workspace:
//                  fft_columns_kernel  FFTs of length N1 down the columns, times the twiddles W_N^(j2 k1)
//                  fft_rows_kernel     FFTs of length N2 along the rows, written transposed
//
// Every FFT pass here is a Stockham autosort pass: see tut::fft::stockham_output_index in
// common/fft/dft_registers.cuh for where a pass of radix R reads and writes.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda_check.cuh"
#include "dft_registers.cuh"
#include "dispatch.hpp"

namespace fft_registers_exchange {

// From common/fft: complex arithmetic and twiddles by exact phase (complex.cuh), the R-point DFT in registers
// and the Stockham output position (dft_registers.cuh).
using tut::fft::cmul;
using tut::fft::dft_in_registers;
using tut::fft::ilog2;
using tut::fft::stockham_output_index;
using tut::fft::twiddle;

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

// The passes for N: radix 16 while 16 divides what is left, then one pass of the remaining radix (2, 4 or
// 8). N = 2048: 16 x 16 x 8, N = 4096: 16 x 16 x 16, N = 1024: 16 x 16 x 4, N = 64: 16 x 4.
template <int N>
struct BlockPlan {
  static_assert(N >= 32 && N <= 4096 && (N & (N - 1)) == 0, "the block FFT handles N = 32..4096");
  static constexpr int kThreads = N / kPerThread;          // threads per signal
  static constexpr int kPasses = (ilog2(N) + 3) / 4;       // 2 for N <= 256, 3 up to 4096
  static constexpr int kLastRadix = N >> (4 * (kPasses - 1));
  __host__ __device__ static constexpr int radix(int pass) { return pass + 1 < kPasses ? 16 : kLastRadix; }
  __host__ __device__ static constexpr int stride(int pass) { return 1 << (4 * pass); }  // Ns: product of the earlier radices
};

// One pass's arithmetic on the kPerThread values in v: kPerThread / R butterflies of radix R, butterfly
// b being j = t + b * T (T = threads per signal); v[b R + r] holds its input r on entry, output r on exit.
template <int N, int R, int Ns>
__device__ __forceinline__ void butterflies(float2* v, int t) {
  constexpr int kThreads = N / kPerThread;
#pragma unroll
  for (int b = 0; b < kPerThread / R; ++b) {
    const int j = t + b * kThreads;
    if (Ns > 1) {
      const int k = j % Ns;
#pragma unroll
      for (int r = 1; r < R; ++r) v[b * R + r] = cmul(v[b * R + r], twiddle(r * k, Ns * R));
    }
    dft_in_registers<R>(v + b * R);
  }
}

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

// Which element of the signal v[i] holds, for thread t: before the FFT (pass 0 is radix 16, butterfly t
// reads elements t + i T: consecutive threads, consecutive elements) and after it (the last pass, Ns R = N,
// writes output r of butterfly j to j + r N/R: consecutive again).
template <int N>
__device__ __forceinline__ int input_element(int t, int i) {
  return t + i * BlockPlan<N>::kThreads;
}
template <int N>
__device__ __forceinline__ int output_element(int t, int i) {
  constexpr int Rl = BlockPlan<N>::kLastRadix;
  return t + (i / Rl) * BlockPlan<N>::kThreads + (i % Rl) * (N / Rl);
}

// The N-point FFT of one signal by its T = N / 16 threads t = 0..T-1. On entry v[i] holds element
// input_element(t, i), on return output element output_element(t, i). In between, values cross threads
// only through `buf` (N values, or N / 2 with the half exchange), which is free again on return.
template <int N, bool kHalfExchange>
__device__ __forceinline__ void block_fft(float2 (&v)[kPerThread], float2* buf, int t) {
  using Plan = BlockPlan<N>;
  butterflies<N, Plan::radix(0), Plan::stride(0)>(v, t);
  exchange<N, kHalfExchange, 0>(v, buf, t);
  butterflies<N, Plan::radix(1), Plan::stride(1)>(v, t);
  if constexpr (Plan::kPasses == 3) {
    exchange<N, kHalfExchange, 1>(v, buf, t);
    butterflies<N, Plan::radix(2), Plan::stride(2)>(v, t);
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
  constexpr int T = BlockPlan<N>::kThreads, kBuffer = kHalfExchange ? N / 2 : N;
  __shared__ float2 buf[BlockShape<N>::kSignals * kBuffer];
  const int s = threadIdx.x / T, t = threadIdx.x % T;
  const long long signal = static_cast<long long>(blockIdx.x) * BlockShape<N>::kSignals + s;
  const bool active = signal < batch;
  const float2* src = in + signal * N;
  float2* dst = out + signal * N;
  float2 v[kPerThread];
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) v[i] = active ? src[input_element<N>(t, i)] : make_float2(0.f, 0.f);
  block_fft<N, kHalfExchange>(v, buf + s * kBuffer, t);
  if (active) {
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) dst[output_element<N>(t, i)] = v[i];
  }
}

// ---- Regime 3: N >= 8192, four-step FFT through global memory -------------------------------------------
// Index the signal as a matrix of N1 rows and N2 columns, x[j1 N2 + j2]. Then, with k = k1 + N1 k2,
//   X[k1 + N1 k2] = sum_j2 W_N2^(j2 k2) [ W_N^(j2 k1) sum_j1 W_N1^(j1 k1) x[j1 N2 + j2] ]
// Step 1 (fft_columns_kernel): an N1-point FFT down every column j2, times W_N^(j2 k1), stored in place of
// the column in the workspace: y[k1 N2 + j2]. Step 2 (fft_rows_kernel): an N2-point FFT along every row k1
// of y, its output k2 stored at k1 + N1 k2. N1 = max(32, N / 4096), N2 = N / N1: N1 = 32..256,
// N2 = 256..4096, so N <= 2^20.
constexpr int kMaxColumnLength = 256;
constexpr int kColumnTileThreads = 256;  // threads of a column block: C columns x N1/16 threads each

template <int N1>
struct ColumnTile {
  static constexpr int kThreadsPerColumn = N1 / kPerThread;
  static constexpr int kColumns = kColumnTileThreads / kThreadsPerColumn;  // C: 16 (N1 = 256) to 128 (N1 = 32)
};

// Block (column tile c0 .. c0 + C - 1 of signal s). The tile is read and written row by row, C consecutive
// complex values per row (coalesced), and transposed through shared memory, where each column is one
// contiguous signal for block_fft.
template <int N1>
__global__ void __launch_bounds__(kColumnTileThreads) fft_columns_kernel(const float2* __restrict__ in,
                                                                        float2* __restrict__ y, int log2n) {
  constexpr int C = ColumnTile<N1>::kColumns, T1 = ColumnTile<N1>::kThreadsPerColumn;
  __shared__ float2 tile[C * N1];  // column c at tile[c N1 ...]
  const int n = 1 << log2n, n2 = n / N1;
  const int tiles_per_signal = n2 / C;
  const long long signal = blockIdx.x / tiles_per_signal;
  const int c0 = (blockIdx.x % tiles_per_signal) * C;
  const float2* src = in + signal * n + c0;
  float2* dst = y + signal * n + c0;
  for (int e = threadIdx.x; e < C * N1; e += kColumnTileThreads) {  // row e / C, column e % C
    tile[(e % C) * N1 + e / C] = src[static_cast<long long>(e / C) * n2 + e % C];
  }
  __syncthreads();
  const int column = threadIdx.x / T1, t = threadIdx.x % T1;
  float2* col = tile + column * N1;  // this column: the FFT's input, exchange buffer and output
  const int j2 = c0 + column;
  float2 v[kPerThread];
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) v[i] = col[input_element<N1>(t, i)];
  __syncthreads();  // every read of the tile before the first exchange writes into it
  block_fft<N1, false>(v, col, t);
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const int k1 = output_element<N1>(t, i);
    col[k1] = cmul(v[i], twiddle((j2 * k1) & (n - 1), n));  // W_N^(j2 k1)
  }
  __syncthreads();
  for (int e = threadIdx.x; e < C * N1; e += kColumnTileThreads) {
    dst[static_cast<long long>(e / C) * n2 + e % C] = tile[(e % C) * N1 + e / C];
  }
}

// Block (row k1 of signal s): the N2-point FFT of y's row, output k2 to out[s N + k1 + N1 k2]. Those
// stores are N1 elements apart; neighbouring blocks fill in the rest of each 32-byte sector in L2.
template <int N2>
__global__ void __launch_bounds__(BlockPlan<N2>::kThreads) fft_rows_kernel(const float2* __restrict__ y,
                                                                          float2* __restrict__ out, int log2n) {
  __shared__ float2 buf[N2];
  const int n1 = (1 << log2n) / N2;
  const long long signal = blockIdx.x / n1;
  const int k1 = blockIdx.x % n1;
  const float2* src = y + signal * (static_cast<long long>(n1) * N2) + static_cast<long long>(k1) * N2;
  float2* dst = out + signal * (static_cast<long long>(n1) * N2) + k1;
  const int t = threadIdx.x;
  float2 v[kPerThread];
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) v[i] = src[input_element<N2>(t, i)];
  block_fft<N2, false>(v, buf, t);
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) dst[static_cast<long long>(output_element<N2>(t, i)) * n1] = v[i];
}

// ---- Host side ---------------------------------------------------------------------------------------------
constexpr int kMinLog2n = 3, kMaxLog2n = 20;
constexpr int kMaxBlockLog2n = 12;  // N <= 4096 in one block

inline int column_length(int log2n) { return 1 << (log2n - kMaxBlockLog2n > 5 ? log2n - kMaxBlockLog2n : 5); }

// Workspace: the four-step intermediate, batch N complex values (none for N <= 4096).
inline std::size_t workspace_bytes(int log2n, long long batch) {
  return log2n > kMaxBlockLog2n ? static_cast<std::size_t>(batch) * (std::size_t{1} << log2n) * sizeof(float2) : 0;
}

template <int N, bool kHalf>
void launch_block(const float2* in, float2* out, long long batch, cudaStream_t stream) {
  const long long blocks = (batch + BlockShape<N>::kSignals - 1) / BlockShape<N>::kSignals;
  fft_block_kernel<N, kHalf><<<static_cast<unsigned>(blocks), BlockShape<N>::kThreads, 0, stream>>>(in, out, batch);
  TUT_CHECK_LAUNCH();
}

template <bool kHalf>
void launch_signals_per_block(const float2* in, float2* out, int log2n, long long batch, cudaStream_t stream) {
  switch (log2n) {
    case 5: return launch_block<32, kHalf>(in, out, batch, stream);
    case 6: return launch_block<64, kHalf>(in, out, batch, stream);
    case 7: return launch_block<128, kHalf>(in, out, batch, stream);
    case 8: return launch_block<256, kHalf>(in, out, batch, stream);
    case 9: return launch_block<512, kHalf>(in, out, batch, stream);
    case 10: return launch_block<1024, kHalf>(in, out, batch, stream);
    case 11: return launch_block<2048, kHalf>(in, out, batch, stream);
    case 12: return launch_block<4096, kHalf>(in, out, batch, stream);
    default: tut::fft::throw_unsupported_length("fft_registers_exchange::launch_signals_per_block", log2n, 5, 12);
  }
}

template <int N1>
void launch_columns(const float2* in, float2* y, int log2n, long long batch, cudaStream_t stream) {
  const long long n2 = (1ll << log2n) / N1;
  const long long blocks = batch * (n2 / ColumnTile<N1>::kColumns);
  fft_columns_kernel<N1><<<static_cast<unsigned>(blocks), kColumnTileThreads, 0, stream>>>(in, y, log2n);
  TUT_CHECK_LAUNCH();
}

template <int N2>
void launch_rows(const float2* y, float2* out, int log2n, long long batch, cudaStream_t stream) {
  const long long blocks = batch * ((1ll << log2n) / N2);
  fft_rows_kernel<N2><<<static_cast<unsigned>(blocks), BlockPlan<N2>::kThreads, 0, stream>>>(y, out, log2n);
  TUT_CHECK_LAUNCH();
}

inline void launch_four_step(const float2* in, float2* out, int log2n, long long batch, float2* y,
                             cudaStream_t stream) {
  const int n1 = column_length(log2n);
  switch (n1) {
    case 32: launch_columns<32>(in, y, log2n, batch, stream); break;
    case 64: launch_columns<64>(in, y, log2n, batch, stream); break;
    case 128: launch_columns<128>(in, y, log2n, batch, stream); break;
    case 256: launch_columns<256>(in, y, log2n, batch, stream); break;
    default:
      tut::fft::throw_unsupported_length("fft_registers_exchange::launch_four_step", log2n, kMaxBlockLog2n + 1,
                                         kMaxLog2n);
  }
  switch (log2n - ilog2(n1)) {  // N2
    case 8: return launch_rows<256>(y, out, log2n, batch, stream);
    case 9: return launch_rows<512>(y, out, log2n, batch, stream);
    case 10: return launch_rows<1024>(y, out, log2n, batch, stream);
    case 11: return launch_rows<2048>(y, out, log2n, batch, stream);
    case 12: return launch_rows<4096>(y, out, log2n, batch, stream);
    default:
      tut::fft::throw_unsupported_length("fft_registers_exchange::launch_four_step", log2n, kMaxBlockLog2n + 1,
                                         kMaxLog2n);
  }
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
  launch_four_step(in, out, log2n, batch, static_cast<float2*>(workspace), stream);
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
