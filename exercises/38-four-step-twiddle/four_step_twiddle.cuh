// Exercise 38 (chapter 38-fft-two-pass): the twiddle of the four-step FFT, folded into pass 1's stores.
//
// The four-step view of one signal x of N = N1 x N2 (N1 rows j1, N2 columns j2: x[j1 N2 + j2]; k = k1 + N1 k2):
//   X[k1 + N1 k2] = sum_j2 W_N2^(j2 k2) [ W_N^(j2 k1) sum_j1 W_N1^(j1 k1) x[j1 N2 + j2] ]
// Pass 1 runs the N1-point FFTs down the columns (the inner sum), multiplies by the twiddle W_N^(j2 k1) and stores
// the result where the column was, y[k1 N2 + j2]; pass 2 runs the N2-point FFTs along the rows k1 of y and stores
// them transposed. Chapter 38's header is included unchanged: its tile plans (Pass<kLog2n, S, rows>), pass 2
// (fft_rows_kernel) and chapter 35's block FFT (fft_tuned::block_fft) with its thread-to-element maps. The pass-1
// kernel below is chapter 38's fft_columns_kernel with its last loop in store_twiddled(), the function to write.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "../../chapters/38-fft-two-pass/fft_two_pass.cuh"  // chapter 38, unchanged
#include "fft/complex.cuh"

