// Chapter 34: what changes in today's FFTs (cuFFT, VkFFT) against chapter 33's design: higher radices, so
// that every N <= 4096 takes two passes (one shared-memory exchange), and twiddle factors read from a table
// computed once in double precision instead of a sincospif per value and pass.
//
//   N = 8, 16, 32  one thread computes one signal in registers (256, 256, 128 threads per block)
//                  fft_per_thread_kernel
//   N = 64..4096   N / E threads compute one signal in two passes, N = R0 x R1 with R0 = E values per thread:
//                  8x8, 16x8, 16x16, 32x16, 32x32, 64x32, 64x64 (chapter 33: up to three passes of <= 16)
//                  fft_block_kernel<N, kTableTwiddles>
//   N >= 8192      four-step FFT, N = N1 x N2, two kernels through a global-memory workspace
//                  fft_columns_kernel, fft_rows_kernel
//
// Every FFT pass here is a Stockham autosort pass: see tut::fft::stockham_output_index in
// common/fft/dft_registers.cuh for where a pass of radix R reads and writes.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda_check.cuh"
#include "dft_registers.cuh"
#include "dispatch.hpp"
#include "twiddle_table.cuh"

namespace fft_high_radix {

// From common/fft: complex arithmetic and twiddles by exact phase (complex.cuh), the R-point DFT in registers
// and the Stockham output position (dft_registers.cuh).
using tut::fft::cmul;
using tut::fft::dft_in_registers;
using tut::fft::ilog2;
using tut::fft::stockham_output_index;
using tut::fft::twiddle;

// In-block twiddles may come from the table of common/fft/twiddle_table.cuh: W_4096^m rounded once from
// double, filled once per device by the variant's setup (setup_twiddle_table), read with one L1 hit where
// sincospif costs some 20 instructions.

// The same sincospif as a real call: on sm_75 the 64-value kernels with 63 inlined sincospif per pass would
// spill (ptxas hits 255 registers at N = 2048); newer architectures inline it without spilling.
__device__ __noinline__ float2 twiddle_call(int m, int n) { return twiddle(m, n); }

// exp(-2 pi i m / n) for m < n <= 4096: from the table, or (kTable = false) by sincospif as in chapter 33.
template <bool kTable>
__device__ __forceinline__ float2 block_twiddle(int m, int n) {
  if (kTable) return tut::fft::table_twiddle(m, n);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  return twiddle_call(m, n);
#else
  return twiddle(m, n);
#endif
}

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
// N = R0 x R1: R0 = E = 2^ceil(log2(N) / 2) values per thread, T = N / E threads, R1 = N / E <= E. The
// second pass does E / R1 butterflies per thread (two for N = 2048 and 512, one otherwise).
template <int N>
struct BlockPlan {
  static_assert(N >= 64 && N <= 4096 && (N & (N - 1)) == 0, "the block FFT handles N = 64..4096");
  static constexpr int kPerThread = 1 << ((ilog2(N) + 1) / 2);  // E: 8, 16, 16, 32, 32, 64, 64
  static constexpr int kThreads = N / kPerThread;               // T
  static constexpr int kPasses = 2;
  static constexpr int kLastRadix = N / kPerThread;
  __host__ __device__ static constexpr int radix(int pass) { return pass == 0 ? kPerThread : kLastRadix; }
  __host__ __device__ static constexpr int stride(int pass) { return pass == 0 ? 1 : kPerThread; }
};

// One pass's arithmetic on the E values in v: E / R butterflies of radix R, butterfly b being
// j = t + b * T; v[b R + r] holds its input r on entry, output r on exit.
template <int N, int R, int Ns, bool kTable>
__device__ __forceinline__ void butterflies(float2* v, int t) {
  constexpr int E = BlockPlan<N>::kPerThread, T = BlockPlan<N>::kThreads;
#pragma unroll
  for (int b = 0; b < E / R; ++b) {
    const int j = t + b * T;
    if (Ns > 1) {
      const int k = j % Ns;
#pragma unroll
      for (int r = 1; r < R; ++r) v[b * R + r] = cmul(v[b * R + r], block_twiddle<kTable>(r * k, Ns * R));
    }
    dft_in_registers<R>(v + b * R);
  }
}

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

// Which element of the signal v[i] holds, for thread t: before the FFT (pass 0, radix E: butterfly t reads
// elements t + i T) and after it (pass 1 writes output r of butterfly j to j + r N/R1).
template <int N>
__device__ __forceinline__ int input_element(int t, int i) {
  return t + i * BlockPlan<N>::kThreads;
}
template <int N>
__device__ __forceinline__ int output_element(int t, int i) {
  constexpr int Rl = BlockPlan<N>::kLastRadix;
  return t + (i / Rl) * BlockPlan<N>::kThreads + (i % Rl) * (N / Rl);
}

// The N-point FFT of one signal by its T threads t = 0..T-1. On entry v[i] holds element
// input_element(t, i), on return output element output_element(t, i). `buf` (N values) is free on return.
template <int N, bool kTable>
__device__ __forceinline__ void block_fft(float2 (&v)[BlockPlan<N>::kPerThread], float2* buf, int t) {
  using Plan = BlockPlan<N>;
  butterflies<N, Plan::radix(0), Plan::stride(0), kTable>(v, t);
  exchange<N>(v, buf, t);
  butterflies<N, Plan::radix(1), Plan::stride(1), kTable>(v, t);
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
  constexpr int E = BlockPlan<N>::kPerThread, T = BlockPlan<N>::kThreads;
  __shared__ float2 buf[BlockShape<N>::kSignals * N];
  const int s = threadIdx.x / T, t = threadIdx.x % T;
  const long long signal = static_cast<long long>(blockIdx.x) * BlockShape<N>::kSignals + s;
  const bool active = signal < batch;
  const float2* src = in + signal * N;
  float2* dst = out + signal * N;
  float2 v[E];
#pragma unroll
  for (int i = 0; i < E; ++i) v[i] = active ? src[input_element<N>(t, i)] : make_float2(0.f, 0.f);
  block_fft<N, kTable>(v, buf + s * N, t);
  if (active) {
#pragma unroll
    for (int i = 0; i < E; ++i) dst[output_element<N>(t, i)] = v[i];
  }
}

// ---- Regime 3: N >= 8192, four-step FFT through global memory -------------------------------------------
// Index the signal as a matrix of N1 rows and N2 columns, x[j1 N2 + j2]. Then, with k = k1 + N1 k2,
//   X[k1 + N1 k2] = sum_j2 W_N2^(j2 k2) [ W_N^(j2 k1) sum_j1 W_N1^(j1 k1) x[j1 N2 + j2] ]
// Step 1 (fft_columns_kernel): an N1-point FFT down every column j2, times W_N^(j2 k1), stored in place of
// the column in the workspace: y[k1 N2 + j2]. Step 2 (fft_rows_kernel): an N2-point FFT along every row k1
// of y, its output k2 stored at k1 + N1 k2. N1 = max(64, N / 4096), N2 = N / N1: N1 = 64..256,
// N2 = 128..4096, so N <= 2^20. W_N^(j2 k1) comes from sincospif (N is beyond the table).
constexpr int kColumnTileThreads = 256;  // threads of a column block: C columns x N1/E threads each

template <int N1>
struct ColumnTile {
  static constexpr int kThreadsPerColumn = BlockPlan<N1>::kThreads;
  static constexpr int kColumns = kColumnTileThreads / kThreadsPerColumn;  // C: 16 (N1 = 256) to 32 (N1 = 64)
};

// Block (column tile c0 .. c0 + C - 1 of signal s). The tile is read and written row by row, C consecutive
// complex values per row (coalesced), and transposed through shared memory, where each column is one
// contiguous signal for block_fft.
template <int N1, bool kTable>
__global__ void __launch_bounds__(kColumnTileThreads) fft_columns_kernel(const float2* __restrict__ in,
                                                                        float2* __restrict__ y, int log2n) {
  constexpr int C = ColumnTile<N1>::kColumns, T1 = ColumnTile<N1>::kThreadsPerColumn;
  constexpr int E = BlockPlan<N1>::kPerThread;
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
  float2 v[E];
#pragma unroll
  for (int i = 0; i < E; ++i) v[i] = col[input_element<N1>(t, i)];
  __syncthreads();  // every read of the tile before the exchange writes into it
  block_fft<N1, kTable>(v, col, t);
#pragma unroll
  for (int i = 0; i < E; ++i) {
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
template <int N2, bool kTable>
__global__ void __launch_bounds__(BlockPlan<N2>::kThreads) fft_rows_kernel(const float2* __restrict__ y,
                                                                          float2* __restrict__ out, int log2n) {
  constexpr int E = BlockPlan<N2>::kPerThread;
  __shared__ float2 buf[N2];
  const int n1 = (1 << log2n) / N2;
  const long long signal = blockIdx.x / n1;
  const int k1 = blockIdx.x % n1;
  const float2* src = y + signal * (static_cast<long long>(n1) * N2) + static_cast<long long>(k1) * N2;
  float2* dst = out + signal * (static_cast<long long>(n1) * N2) + k1;
  const int t = threadIdx.x;
  float2 v[E];
#pragma unroll
  for (int i = 0; i < E; ++i) v[i] = src[input_element<N2>(t, i)];
  block_fft<N2, kTable>(v, buf, t);
#pragma unroll
  for (int i = 0; i < E; ++i) dst[static_cast<long long>(output_element<N2>(t, i)) * n1] = v[i];
}

// ---- Host side ---------------------------------------------------------------------------------------------
constexpr int kMinLog2n = 3, kMaxLog2n = 20;
constexpr int kMaxBlockLog2n = 12;  // N <= 4096 in one block

inline int column_length(int log2n) { return 1 << (log2n - kMaxBlockLog2n > 6 ? log2n - kMaxBlockLog2n : 6); }

// Workspace: the four-step intermediate, batch N complex values (none for N <= 4096).
inline std::size_t workspace_bytes(int log2n, long long batch) {
  return log2n > kMaxBlockLog2n ? static_cast<std::size_t>(batch) * (std::size_t{1} << log2n) * sizeof(float2) : 0;
}

template <int N, bool kTable>
void launch_block(const float2* in, float2* out, long long batch, cudaStream_t stream) {
  const long long blocks = (batch + BlockShape<N>::kSignals - 1) / BlockShape<N>::kSignals;
  fft_block_kernel<N, kTable><<<static_cast<unsigned>(blocks), BlockShape<N>::kThreads, 0, stream>>>(in, out, batch);
  TUT_CHECK_LAUNCH();
}

template <bool kTable>
void launch_signals_per_block(const float2* in, float2* out, int log2n, long long batch, cudaStream_t stream) {
  switch (log2n) {
    case 6: return launch_block<64, kTable>(in, out, batch, stream);
    case 7: return launch_block<128, kTable>(in, out, batch, stream);
    case 8: return launch_block<256, kTable>(in, out, batch, stream);
    case 9: return launch_block<512, kTable>(in, out, batch, stream);
    case 10: return launch_block<1024, kTable>(in, out, batch, stream);
    case 11: return launch_block<2048, kTable>(in, out, batch, stream);
    case 12: return launch_block<4096, kTable>(in, out, batch, stream);
    default: tut::fft::throw_unsupported_length("fft_high_radix::launch_signals_per_block", log2n, 6, kMaxBlockLog2n);
  }
}

template <int N1, bool kTable>
void launch_columns(const float2* in, float2* y, int log2n, long long batch, cudaStream_t stream) {
  const long long n2 = (1ll << log2n) / N1;
  const long long blocks = batch * (n2 / ColumnTile<N1>::kColumns);
  fft_columns_kernel<N1, kTable><<<static_cast<unsigned>(blocks), kColumnTileThreads, 0, stream>>>(in, y, log2n);
  TUT_CHECK_LAUNCH();
}

template <int N2, bool kTable>
void launch_rows(const float2* y, float2* out, int log2n, long long batch, cudaStream_t stream) {
  const long long blocks = batch * ((1ll << log2n) / N2);
  fft_rows_kernel<N2, kTable><<<static_cast<unsigned>(blocks), BlockPlan<N2>::kThreads, 0, stream>>>(y, out, log2n);
  TUT_CHECK_LAUNCH();
}

template <bool kTable>
void launch_four_step(const float2* in, float2* out, int log2n, long long batch, float2* y, cudaStream_t stream) {
  const int n1 = column_length(log2n);
  switch (n1) {
    case 64: launch_columns<64, kTable>(in, y, log2n, batch, stream); break;
    case 128: launch_columns<128, kTable>(in, y, log2n, batch, stream); break;
    case 256: launch_columns<256, kTable>(in, y, log2n, batch, stream); break;
    default:
      tut::fft::throw_unsupported_length("fft_high_radix::launch_four_step", log2n, kMaxBlockLog2n + 1, kMaxLog2n);
  }
  switch (log2n - ilog2(n1)) {  // N2
    case 7: return launch_rows<128, kTable>(y, out, log2n, batch, stream);
    case 8: return launch_rows<256, kTable>(y, out, log2n, batch, stream);
    case 9: return launch_rows<512, kTable>(y, out, log2n, batch, stream);
    case 10: return launch_rows<1024, kTable>(y, out, log2n, batch, stream);
    case 11: return launch_rows<2048, kTable>(y, out, log2n, batch, stream);
    case 12: return launch_rows<4096, kTable>(y, out, log2n, batch, stream);
    default:
      tut::fft::throw_unsupported_length("fft_high_radix::launch_four_step", log2n, kMaxBlockLog2n + 1, kMaxLog2n);
  }
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
  launch_four_step<kTable>(in, out, log2n, batch, static_cast<float2*>(workspace), stream);
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
