// Chapter 04: warp-aggregated atomics, on stream compaction.
// After "GPU programming in CUDA: optimising applications 3" (seed 001, UPV slides by Pedro Alonso),
// part 2 "warp-level atomics". The problem: copy the elements of src that satisfy a predicate
// (here: > 0) into dst, in any order, and return how many there are. Every selected element needs a
// unique slot in dst; the kernels differ in how many atomic operations hand out those slots:
//
//   filter_global_atomic            one global atomicAdd(count, 1) per selected element
//   filter_global_atomic_per_lane   the same, written so that the compiler cannot aggregate it
//   filter_shared_atomic            one shared atomic per element, one global atomic per block and round
//   filter_warp_aggregated_cg       one global atomic per warp (cooperative groups)
//   filter_warp_aggregated_manual   one global atomic per warp (vote, popc and shuffle by hand)
//
// The order of dst depends on which atomic wins; only cub::DeviceSelect (the reference, in main.cu)
// keeps the input order. The slot counter is an int, as in the slides, so n must stay below 2^31.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace warp_aggregation {

namespace cg = cooperative_groups;

using Element = std::int32_t;

constexpr int kWarpSize = 32;
constexpr int kBlockThreads = 256;  // every kernel; a multiple of the warp size, so warps are full
static_assert(kBlockThreads % kWarpSize == 0, "blocks of whole warps: no warp is cut by the block edge");

// The slides' NPER_THREAD (left undefined there): rounds of kBlockThreads elements each block of the
// shared-memory kernel handles, one shared counter reset per round.
constexpr int kSharedRoundsPerBlock = 4;

// The predicate of the filter. Also handed to cub::DeviceSelect::If.
struct IsPositive {
  __host__ __device__ bool operator()(Element x) const { return x > 0; }
};

__device__ __forceinline__ std::int64_t global_thread_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// ---- 1. One global atomic per selected element --------------------------------------------------

// The slides' first kernel. As written, every selected thread asks the global counter for a slot.
// Recent nvcc versions rewrite this into a warp-aggregated form themselves (see the README and the
// host test check_sass.py, which reports what this build's SASS contains).
__global__ void filter_global_atomic(Element* __restrict__ dst, int* __restrict__ count,
                                     const Element* __restrict__ src, std::int64_t n) {
  const std::int64_t i = global_thread_index();
  if (i < n) {
    const Element value = src[i];
    if (IsPositive{}(value)) dst[atomicAdd(count, 1)] = value;
  }
}

// The same kernel, but the counter's address is `count + lane * lane_stride` with lane_stride = 0
// passed at run time: every lane still increments the same counter, but the compiler can no longer
// prove the address is the same for the whole warp, so it must emit one atomic per selected lane.
// This is what filter_global_atomic cost before compilers aggregated it: the slides' baseline.
__global__ void filter_global_atomic_per_lane(Element* __restrict__ dst, int* __restrict__ count,
                                              const Element* __restrict__ src, std::int64_t n,
                                              int lane_stride) {
  const std::int64_t i = global_thread_index();
  if (i < n) {
    const Element value = src[i];
    int* counter = count + static_cast<int>(threadIdx.x % kWarpSize) * lane_stride;
    if (IsPositive{}(value)) dst[atomicAdd(counter, 1)] = value;
  }
}

// ---- 2. Shared-memory counter, one global atomic per block --------------------------------------

