// Chapter 02: building blocks shared by the experiments.
//  - the article's FMA chains on the GPU, and their CPU reference;
//  - control of residency: how many blocks of a kernel share one SM, set with dynamic shared memory
//    and confirmed with the occupancy calculator (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda_check.cuh"
#include "principles_math.hpp"
#include "setup_registry.cuh"
#include "verify.hpp"

// Most threads one SM holds, for launch bounds: register budgets follow from it (65536 registers
// / 2048 threads = 32 per thread). Host and device passes may differ; only the device pass uses it.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define PRINCIPLES_MAX_THREADS_PER_SM 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || \
                                 __CUDA_ARCH__ >= 1200)
#define PRINCIPLES_MAX_THREADS_PER_SM 1536
#else
#define PRINCIPLES_MAX_THREADS_PER_SM 2048
#endif

namespace principles {

constexpr int kWarpSize = 32;

// ---- FMA chains on the GPU --------------------------------------------------------------------
// Chain buffers hold one float per thread in each of 2 * chains planes: plane 2c is `a` of chain c,
// plane 2c + 1 is its `b`. Planes are `stride` floats apart, so each warp's loads and stores are
// coalesced.
template <int kChains>
__device__ __forceinline__ void load_chains(const float* init, std::size_t stride, std::size_t t,
                                            float (&a)[kChains], float (&b)[kChains]) {
#pragma unroll
  for (int c = 0; c < kChains; ++c) {
    a[c] = init[(2 * c) * stride + t];
    b[c] = init[(2 * c + 1) * stride + t];
  }
}

// Storing every chain's final value is what keeps the compiler from deleting the arithmetic.
template <int kChains>
__device__ __forceinline__ void store_chains(float* out, std::size_t stride, std::size_t t,
                                             const float (&a)[kChains], const float (&b)[kChains]) {
#pragma unroll
  for (int c = 0; c < kChains; ++c) {
    out[(2 * c) * stride + t] = a[c];
    out[(2 * c + 1) * stride + t] = b[c];
  }
}

// `steps` steps of every chain. The chains are interleaved, so consecutive FMAs are independent and
// can be in the pipeline at the same time (instruction-level parallelism); within one chain every
// FMA waits for the previous one. The body is unrolled to 256 FMAs so that the loop's own counter,
// compare and branch take about 1% of the issue slots.
template <int kChains, class Step>
__device__ __forceinline__ void run_chains(float (&a)[kChains], float (&b)[kChains], long long steps, Step step) {
  static_assert(kChains >= 1 && 128 % kChains == 0, "1, 2, 4, 8, ... chains");
  constexpr int kUnroll = 128 / kChains;  // steps per iteration: 2 FMAs x kChains x kUnroll = 256
  // The remainder first, then whole iterations. Each loop keeps one down-counter in registers and
  // nothing else, which leaves 32 registers enough for 8 chains (so 2048 threads fit per SM).
#pragma unroll 1
  for (int i = static_cast<int>(steps % kUnroll); i > 0; --i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) step(a[c], b[c]);
  }
  for (long long i = steps / kUnroll; i > 0; --i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < kChains; ++c) step(a[c], b[c]);
    }
  }
}

// ---- FMA chains on the CPU --------------------------------------------------------------------
// Seeded starting values in (-0.9, -0.1) for `planes` planes of `stride` threads.
inline std::vector<float> chain_start_values(std::size_t planes, std::size_t stride, std::uint64_t seed) {
  return tut::random_floats(planes * stride, seed, kChainLow, kChainHigh);
}

namespace detail {
template <int kChains>
void run_chains_cpu(const std::vector<float>& init, std::vector<float>& out, std::size_t stride, std::size_t t,
                    std::uint64_t steps, bool mirrored) {
  float a[kChains], b[kChains];
  for (int c = 0; c < kChains; ++c) {
    a[c] = init[(2 * c) * stride + t];
    b[c] = init[(2 * c + 1) * stride + t];
  }
  for (std::uint64_t s = 0; s < steps; ++s)
    for (int c = 0; c < kChains; ++c) {
      if (mirrored) MirroredStep{}(a[c], b[c]);
      else ArticleStep{}(a[c], b[c]);
    }
  for (int c = 0; c < kChains; ++c) {
    out[(2 * c) * stride + t] = a[c];
    out[(2 * c + 1) * stride + t] = b[c];
  }
}
}  // namespace detail

// The CPU reference of `steps` steps of the first `chains` chains (1, 2, 4 or 8) of all `stride`
// threads; thread t runs MirroredStep where mirrored(t) is true, ArticleStep elsewhere. Same layout
// as the GPU's buffers. Runs on all host cores.
template <class IsMirrored>
std::vector<float> chain_reference(const std::vector<float>& init, std::size_t stride, int chains,
                                   std::uint64_t steps, IsMirrored mirrored) {
  std::vector<float> out(2 * static_cast<std::size_t>(chains) * stride);
  tut::parallel_for(stride, [&](std::size_t begin, std::size_t end) {
    for (std::size_t t = begin; t < end; ++t) {
      const bool m = mirrored(t);
      switch (chains) {
        case 1: detail::run_chains_cpu<1>(init, out, stride, t, steps, m); break;
        case 2: detail::run_chains_cpu<2>(init, out, stride, t, steps, m); break;
        case 4: detail::run_chains_cpu<4>(init, out, stride, t, steps, m); break;
        default: detail::run_chains_cpu<8>(init, out, stride, t, steps, m); break;
      }
    }
  }, 64);
  return out;
}

