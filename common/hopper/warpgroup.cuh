// Warpgroups (4 consecutive warps, 128 threads) and the register reallocation of warp-specialised kernels
// (chapter 56): a producer warpgroup that only issues TMA gives registers back, consumer warpgroups that hold wgmma
// accumulators take them (PTX ISA, "setmaxnreg"; sm_90a only, arch.cuh).
//
//   warpgroup_index()                     which warpgroup of the block the calling thread is in (warp-uniform)
//   warpgroup_registers_decrease<R>()     lowers this warpgroup's per-thread register limit to R
//   warpgroup_registers_increase<R>()     raises it to R, waiting until the block's freed registers allow it
//   RegisterSplit<kThreads, kBlocksPerSm, kProducerThreads, kProducerRegisters>
//                                         the registers a block launched with __launch_bounds__(kThreads,
//                                         kBlocksPerSm) has per thread, and the most its consumers can raise to
//                                         once its producer warpgroups have lowered theirs to kProducerRegisters
//
// Every thread of the warpgroup calls the same one (.sync.aligned). R is 24..256, a multiple of 8; the block must
// be launched with a register count the kernel's __launch_bounds__ fixes (at most R for a decrease), and the sum
// over warpgroups after the changes must fit the registers the block was given at launch: .inc draws from a pool
// per block that holds only what .dec gave back, so a split that does not fit waits forever.
#pragma once

#include <cuda_runtime.h>

#include "arch.cuh"

namespace tut::hopper {

inline constexpr int kWarpgroupThreads = 128;

__device__ __forceinline__ int warpgroup_index() {
  // The shuffle tells the compiler the value is the same in every lane (CUTLASS's canonical_warp_group_idx),
  // so branches on it are warp-uniform, which the .aligned instructions inside them need.
  return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x) / kWarpgroupThreads, 0);
}

template <int kRegisters>
__device__ __forceinline__ void warpgroup_registers_decrease() {
  static_assert(kRegisters >= 24 && kRegisters <= 256 && kRegisters % 8 == 0, "setmaxnreg takes 24..256, step 8");
#if TUT_SM90A_DEVICE_CODE
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegisters));
#endif
}

template <int kRegisters>
__device__ __forceinline__ void warpgroup_registers_increase() {
  static_assert(kRegisters >= 24 && kRegisters <= 256 && kRegisters % 8 == 0, "setmaxnreg takes 24..256, step 8");
#if TUT_SM90A_DEVICE_CODE
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegisters));
#endif
}

// The register budget of a warp-specialised block. Registers are allocated per warp, 256 at a time (8 per thread,
// setmaxnreg's step too), out of the SM's 64K; __launch_bounds__(kThreads, kBlocksPerSm) lets ptxas use
// kLaunchRegisters per thread, and a kernel with setmaxnreg is launched with exactly that many (ptxas fixes the
// count so that the block's pool is known). The producers' .dec returns (kLaunchRegisters - kProducerRegisters)
// per producer thread; the consumers' .inc may take the block's budget less what the producers keep.
template <int kThreads, int kBlocksPerSm, int kProducerThreads_, int kProducerRegisters_>
struct RegisterSplit {
  static constexpr int kRegistersPerSm = 64 * 1024;  // sm_80 .. sm_90
  static constexpr int kProducerThreads = kProducerThreads_;
  static constexpr int kLaunchRegisters = kRegistersPerSm / (kThreads * kBlocksPerSm) / 8 * 8;
  static constexpr int kProducerRegisters = kProducerRegisters_;
  static constexpr int kConsumerThreads = kThreads - kProducerThreads;
  static constexpr int kConsumerShare =
      (kThreads * kLaunchRegisters - kProducerThreads * kProducerRegisters) / kConsumerThreads / 8 * 8;
  static constexpr int kConsumerRegisters = kConsumerShare < 256 ? kConsumerShare : 256;
  static_assert(kThreads % kWarpgroupThreads == 0 && kProducerThreads % kWarpgroupThreads == 0 &&
                    kConsumerThreads > 0, "setmaxnreg acts on whole warpgroups");
  static_assert(kProducerRegisters % 8 == 0 && kProducerRegisters >= 24 && kProducerRegisters <= kLaunchRegisters,
                "a decrease: 24 .. the launch count, step 8");
  static_assert(kConsumerRegisters % 8 == 0 && kConsumerRegisters >= kLaunchRegisters && kConsumerRegisters <= 256,
                "an increase: the launch count .. 256, step 8");
  static_assert(kProducerThreads * kProducerRegisters + kConsumerThreads * kConsumerRegisters <=
                    kThreads * kLaunchRegisters,
                "after the changes the warpgroups hold no more than the block was launched with");
};

}  // namespace tut::hopper
