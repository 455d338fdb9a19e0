// Chapter 50: the SGEMM ladder's register-tiled design (chapter 23's 2-D register tile) on BF16 inputs:
// every operand is converted to FP32 on its way into shared memory and every multiply-add runs on the FP32
// lanes. The baseline that shows the ceiling tensor cores remove: the lanes do 2 FLOP a clock each, 128 FLOP
// per SM per clock on sm_80 (64 lanes) and 256 on sm_90 (128 lanes), against 2048 and 4096 for the tensor cores.
//
// Layout (common/gemm_tc/tc_workload.cuh): A M x K, B N x K, both row-major BF16 (K-major); C M x N FP32.
// A block of 256 threads computes a 128 x 128 tile of C, 8 x 8 per thread, over 16-deep K slices.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "cuda_check.cuh"
#include "gemm/gemm_workload.cuh"
#include "gemm_tc/tc_workload.cuh"

namespace gemm_fp32_lanes {

using tut::gemm_tc::bf16;

constexpr int kBlockM = 128, kBlockN = 128, kBlockK = 16;
constexpr int kThreadM = 8, kThreadN = 8;
constexpr int kThreads = (kBlockM / kThreadM) * (kBlockN / kThreadN);
static_assert(kThreads == 256, "16 x 16 threads of 8 x 8 outputs");
static_assert((kBlockM * kBlockK) % kThreads == 0 && (kBlockN * kBlockK) % kThreads == 0, "whole loads per thread");
static_assert(kThreadN % 4 == 0 && kThreadM % 4 == 0, "float4 reads of the shared slices");

// One K slice of a K-major operand (rows x K), transposed into shared memory as FP32 [kBlockK][kRows]:
// element (row, kk) -> slice[kk][row], so the inner loop reads a thread's 8 rows as two float4. Consecutive
// threads take consecutive rows (conflict-free shared stores; the global reads of a row's 16 elements are
// one 32-byte sector, served from L1 after the first).
template <int kRows>
__device__ __forceinline__ void load_slice_as_float(float (*slice)[kRows], const bf16* g, int rows, int k, int row0,
                                                    int k0) {
#pragma unroll
  for (int i = 0; i < kRows * kBlockK / kThreads; ++i) {
    const int idx = static_cast<int>(threadIdx.x) + i * kThreads;
    const int r = idx % kRows, kk = idx / kRows;
    const int gr = row0 + r, gk = k0 + kk;
    slice[kk][r] = gr < rows && gk < k ? __bfloat162float(g[static_cast<std::size_t>(gr) * k + gk]) : 0.0f;
  }
}

__global__ void __launch_bounds__(kThreads) gemm_fp32_lanes_kernel(int m, int n, int k, float alpha,
                                                                   const bf16* __restrict__ A,
                                                                   const bf16* __restrict__ B, float beta,
                                                                   float* __restrict__ C) {
  __shared__ __align__(16) float a_slice[kBlockK][kBlockM];
  __shared__ __align__(16) float b_slice[kBlockK][kBlockN];
  const int tx = static_cast<int>(threadIdx.x) % (kBlockN / kThreadN);
  const int ty = static_cast<int>(threadIdx.x) / (kBlockN / kThreadN);
  const int m0 = static_cast<int>(blockIdx.y) * kBlockM, n0 = static_cast<int>(blockIdx.x) * kBlockN;

  float acc[kThreadM][kThreadN] = {};
  for (int k0 = 0; k0 < k; k0 += kBlockK) {
    load_slice_as_float<kBlockM>(a_slice, A, m, k, m0, k0);
    load_slice_as_float<kBlockN>(b_slice, B, n, k, n0, k0);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBlockK; ++kk) {
      float a[kThreadM], b[kThreadN];
#pragma unroll
      for (int i = 0; i < kThreadM; i += 4)
        *reinterpret_cast<float4*>(&a[i]) = *reinterpret_cast<const float4*>(&a_slice[kk][ty * kThreadM + i]);
#pragma unroll
      for (int j = 0; j < kThreadN; j += 4)
        *reinterpret_cast<float4*>(&b[j]) = *reinterpret_cast<const float4*>(&b_slice[kk][tx * kThreadN + j]);
#pragma unroll
      for (int i = 0; i < kThreadM; ++i)
#pragma unroll
        for (int j = 0; j < kThreadN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();  // the slices are overwritten next
  }
#pragma unroll
  for (int i = 0; i < kThreadM; ++i) {
    const int row = m0 + ty * kThreadM + i;
    if (row >= m) continue;
#pragma unroll
    for (int j = 0; j < kThreadN; ++j) {
      const int col = n0 + tx * kThreadN + j;
      if (col >= n) continue;
      float* c = C + static_cast<std::size_t>(row) * n + col;
      *c = beta != 0.0f ? alpha * acc[i][j] + beta * *c : alpha * acc[i][j];  // beta == 0: C not read
    }
  }
}

inline void gemm(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                 cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  gemm_fp32_lanes_kernel<<<tut::gemm::tile_grid(m, n, kBlockM, kBlockN), kThreads, 0, stream>>>(m, n, k, alpha, A, B,
                                                                                                beta, C);
  TUT_CHECK_LAUNCH();
}

}  // namespace gemm_fp32_lanes