inline std::vector<float> chain_reference(const std::vector<float>& init, std::size_t stride, int chains,
                                          std::uint64_t steps) {
  return chain_reference(init, stride, chains, steps, [](std::size_t) { return false; });
}

// Compares the first `threads` entries of the first `planes` planes (`stride` apart) of two chain
// buffers, exactly: both sides round each fmaf once, in the same order, so they agree to the bit.
// A reported index is plane * threads + thread.
inline tut::CheckResult compare_planes(const std::vector<float>& expected, const std::vector<float>& actual,
                                       std::size_t stride, std::size_t threads, int planes) {
  std::vector<float> e, a;
  e.reserve(planes * threads);
  a.reserve(planes * threads);
  for (int p = 0; p < planes; ++p) {
    const std::size_t at = static_cast<std::size_t>(p) * stride;
    e.insert(e.end(), expected.begin() + at, expected.begin() + at + threads);
    a.insert(a.end(), actual.begin() + at, actual.begin() + at + threads);
  }
  return tut::compare_exact(e, a);
}

// ---- Residency: blocks per SM -----------------------------------------------------------------
inline int device_attribute(cudaDeviceAttr attribute) {
  int device = 0, value = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

template <class... Args>
cudaFuncAttributes kernel_attributes(void (*kernel)(Args...)) {
  cudaFuncAttributes a{};
  TUT_CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
  return a;
}

// Dynamic shared memory one launch of `kernel` may ask for: the per-block opt-in limit less the
// kernel's static shared memory.
template <class... Args>
std::size_t max_dynamic_smem(void (*kernel)(Args...)) {
  const int optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
  return static_cast<std::size_t>(optin) - kernel_attributes(kernel).sharedSizeBytes;
}

// Lets launches of `kernel` ask for all the shared memory a block may have (above 48 KiB this must
// be allowed explicitly) and asks for the largest shared-memory carveout of the L1, so that only the
// dynamic shared memory of a launch decides how many of its blocks fit on an SM.
template <class... Args>
void allow_all_shared_memory(void (*kernel)(Args...)) {
  TUT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(max_dynamic_smem(kernel))));
  TUT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      cudaSharedmemCarveoutMaxShared));
}

// Blocks of `kernel` that can be resident on one SM at once, as the occupancy calculator sees it:
// the tightest of the limits on threads, registers, shared memory and blocks per SM.
template <class... Args>
int resident_blocks_per_sm(void (*kernel)(Args...), int block_threads, std::size_t dynamic_smem) {
  int blocks = 0;
  TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block_threads, dynamic_smem));
  return blocks;
}

// How one launch configuration shares the SM.
struct Residency {
  int block_threads = 0;
  int blocks_per_sm = 0;         // what the experiment asks for
  std::size_t dynamic_smem = 0;  // bytes per block, unused by the kernel: it only keeps blocks out
  int resident = 0;              // what the occupancy calculator says fits
  int unconstrained = 0;         // what would fit without the dynamic shared memory
  int resident_warps() const { return resident * block_threads / kWarpSize; }
  bool as_intended() const { return resident == blocks_per_sm; }
};

// The kernels allow_all_shared_memory has run for, per device.
inline tut::SetupKeys& shared_memory_allowed() {
  static tut::SetupKeys keys;
  return keys;
}

// One-time set-up of `kernel` on the current device (idempotent): allow_all_shared_memory. A workload's
// setup() calls it for its variant's kernel, so that no checked or timed run pays for it.
template <class... Args>
void setup_shared_memory(void (*kernel)(Args...)) {
  shared_memory_allowed().ensure(reinterpret_cast<const void*>(kernel), [&] { allow_all_shared_memory(kernel); });
}

// Finds the least dynamic shared memory (whole KiB) with which no more than `blocks_per_sm` blocks
// of `block_threads` threads fit on one SM, and reports what then fits. Fewer than asked fit when
// another limit binds first (too many threads for this GPU's SM, say); the caller shows that. Only
// queries: setup_shared_memory(kernel) must have run on the current device (else std::logic_error).
template <class... Args>
Residency plan_residency(void (*kernel)(Args...), int block_threads, int blocks_per_sm) {
  shared_memory_allowed().require(reinterpret_cast<const void*>(kernel), "02-gpu-principles", "setup_shared_memory");
  Residency r;
  r.block_threads = block_threads;
  r.blocks_per_sm = blocks_per_sm;
  const std::size_t limit = max_dynamic_smem(kernel);
  for (std::size_t smem = 0; smem <= limit; smem += 1024) {
    if (resident_blocks_per_sm(kernel, block_threads, smem) <= blocks_per_sm) {
      r.dynamic_smem = smem;
      break;
    }
  }
  r.resident = resident_blocks_per_sm(kernel, block_threads, r.dynamic_smem);
  r.unconstrained = resident_blocks_per_sm(kernel, block_threads, 0);
  return r;
}

}  // namespace principles
