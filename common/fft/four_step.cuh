// The four-step FFT of chapters 33-35 for N > 4096, shared unchanged: two kernels through a global-memory
// workspace, each running the chapter's own block FFT (the BlockFft policy below) on one column or one row.
//
// Index the signal as a matrix of N1 rows and N2 columns, x[j1 N2 + j2]. Then, with k = k1 + N1 k2,
//   X[k1 + N1 k2] = sum_j2 W_N2^(j2 k2) [ W_N^(j2 k1) sum_j1 W_N1^(j1 k1) x[j1 N2 + j2] ]
// Step 1 (fft_columns_kernel): an N1-point FFT down every column j2, times W_N^(j2 k1), stored in place of
// the column in the workspace: y[k1 N2 + j2]. Step 2 (fft_rows_kernel): an N2-point FFT along every row k1
// of y, its output k2 stored at k1 + N1 k2. N1 = max(2^kMinColumnLog2n, N / 4096) and N2 = N / N1 <= 4096,
// so N <= 2^20. W_N^(j2 k1) comes from sincospif (N is beyond the chapters' twiddle table): one per value, or by
// powers where the block FFT's Twiddle twiddles by butterfly (pass_plan.cuh's twiddle_outputs).
//
// What the kernels take from a chapter's block FFT, BlockFft (a struct of static members):
//   template <int N> using Plan                 its pass plan for N (pass_plan.cuh: kPerThread, kThreads, ...)
//   template <int N> static void run(float2 (&v)[Plan<N>::kPerThread], float2* buf, int t)   (__device__)
//                                               the N-point FFT by thread t of Plan<N>: v from input_element
//                                               order to output_element order, through buf; every thread of
//                                               the block calls it (it has barriers)
//   template <int N> static int buffer_length() values of buf that run<N> needs (constexpr)
//   template <int N> static int column_stride() distance between two columns of a column tile, >= that
//   static int slot(int element)                where a signal's element sits in buf (__device__)
//   static constexpr int kMinColumnLog2n        log2 of the shortest column FFT N1 the chapter runs
// and, optionally:
//   using Twiddle                               the Twiddle of pass_plan.cuh whose way W_N^(j2 k1) follows
//                                               (twiddle_outputs); without it, one sincospif per value
// UnpaddedBuffers supplies the buffer members for a block FFT whose buffer is the plain signal.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "complex.cuh"
#include "cuda_check.cuh"
#include "dispatch.hpp"
#include "pass_plan.cuh"

