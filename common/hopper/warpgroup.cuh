// Warpgroups (4 consecutive warps, 128 threads) and the register reallocation of warp-specialised kernels
// (chapter 56): a producer warpgroup that only issues TMA gives registers back, consumer warpgroups that hold wgmma
// accumulators take them (PTX ISA, "setmaxnreg"; sm_90a only, arch.cuh).
//
//   warpgroup_index()                     which warpgroup of the block the calling thread is in (warp-uniform)
//   warpgroup_registers_decrease<R>()     lowers this warpgroup's per-thread register limit to R
//   warpgroup_registers_increase<R>()     raises it to R, waiting until the block's freed registers allow it
//
// Every thread of the warpgroup calls the same one (.sync.aligned). R is 24..256, a multiple of 8; the block must
// be launched with a register count the kernel's __launch_bounds__ fixes (at most R for a decrease), and the sum
// over warpgroups after the changes must fit the registers the block was given at launch.
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

}  // namespace tut::hopper
