// The split-K reduction, shared by chapter 29 (FP32 SGEMM) and chapter 58 (BF16 on the tensor cores). The
// partial-sum kernel left `splits` slices of count floats each (slice s at workspace + s * count, same layout as C);
// this sums them into C:
//     C[i] = alpha * (ws[0][i] + ws[1][i] + ... + ws[splits-1][i]) + beta * C[i]      (beta == 0: C not read)
// One writer per element and a fixed order of the sum for a given split count and GPU: the same bits on every run,
// no atomics. Memory-bound: splits + 1 (or + 2 with beta != 0) floats moved per element, in float4s where C and
// count allow, a grid-stride loop sized to the GPU.
//
// Groups. One thread per element (or float4) suits a large C with few splits (chapter 29's). A small C with many
// splits (chapter 58's 256 x 256 x 65536: 16384 float4s and 66 splits; 64 x 64 x 131072: 1024 float4s and 132)
// would leave most SMs idle and each thread with a long chain of loads. There `groups` threads share an element:
// thread g sums the splits g, g + groups, g + 2 groups, ..., and the block adds the groups' sums in order g = 0, 1,
// ... through shared memory. With groups = 1 the order is plain split order (every split count below 16).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"

namespace split_k_reduce {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;  // resident blocks of 256 threads: enough loads in flight for DRAM
constexpr int kMaxGroups = 32;   // threads per element at most (a power of two that divides kThreads)
static_assert(kThreads % kMaxGroups == 0, "each block holds whole groups of every size up to kMaxGroups");

// alpha * sum + beta * c, where beta == 0 ignores c (it may be NaN).
__device__ __forceinline__ float scale_and_add(float sum, float alpha, float beta, float c) {
  return beta == 0.0f ? alpha * sum : fmaf(beta, c, alpha * sum);
}

__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ float4 add(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__device__ __forceinline__ float scale_and_add(float sum, float alpha, float beta, const float* c) {
  return scale_and_add(sum, alpha, beta, beta == 0.0f ? 0.0f : *c);
}
__device__ __forceinline__ float4 scale_and_add(float4 sum, float alpha, float beta, const float4* c) {
  const float4 old = beta == 0.0f ? make_float4(0.0f, 0.0f, 0.0f, 0.0f) : *c;
  return make_float4(scale_and_add(sum.x, alpha, beta, old.x), scale_and_add(sum.y, alpha, beta, old.y),
                     scale_and_add(sum.z, alpha, beta, old.z), scale_and_add(sum.w, alpha, beta, old.w));
}

// items elements of T (float, or float4 where the workspace and C are 16-byte aligned and count is a multiple of 4),
// `groups` threads per element (a power of two, at most kMaxGroups and splits).
template <class T>
__global__ void __launch_bounds__(kThreads) reduce_splits_kernel(std::size_t items, int splits, int groups,
                                                                 const T* __restrict__ ws, float alpha, float beta,
                                                                 T* __restrict__ C) {
  __shared__ T group_sums[kThreads];
  const int per_pass = kThreads / groups;  // elements a block sums at a time
  const int e = static_cast<int>(threadIdx.x) % per_pass, g = static_cast<int>(threadIdx.x) / per_pass;
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * per_pass;
  // The loop's trip count is the block's, not the thread's: every thread reaches the barriers below.
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * per_pass; base < items; base += step) {
    const std::size_t i = base + e;
    T sum{};
    if (i < items) {
      sum = ws[g * items + i];
#pragma unroll 4
      for (int s = g + groups; s < splits; s += groups) sum = add(sum, ws[s * items + i]);  // loads run ahead
    }
    if (groups == 1) {
      if (i < items) C[i] = scale_and_add(sum, alpha, beta, &C[i]);
      continue;
    }
    group_sums[threadIdx.x] = sum;
    __syncthreads();
    if (g == 0 && i < items) {
      for (int h = 1; h < groups; ++h) sum = add(sum, group_sums[h * per_pass + e]);  // group order
      C[i] = scale_and_add(sum, alpha, beta, &C[i]);
    }
    __syncthreads();  // group_sums is read before the next pass writes it
  }
}

// Threads per element: doubled while the GPU's resident threads outnumber them, up to kMaxGroups, and while each
// thread still sums kSplitsPerThread splits or more (fewer leave the block's serial sum of the groups the longest
// step: at 256 x 256 x 65536 on 132 SMs, 32 groups of 2 splits took 11.9 us, as long as one thread per element).
constexpr int kSplitsPerThread = 8;
inline int groups_for(std::size_t items, int splits, int sms) {
  const std::size_t resident = static_cast<std::size_t>(std::max(sms, 1)) * kBlocksPerSm * kThreads;
  int groups = 1;
  while (groups * 2 <= std::min(splits / kSplitsPerThread, kMaxGroups) && items * groups < resident) groups *= 2;
  return groups;
}

// Enqueues the reduction of `splits` slices of `count` floats at `workspace` (16-byte aligned) into C.
inline void reduce_splits(std::size_t count, int splits, const float* workspace, float alpha, float beta, float* C,
                          int sms, cudaStream_t stream) {
  if (count == 0) return;
  const bool vec4 = count % 4 == 0 && reinterpret_cast<std::uintptr_t>(C) % 16 == 0;
  const std::size_t items = vec4 ? count / 4 : count;
  const int groups = groups_for(items, splits, sms);
  const std::size_t wanted = (items * groups + kThreads - 1) / kThreads;
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(wanted, static_cast<std::size_t>(sms) * kBlocksPerSm));
  if (vec4)
    reduce_splits_kernel<float4><<<blocks, kThreads, 0, stream>>>(
        items, splits, groups, reinterpret_cast<const float4*>(workspace), alpha, beta, reinterpret_cast<float4*>(C));
  else
    reduce_splits_kernel<float><<<blocks, kThreads, 0, stream>>>(items, splits, groups, workspace, alpha, beta, C);
  TUT_CHECK_LAUNCH();
}

}  // namespace split_k_reduce
