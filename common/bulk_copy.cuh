// Bulk copies (cp.async.bulk, the copy engine TMA) and the mbarriers that count their bytes (PTX ISA 8.0,
// sm_90+), one instruction per function; used by chapter 17's lab (landing_zone_options.cuh,
// persistent_lookback.cuh) and chapter 18. Call them only where __CUDA_ARCH__ >= 900.
//
//   mbarrier_init(b, arrivals)            an mbarrier whose phase completes after `arrivals` arrivals
//   fence_mbarrier_init()                 makes the init visible to the copy engine (the async proxy)
//   mbarrier_arrive_expect_tx(b, bytes)   a phase's arrival, announcing the bytes the copy engine will deliver
//   mbarrier_arrive(b)                    a plain arrival (a phase with no bytes to wait for)
//   mbarrier_try_wait_parity(b, parity)   true once the phase with this parity has completed
//   mbarrier_wait_parity(b, parity)       spins until then
//   mbarrier_arrive_cluster(b, cta)       an arrival on the mbarrier at b's offset in cluster CTA `cta`
//   bulk_copy_global_to_shared(d, s, bytes, b)   the copy; b's transaction count drops as the bytes land
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cp_async.cuh"

namespace tut::bulk_copy {

using tut::async_copy::shared_address;

__device__ __forceinline__ void mbarrier_init(std::uint64_t* barrier, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(barrier)), "r"(arrivals) : "memory");
}
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* barrier, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(barrier)) : "memory");
}
// Acquire: once it returns true, the bytes the phase counted are visible to the waiting thread.
__device__ __forceinline__ bool mbarrier_try_wait_parity(std::uint64_t* barrier, unsigned parity) {
  std::uint32_t done;
  asm volatile(
      "{\n\t"
      ".reg .pred complete;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, complete;\n\t"
      "}"
      : "=r"(done)
      : "r"(shared_address(barrier)), "r"(parity)
      : "memory");
  return done != 0;
}
__device__ __forceinline__ void mbarrier_wait_parity(std::uint64_t* barrier, unsigned parity) {
  while (!mbarrier_try_wait_parity(barrier, parity)) {
  }
}
// Release at cluster scope: how a consumer frees a stage that a multicast copy from another CTA of the cluster
// fills (the same offset's mbarrier in CTA cta_rank, which may be the caller's own).
__device__ __forceinline__ void mbarrier_arrive_cluster(std::uint64_t* barrier, unsigned cta_rank) {
  asm volatile(
      "{\n\t"
      ".reg .b32 remote;\n\t"
      "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n\t"
      "}" ::"r"(shared_address(barrier)),
      "r"(cta_rank)
      : "memory");
}
// Copies `bytes` (a multiple of 16, both addresses 16-byte aligned) from global to shared memory.
__device__ __forceinline__ void bulk_copy_global_to_shared(void* destination, const void* source, unsigned bytes,
                                                           std::uint64_t* barrier) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          shared_address(destination)),
      "l"(source), "r"(bytes), "r"(shared_address(barrier))
      : "memory");
}

}  // namespace tut::bulk_copy
