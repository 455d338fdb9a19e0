// Exercise 04 (chapter 04-warp-aggregated-atomics): warp-aggregated atomic increment, by hand.
//
// Stream compaction (filter): copy the elements src[i] > 0 to dst, in any order, and count them.
// Every selected element needs a slot in dst, taken with atomicAdd on one counter: one atomic per
// element serialises on that address. Warp aggregation takes one atomic per warp instead: the
// lanes that want a slot elect a leader, the leader adds their count, and each lane derives its
// own slot from the leader's old value and its rank among them. Cooperative groups spell it
// `coalesced_threads()`; here it is written with the warp intrinsics underneath.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"

namespace atomic_agg_inc {

constexpr int kWarpSize = 32;
constexpr int kBlock = 256;
constexpr int kMaxBlocks = 4096;

// Lane of this thread in its warp (1-D blocks: warps are runs of 32 consecutive threadIdx.x).
__device__ __forceinline__ unsigned lane_id() { return threadIdx.x % kWarpSize; }

// Returns a slot: *counter's value before an increment by one for this thread. Callable from
// divergent code: the lanes that call it together share one atomicAdd, and they get consecutive
// slots in lane order.
__device__ __forceinline__ int atomic_agg_inc(int* counter) {
  const unsigned active = __activemask();                 // the lanes calling together
  const unsigned leader = __ffs(active) - 1;              // the lowest of them
  const unsigned lane = lane_id();
  int base = 0;
  if (lane == leader) base = atomicAdd(counter, __popc(active));
  base = __shfl_sync(active, base, leader);               // the leader's old value, to every lane
  const unsigned lanes_below = active & ((1u << lane) - 1u);
  return base + __popc(lanes_below);                      // this lane's rank among the callers
}

// filter: dst gets the elements src[i] > 0 (in any order); *count their number. *count must be 0.
__global__ void filter_kernel(const int* __restrict__ src, int* __restrict__ dst, int* count, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int v = src[i];
    if (v > 0) dst[atomic_agg_inc(count)] = v;
  }
}

// The same with one atomicAdd per selected element (for the measurement).
__global__ void filter_plain_kernel(const int* __restrict__ src, int* __restrict__ dst, int* count,
                                    std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int v = src[i];
    if (v > 0) dst[atomicAdd(count, 1)] = v;
  }
}

inline unsigned blocks_for(std::int64_t n) {
  const std::int64_t b = (n + kBlock - 1) / kBlock;
  return static_cast<unsigned>(b < 1 ? 1 : b > kMaxBlocks ? kMaxBlocks : b);
}

// Zeroes *count and filters n elements; *count holds the number selected when the stream reaches it.
inline void filter(const int* src, int* dst, int* count, std::int64_t n, bool aggregated, cudaStream_t stream) {
  TUT_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(int), stream));
  if (n == 0) return;
  if (aggregated) filter_kernel<<<blocks_for(n), kBlock, 0, stream>>>(src, dst, count, n);
  else filter_plain_kernel<<<blocks_for(n), kBlock, 0, stream>>>(src, dst, count, n);
  TUT_CHECK_LAUNCH();
}

}  // namespace atomic_agg_inc