namespace four_step_twiddle {

// Thread t's pass-1 outputs of column j2 of one signal: v[i] is element k1 = fft_tuned::output_element<Plan>(t, i)
// of the column's N1-point FFT. Stores each, times the twiddle W_N^(j2 k1), at y[k1 N2] (dst points at y[j2]).
template <class Plan, int N, int N2>
__device__ __forceinline__ void store_twiddled(float2* dst, const float2 (&v)[Plan::kPerThread], int t, int j2) {
  // TODO: for each i < Plan::kPerThread: k1 = fft_tuned::output_element<Plan>(t, i); store v[i] times the twiddle
  // W_N^(j2 k1) at dst[k1 * N2] (tut::fft::cmul, tut::fft::twiddle(m, n) = exp(-2 pi i m / n), common/fft/complex.cuh).
  // As shipped the values are stored without their twiddle: each pass is right, the FFT is not.
  (void)j2;
#pragma unroll
  for (int i = 0; i < Plan::kPerThread; ++i) dst[fft_tuned::output_element<Plan>(t, i) * N2] = v[i];
}

// The stage's launch shape (E = 16, 8 or 16 columns per block) and the lengths built here.
using Shape = fft_two_pass::Shape<16>;
constexpr int kMinLog2n = fft_two_pass::kFirstLog2n, kMaxLog2n = 20;  // 4096 .. 2^20

// Chapter 38's pass 1 (fft_columns_kernel), with store_twiddled.
template <int kLog2n>
__global__ void __maxnreg__((fft_two_pass::Pass<kLog2n, Shape, false>::kMaxRegisters))
    columns_kernel(const float2* __restrict__ in, float2* __restrict__ y) {
  using P = fft_two_pass::Pass<kLog2n, Shape, false>;
  if constexpr (fft_two_pass::compiled_out_here<P>()) {
    __trap();  // sm_75 runs the two passes up to 2^16 only (chapter 38)
  } else {
    using Plan = typename P::Plan;
    constexpr int N = P::N, N2 = P::N2, E = P::E, W = P::W;
    extern __shared__ __align__(16) float2 shared[];
    const long long signal = blockIdx.x / P::kGroups;
    const int c = threadIdx.x % W, t = threadIdx.x / W;
    const int j2 = (blockIdx.x % P::kGroups) * W + c;
    const float2* src = in + signal * N + j2;
    float2 v[E];
#pragma unroll
    for (int i = 0; i < E; ++i) v[i] = src[fft_tuned::input_element<Plan>(t, i) * N2];
    fft_tuned::block_fft<Plan, fft_tuned::kStageTwiddles>(v, shared + c * P::kStride, t);
    store_twiddled<Plan, N, N2>(y + signal * N + j2, v, t, j2);
  }
}

// Whether this device runs both kernels at 2^kLog2n: chapter 38's rule (2^16 at most below sm_80, where the
// longer lengths are not compiled) and both blocks' shared memory within the opt-in limit.
template <int kLog2n>
bool runs_here(int major, int opt_in) {
  using Columns = fft_two_pass::Pass<kLog2n, Shape, false>;
  using Rows = fft_two_pass::Pass<kLog2n, Shape, true>;
  return (major >= 8 || kLog2n <= fft_two_pass::kSm75MaxLog2n) &&
         Columns::kSharedBytes <= static_cast<std::size_t>(opt_in) && Rows::kSharedBytes <= static_cast<std::size_t>(opt_in);
}

// The longest length this device runs, every shorter one from kMinLog2n included.
template <int kLog2n = kMinLog2n>
int max_log2n_here(int major, int opt_in) {
  if constexpr (kLog2n <= kMaxLog2n) {
    if (runs_here<kLog2n>(major, opt_in)) return max_log2n_here<kLog2n + 1>(major, opt_in);
  }
  return kLog2n - 1;
}
inline int max_log2n_here() {
  return max_log2n_here(fft_two_pass::compute_major(), fft_two_pass::opt_in_shared_bytes());
}

inline std::size_t workspace_bytes(int log2n, long long batch) {
  return static_cast<std::size_t>(batch) * (std::size_t{1} << log2n) * sizeof(float2);
}

// The shared-memory opt-in of both kernels at every length this device runs. Once per device, before a launch.
template <int kLog2n = kMinLog2n>
void setup() {
  if constexpr (kLog2n <= kMaxLog2n) {
    if (runs_here<kLog2n>(fft_two_pass::compute_major(), fft_two_pass::opt_in_shared_bytes())) {
      using Columns = fft_two_pass::Pass<kLog2n, Shape, false>;
      using Rows = fft_two_pass::Pass<kLog2n, Shape, true>;
      TUT_CUDA_CHECK(cudaFuncSetAttribute(columns_kernel<kLog2n>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(Columns::kSharedBytes)));
      TUT_CUDA_CHECK(cudaFuncSetAttribute(fft_two_pass::fft_rows_kernel<kLog2n, Shape>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(Rows::kSharedBytes)));
    }
    setup<kLog2n + 1>();
  }
}

// Pass 1 (above) then chapter 38's pass 2, through the workspace y (workspace_bytes).
template <int kLog2n = kMinLog2n>
void launch(const float2* in, float2* out, int log2n, long long batch, float2* y, cudaStream_t stream) {
  if constexpr (kLog2n <= kMaxLog2n) {
    if (log2n != kLog2n) return launch<kLog2n + 1>(in, out, log2n, batch, y, stream);
    using Columns = fft_two_pass::Pass<kLog2n, Shape, false>;
    using Rows = fft_two_pass::Pass<kLog2n, Shape, true>;
    const long long column_blocks = batch * Columns::kGroups, row_blocks = batch * Rows::kGroups;
    if (column_blocks > INT_MAX || row_blocks > INT_MAX) throw std::invalid_argument("four_step_twiddle: batch too large");
    columns_kernel<kLog2n><<<static_cast<unsigned>(column_blocks), Columns::kThreads, Columns::kSharedBytes, stream>>>(
        in, y);
    TUT_CHECK_LAUNCH();
    fft_two_pass::fft_rows_kernel<kLog2n, Shape>
        <<<static_cast<unsigned>(row_blocks), Rows::kThreads, Rows::kSharedBytes, stream>>>(y, out);
    TUT_CHECK_LAUNCH();
  }
}

inline void forward(const float2* in, float2* out, int log2n, long long batch, void* workspace, cudaStream_t stream) {
  tut::fft::require_length("four_step_twiddle::forward", log2n, kMinLog2n, max_log2n_here());
  if (batch <= 0) return;
  if (workspace == nullptr) throw std::invalid_argument("four_step_twiddle::forward: no workspace");
  launch(in, out, log2n, batch, static_cast<float2*>(workspace), stream);
}

}  // namespace four_step_twiddle