namespace tut::fft {

constexpr int kFourStepMaxLog2n = 20;
constexpr int kFourStepMaxBlockLog2n = 12;  // N2 <= 4096: a row is one block's FFT
constexpr int kColumnTileThreads = 256;     // threads of a column block: C columns x N1 / E threads each

// The buffer members of a BlockFft whose buffer holds the signal as it is: N values, element e at e.
struct UnpaddedBuffers {
  template <int N>
  __host__ __device__ static constexpr int buffer_length() { return N; }
  template <int N>
  __host__ __device__ static constexpr int column_stride() { return N; }
  static __device__ __forceinline__ int slot(int element) { return element; }
};

// BlockFft::Twiddle where it has one, else SincospifTwiddle: how the column kernel makes W_N^(j2 k1).
template <class BlockFft, class = void>
struct FourStepTwiddle {
  using type = SincospifTwiddle;
};
template <class BlockFft>
struct FourStepTwiddle<BlockFft, std::void_t<typename BlockFft::Twiddle>> {
  using type = typename BlockFft::Twiddle;
};

// A column block's share of one signal: C adjacent columns of N1 values, column c at tile[c kStride ...].
template <class BlockFft, int N1>
struct ColumnTile {
  using Plan = typename BlockFft::template Plan<N1>;
  static constexpr int kThreadsPerColumn = Plan::kThreads;
  static constexpr int kColumns = kColumnTileThreads / kThreadsPerColumn;  // C
  static constexpr int kStride = BlockFft::template column_stride<N1>();
  static_assert(kColumns * kThreadsPerColumn == kColumnTileThreads, "whole columns per block");
};

// Block (column tile c0 .. c0 + C - 1 of signal s). The tile is read and written row by row, C consecutive
// complex values per row (coalesced), and transposed through shared memory, where each column is one
// contiguous signal for the block FFT.
template <class BlockFft, int N1>
__global__ void __launch_bounds__(kColumnTileThreads) fft_columns_kernel(const float2* __restrict__ in,
                                                                        float2* __restrict__ y, int log2n) {
  using Tile = ColumnTile<BlockFft, N1>;
  using Plan = typename Tile::Plan;
  constexpr int C = Tile::kColumns, T1 = Tile::kThreadsPerColumn, E = Plan::kPerThread, P = Tile::kStride;
  __shared__ float2 tile[C * P];
  const int n = 1 << log2n, n2 = n / N1;
  const int tiles_per_signal = n2 / C;
  const long long signal = blockIdx.x / tiles_per_signal;
  const int c0 = (blockIdx.x % tiles_per_signal) * C;
  const float2* src = in + signal * n + c0;
  float2* dst = y + signal * n + c0;
  for (int e = threadIdx.x; e < C * N1; e += kColumnTileThreads) {  // row e / C, column e % C
    tile[(e % C) * P + BlockFft::slot(e / C)] = src[static_cast<long long>(e / C) * n2 + e % C];
  }
  __syncthreads();
  const int column = threadIdx.x / T1, t = threadIdx.x % T1;
  float2* col = tile + column * P;  // this column: the FFT's input, exchange buffer and output
  const int j2 = c0 + column;
  float2 v[E];
#pragma unroll
  for (int i = 0; i < E; ++i) v[i] = col[BlockFft::slot(input_element<Plan>(t, i))];
  __syncthreads();  // every read of the tile before the first exchange writes into it
  BlockFft::template run<N1>(v, col, t);
  twiddle_outputs<Plan, typename FourStepTwiddle<BlockFft>::type>(v, t, j2, n);  // W_N^(j2 k1), j2 k1 < N
#pragma unroll
  for (int i = 0; i < E; ++i) col[BlockFft::slot(output_element<Plan>(t, i))] = v[i];
  __syncthreads();
  for (int e = threadIdx.x; e < C * N1; e += kColumnTileThreads) {
    dst[static_cast<long long>(e / C) * n2 + e % C] = tile[(e % C) * P + BlockFft::slot(e / C)];
  }
}

// Block (row k1 of signal s): the N2-point FFT of y's row, output k2 to out[s N + k1 + N1 k2]. Those
// stores are N1 elements apart; neighbouring blocks fill in the rest of each 32-byte sector in L2.
template <class BlockFft, int N2>
__global__ void __launch_bounds__(BlockFft::template Plan<N2>::kThreads) fft_rows_kernel(
    const float2* __restrict__ y, float2* __restrict__ out, int log2n) {
  using Plan = typename BlockFft::template Plan<N2>;
  constexpr int E = Plan::kPerThread;
  __shared__ float2 buf[BlockFft::template buffer_length<N2>()];
  const int n1 = (1 << log2n) / N2;
  const long long signal = blockIdx.x / n1;
  const int k1 = blockIdx.x % n1;
  const float2* src = y + signal * (static_cast<long long>(n1) * N2) + static_cast<long long>(k1) * N2;
  float2* dst = out + signal * (static_cast<long long>(n1) * N2) + k1;
  const int t = threadIdx.x;
  float2 v[E];
#pragma unroll
  for (int i = 0; i < E; ++i) v[i] = src[input_element<Plan>(t, i)];
  BlockFft::template run<N2>(v, buf, t);
#pragma unroll
  for (int i = 0; i < E; ++i) dst[static_cast<long long>(output_element<Plan>(t, i)) * n1] = v[i];
}

// ---- Host side ---------------------------------------------------------------------------------------------
// log2 N1 for a four-step length 2^log2n: N1 = max(2^min_column_log2n, N / 4096).
constexpr int four_step_column_log2n(int log2n, int min_column_log2n) {
  return log2n - kFourStepMaxBlockLog2n > min_column_log2n ? log2n - kFourStepMaxBlockLog2n : min_column_log2n;
}

// Workspace: the four-step intermediate y, batch N complex values (none for N <= 4096, which needs no four-step).
inline std::size_t four_step_workspace_bytes(int log2n, long long batch) {
  return log2n > kFourStepMaxBlockLog2n
             ? static_cast<std::size_t>(batch) * (std::size_t{1} << log2n) * sizeof(float2)
             : 0;
}

// One batched four-step FFT of 2^log2n (4096 < N <= 2^20) through the workspace y: the column kernel, then the
// row kernel, both on `stream`. `variant` names the caller in the error for a length it has no kernel for.
template <class BlockFft>
void launch_four_step(const float2* in, float2* out, int log2n, long long batch, float2* y, cudaStream_t stream,
                      const char* variant) {
  constexpr int kMinColumnLog2n = BlockFft::kMinColumnLog2n;
  require_length(variant, log2n, kFourStepMaxBlockLog2n + 1, kFourStepMaxLog2n);
  const int log2n1 = four_step_column_log2n(log2n, kMinColumnLog2n);
  dispatch_length<kMinColumnLog2n, kFourStepMaxLog2n - kFourStepMaxBlockLog2n>(log2n1, variant, [&](auto n1) {
    constexpr int N1 = decltype(n1)::value;
    const long long blocks = batch * ((1ll << log2n) / N1 / ColumnTile<BlockFft, N1>::kColumns);
    fft_columns_kernel<BlockFft, N1>
        <<<static_cast<unsigned>(blocks), kColumnTileThreads, 0, stream>>>(in, y, log2n);
    TUT_CHECK_LAUNCH();
  });
  constexpr int kMinRowLog2n = kFourStepMaxBlockLog2n + 1 - kMinColumnLog2n;
  dispatch_length<kMinRowLog2n, kFourStepMaxBlockLog2n>(log2n - log2n1, variant, [&](auto n2) {
    constexpr int N2 = decltype(n2)::value;
    const long long blocks = batch * ((1ll << log2n) / N2);
    fft_rows_kernel<BlockFft, N2>
        <<<static_cast<unsigned>(blocks), BlockFft::template Plan<N2>::kThreads, 0, stream>>>(y, out, log2n);
    TUT_CHECK_LAUNCH();
  });
}

}  // namespace tut::fft
