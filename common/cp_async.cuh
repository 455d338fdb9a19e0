// cp.async: copies from global to shared memory that do not pass through registers (sm_80+, SASS
// LDGSTS), shared by chapters 17 (the landing zone) and 26-27 (SGEMM double buffering).
//
//   shared_address(p)                  the 32-bit shared-state-space address PTX wants for p
//   cp_async<kBytes>(dst, src, in)     4, 8 or 16 floats' bytes; !in: writes zeros, reads nothing
//   cp_async_16(dst, src)              one 16-byte vector, always in range
//   cp_async_commit()                  closes the group of copies this thread issued since the last commit
//   cp_async_wait<kPending>()          waits until at most kPending of this thread's groups are in flight
//   cp_async_wait_all()                waits for all of this thread's copies
//
// A thread sees its own copies once it has waited for them; other threads' copies only after a
// barrier as well. Compiled for __CUDA_ARCH__ < 800 (sm_75) each copy is an ordinary load and store
// and commit and wait do nothing. All force-inlined: a caller compiles to the instructions it would
// with its own copy of these.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tut::async_copy {

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// Copies kBytes (4, 8 or 16) from global to shared memory; when !in_range it writes kBytes of zeros
// and reads nothing (PTX: a source size of 0), so gmem_src need only be a valid address. 16-byte
// copies bypass L1 (.cg); 4- and 8-byte copies must go through it (.ca, the only form PTX allows for
// fewer than 16 bytes).
template <int kBytes>
__device__ __forceinline__ void cp_async(float* smem_dst, const float* gmem_src, bool in_range) {
  static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16, "cp.async copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
  const int src_bytes = in_range ? kBytes : 0;
  if constexpr (kBytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem_src), "r"(src_bytes)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(gmem_src), "n"(kBytes),
                 "r"(src_bytes)
                 : "memory");
#else
  if constexpr (kBytes == 16)
    *reinterpret_cast<float4*>(smem_dst) =
        in_range ? *reinterpret_cast<const float4*>(gmem_src) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  else if constexpr (kBytes == 8)
    *reinterpret_cast<float2*>(smem_dst) =
        in_range ? *reinterpret_cast<const float2*>(gmem_src) : make_float2(0.0f, 0.0f);
  else
    *smem_dst = in_range ? *gmem_src : 0.0f;
#endif
}

// One 16-byte global-to-shared copy (cp.async.cg: cached in L2 only), source always in range.
__device__ __forceinline__ void cp_async_16(uint4* smem_dst, const uint4* gmem_src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(shared_address(smem_dst)), "l"(gmem_src)
               : "memory");
#else
  *smem_dst = *gmem_src;  // below sm_80: through a register
#endif
}

// Closes the group of copies this thread issued since the last commit.
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

// Waits until all of this thread's cp.async copies have landed (committed or not).
__device__ __forceinline__ void cp_async_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

}  // namespace tut::async_copy
