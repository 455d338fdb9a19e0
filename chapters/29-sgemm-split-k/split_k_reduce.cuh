// Chapter 29: the split-K reduction. The partial-sum kernel left `splits` slices of count floats each
// (slice s at workspace + s * count, same layout as C); this sums them, in split order, into C:
//     C[i] = alpha * (ws[0][i] + ws[1][i] + ... + ws[splits-1][i]) + beta * C[i]      (beta == 0: C not read)
// One writer per element and a fixed order of the sum: the same bits on every run, no atomics.
// Memory-bound: splits + 1 (or + 2 with beta != 0) floats moved per element, in float4s where C and count
// allow, a grid-stride loop sized to the GPU.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"

namespace split_k_reduce {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;  // resident blocks of 256 threads: enough loads in flight for DRAM

// alpha * sum + beta * c, where beta == 0 ignores c (it may be NaN).
__device__ __forceinline__ float scale_and_add(float sum, float alpha, float beta, float c) {
  return beta == 0.0f ? alpha * sum : fmaf(beta, c, alpha * sum);
}

// The sum over the slices of element i (T = float) or of four consecutive elements (T = float4).
template <class T>
__device__ __forceinline__ T sum_slices(const T* __restrict__ ws, std::size_t stride, int splits, std::size_t i);

template <>
__device__ __forceinline__ float sum_slices<float>(const float* __restrict__ ws, std::size_t stride, int splits,
                                                   std::size_t i) {
  float sum = ws[i];
  for (int s = 1; s < splits; ++s) sum += ws[s * stride + i];  // split order: the same bits every run
  return sum;
}

template <>
__device__ __forceinline__ float4 sum_slices<float4>(const float4* __restrict__ ws, std::size_t stride, int splits,
                                                     std::size_t i) {
  float4 sum = ws[i];
  for (int s = 1; s < splits; ++s) {
    const float4 v = ws[s * stride + i];
    sum.x += v.x;
    sum.y += v.y;
    sum.z += v.z;
    sum.w += v.w;
  }
  return sum;
}

// count4 float4s (the workspace and C 16-byte aligned, the slice length a multiple of 4).
__global__ void reduce_splits_vec4(std::size_t count4, int splits, const float4* __restrict__ ws, float alpha,
                                   float beta, float4* __restrict__ C) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count4; i += step) {
    const float4 sum = sum_slices<float4>(ws, count4, splits, i);
    const float4 c = beta == 0.0f ? make_float4(0.0f, 0.0f, 0.0f, 0.0f) : C[i];
    C[i] = make_float4(scale_and_add(sum.x, alpha, beta, c.x), scale_and_add(sum.y, alpha, beta, c.y),
                       scale_and_add(sum.z, alpha, beta, c.z), scale_and_add(sum.w, alpha, beta, c.w));
  }
}

// Any count, any float-aligned C.
__global__ void reduce_splits_scalar(std::size_t count, int splits, const float* __restrict__ ws, float alpha,
                                     float beta, float* __restrict__ C) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    C[i] = scale_and_add(sum_slices<float>(ws, count, splits, i), alpha, beta, beta == 0.0f ? 0.0f : C[i]);
}

// Enqueues the reduction of `splits` slices of `count` floats at `workspace` (16-byte aligned) into C.
inline void reduce_splits(std::size_t count, int splits, const float* workspace, float alpha, float beta, float* C,
                          int sms, cudaStream_t stream) {
  if (count == 0) return;
  const bool vec4 = count % 4 == 0 && reinterpret_cast<std::uintptr_t>(C) % 16 == 0;
  const std::size_t items = vec4 ? count / 4 : count;
  const std::size_t wanted = (items + kThreads - 1) / kThreads;
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(wanted, static_cast<std::size_t>(sms) * kBlocksPerSm));
  if (vec4)
    reduce_splits_vec4<<<blocks, kThreads, 0, stream>>>(items, splits, reinterpret_cast<const float4*>(workspace),
                                                        alpha, beta, reinterpret_cast<float4*>(C));
  else
    reduce_splits_scalar<<<blocks, kThreads, 0, stream>>>(count, splits, workspace, alpha, beta, C);
  TUT_CHECK_LAUNCH();
}

}  // namespace split_k_reduce