// The slides' second kernel: each round, the block counts its selected elements with shared-memory
// atomics (which give each one its slot inside the block's run), thread 0 reserves the block's run in
// dst with one global atomic, and every selected thread writes at run base + its slot.
//
// Fixes the slides' defect: there, `d` (the element) and `pos` (its slot) were declared but only set
// when i < n, and read again later under a repeated guard. Here both are defined for every thread.
__global__ void __launch_bounds__(kBlockThreads)
    filter_shared_atomic(Element* __restrict__ dst, int* __restrict__ count, const Element* __restrict__ src,
                         std::int64_t n) {
  __shared__ int block_run;  // this round: first the block's count, then the base of its run in dst
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * (kSharedRoundsPerBlock * kBlockThreads) + threadIdx.x;
  for (int round = 0; round < kSharedRoundsPerBlock; ++round, i += kBlockThreads) {
    if (threadIdx.x == 0) block_run = 0;
    __syncthreads();

    const Element value = i < n ? src[i] : 0;
    const bool selected = i < n && IsPositive{}(value);
    const int slot_in_block = selected ? atomicAdd(&block_run, 1) : 0;
    __syncthreads();  // all shared increments done: block_run is the block's count

    if (threadIdx.x == 0) block_run = atomicAdd(count, block_run);  // reserve the run in dst
    __syncthreads();  // block_run is now the run's base

    if (selected) dst[block_run + slot_in_block] = value;
    __syncthreads();  // nobody reads block_run any more before thread 0 resets it
  }
}

// ---- 3. Warp aggregation with cooperative groups -------------------------------------------------

// The slides' atomicAggInc: called by the threads that want a slot, returns each a distinct slot.
//   1. the group of lanes that are executing this call together (the selected lanes of the warp);
//   2. their total increment is the group's size;
//   3. its first lane reserves that many slots with one atomic;
//   4. it broadcasts the base to the group;
//   5. each lane takes base + its rank in the group.
__device__ __forceinline__ int atomic_aggregated_increment_cg(int* counter) {
  const cg::coalesced_group group = cg::coalesced_threads();  // 1
  int warp_base = 0;
  if (group.thread_rank() == 0) warp_base = atomicAdd(counter, static_cast<int>(group.size()));  // 2, 3
  return group.shfl(warp_base, 0) + static_cast<int>(group.thread_rank());                       // 4, 5
}

__global__ void filter_warp_aggregated_cg(Element* __restrict__ dst, int* __restrict__ count,
                                          const Element* __restrict__ src, std::int64_t n) {
  const std::int64_t i = global_thread_index();
  if (i < n) {
    const Element value = src[i];
    if (IsPositive{}(value)) dst[atomic_aggregated_increment_cg(count)] = value;
  }
}

// ---- 4. Warp aggregation by hand: vote, popc, shuffle ---------------------------------------------

// Bit k set for every lane k below the calling lane (the PTX special register %lanemask_lt).
__device__ __forceinline__ unsigned lane_mask_lt() {
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}

// Called by every lane, selected or not; returns a distinct slot to each lane with wants_slot (and an
// unspecified value to the others). Voting on the predicate, instead of relying on which lanes happen
// to be inside an `if` as coalesced_threads() does, aggregates over every lane that is active here.
__device__ __forceinline__ int warp_aggregated_slot(int* counter, bool wants_slot) {
  const unsigned active = __activemask();                  // the lanes executing this call together
  const unsigned voters = __ballot_sync(active, wants_slot);  // the lanes that need a slot
  if (voters == 0) return 0;                               // the same for all of `active`: no divergence
  const unsigned voters_below = voters & lane_mask_lt();
  const int leader = __ffs(static_cast<int>(voters)) - 1;  // the lowest voting lane
  int warp_base = 0;
  if (wants_slot && voters_below == 0) warp_base = atomicAdd(counter, __popc(voters));  // the leader only
  warp_base = __shfl_sync(active, warp_base, leader);
  return warp_base + __popc(voters_below);  // rank among the voters
}

__global__ void filter_warp_aggregated_manual(Element* __restrict__ dst, int* __restrict__ count,
                                              const Element* __restrict__ src, std::int64_t n) {
  const std::int64_t i = global_thread_index();
  const Element value = i < n ? src[i] : 0;
  const bool selected = i < n && IsPositive{}(value);
  const int slot = warp_aggregated_slot(count, selected);  // every lane takes part, out of range or not
  if (selected) dst[slot] = value;
}

}  // namespace warp_aggregation
