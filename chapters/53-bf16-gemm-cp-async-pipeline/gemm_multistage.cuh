// Chapter 53: chapter 52's kernel with a multi-stage cp.async pipeline: kStages shared-memory stages of the
// 32-deep K slices, the copies of slice s + kStages - 1 in flight (global to shared, no registers) while the
// tensor cores work on slice s, and one barrier per slice instead of two. The best design for sm_80-89 and
// the fallback stage of the Hopper chapters on those GPUs. sm_80+: below it the kernel body compiles out and
// the host refuses the GPU.
//
// Layout (common/gemm_tc/tc_workload.cuh): A M x K, B N x K, both row-major BF16 (K-major); C M x N FP32.
// A block of 8 warps computes a 128 x 128 tile of C; warps 2 (M) x 4 (N), each a 64 x 32 warp tile of 4 x 4
// mma tiles of 16 x 8. 4 stages of (128 + 128) x 32 BF16 = 64 KiB of dynamic shared memory (the opt-in above
// 48 KiB is setup_gemm_multistage(), called once per device).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "cp_async.cuh"
#include "cuda_check.cuh"
#include "gemm/gemm_workload.cuh"
#include "gemm_tc/mma_sync.cuh"
#include "gemm_tc/tc_workload.cuh"
#include "gemm_tc/tile_copy.cuh"
#include "setup_registry.cuh"

namespace gemm_multistage {

using tut::gemm_tc::bf16;

constexpr int kBlockM = 128, kBlockN = 128, kBlockK = 32;
constexpr int kStages = 4;
constexpr int kWarpsM = 2, kWarpsN = 4, kThreads = 32 * kWarpsM * kWarpsN;
constexpr int kWarpM = kBlockM / kWarpsM, kWarpN = kBlockN / kWarpsN;  // 64 x 32
constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;                        // mma.m16n8k16
constexpr int kTilesM = kWarpM / kMmaM, kTilesN = kWarpN / kMmaN;      // 4 x 4
constexpr int kATileElements = kBlockM * kBlockK, kBTileElements = kBlockN * kBlockK;
constexpr int kSharedBytes = kStages * (kATileElements + kBTileElements) * static_cast<int>(sizeof(bf16));
using Swizzle = tut::gemm_tc::Swizzled32;
static_assert(kBlockK == Swizzle::kRowElements, "the swizzle is for rows of 32 BF16");
static_assert(kWarpM % kMmaM == 0 && kWarpN % (2 * kMmaN) == 0, "B is loaded two n-tiles per ldmatrix.x4");
static_assert(kBlockK % kMmaK == 0, "whole mma steps per slice");
static_assert(kStages >= 2 && kStages <= 8, "cp.async.wait_group takes kStages - 2");
static_assert(kSharedBytes <= 227 * 1024, "fits an sm_80/sm_90 block's shared memory");

// The pipeline's two decisions, in one place: which stage holds slice s, and how many of this thread's cp.async
// groups may still be in flight when slice s is read (one group per slice: after the prologue's kStages - 1 and s
// more, "at most kStages - 2 pending" means slice s has landed, and slices s + 1 ... s + kStages - 2 stay in
// flight). A template parameter of the kernel, so that exercise 53-cp-async-wait-depth runs it with its own.
struct Schedule {
  static constexpr int kWaitDepth = kStages - 2;
  __host__ __device__ __forceinline__ static int stage_of(int slice) { return slice % kStages; }
};

template <class Pipeline>
__global__ void __launch_bounds__(kThreads) gemm_multistage_kernel(int m, int n, int k, float alpha,
                                                                   const bf16* __restrict__ A,
                                                                   const bf16* __restrict__ B, float beta,
                                                                   float* __restrict__ C, bool vec_a, bool vec_b,
                                                                   bool pairs_c) {
  static_assert(Pipeline::kWaitDepth >= 0, "cp.async.wait_group takes a count of groups");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace tut::gemm_tc;
  using namespace tut::async_copy;
  extern __shared__ __align__(128) unsigned char shared_bytes[];
  bf16* const a_stages = reinterpret_cast<bf16*>(shared_bytes);
  bf16* const b_stages = a_stages + kStages * kATileElements;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int warp_m = (warp / kWarpsN) * kWarpM, warp_n = (warp % kWarpsN) * kWarpN;
  const int m0 = static_cast<int>(blockIdx.y) * kBlockM, n0 = static_cast<int>(blockIdx.x) * kBlockN;
  const int slices = (k + kBlockK - 1) / kBlockK;

  // Starts the copies of slice s into its stage (asynchronous where a chunk is whole and aligned; edge chunks and
  // zeros are plain stores, visible after the barrier like the rest).
  auto load_slice = [&](int s) {
    const int stage = Pipeline::stage_of(s);
    copy_tile<kBlockM, kBlockK, kThreads, true>(a_stages + stage * kATileElements, Swizzle{}, A, m, k, k, m0,
                                                s * kBlockK, vec_a);
    copy_tile<kBlockN, kBlockK, kThreads, true>(b_stages + stage * kBTileElements, Swizzle{}, B, n, k, k, n0,
                                                s * kBlockK, vec_b);
  };

  // Prologue: slices 0 ... kStages - 2 in flight, one commit group each (empty groups past the last slice
  // keep the count of groups, and so the wait below, the same for every iteration).
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < slices) load_slice(s);
    cp_async_commit();
  }

  float acc[kTilesM][kTilesN][4] = {};
  for (int s = 0; s < slices; ++s) {
    // s + kStages - 1 groups committed; at most kStages - 2 still in flight: slice s has landed.
    cp_async_wait<Pipeline::kWaitDepth>();
    // Every thread's copies of slice s visible, and every warp done with slice s - 1, whose stage the
    // refill below overwrites.
    __syncthreads();
    if (s + kStages - 1 < slices) load_slice(s + kStages - 1);
    cp_async_commit();

    const bf16* a_tile = a_stages + Pipeline::stage_of(s) * kATileElements;
    const bf16* b_tile = b_stages + Pipeline::stage_of(s) * kBTileElements;
#pragma unroll
    for (int kk = 0; kk < kBlockK; kk += kMmaK) {
      std::uint32_t a[kTilesM][4], b[kTilesN / 2][4];
#pragma unroll
      for (int i = 0; i < kTilesM; ++i)
        ldmatrix_x4(a[i], a_tile + Swizzle{}(warp_m + i * kMmaM + a_ldmatrix_row(lane), kk / 8 + a_ldmatrix_chunk(lane)));
#pragma unroll
      for (int p = 0; p < kTilesN / 2; ++p)  // n-tiles 2p and 2p + 1: registers {0, 1} and {2, 3}
        ldmatrix_x4(b[p], b_tile + Swizzle{}(warp_n + p * 2 * kMmaN + b_ldmatrix_row(lane), kk / 8 + b_ldmatrix_chunk(lane)));
#pragma unroll
      for (int i = 0; i < kTilesM; ++i)
#pragma unroll
        for (int j = 0; j < kTilesN; ++j) mma_bf16_16816(acc[i][j], a[i], b[j / 2][(j % 2) * 2], b[j / 2][(j % 2) * 2 + 1]);
    }
  }
  cp_async_wait_all();  // only empty groups are left; no copy may outlive the block
#pragma unroll
  for (int i = 0; i < kTilesM; ++i)
#pragma unroll
    for (int j = 0; j < kTilesN; ++j)
      store_c_fragment(acc[i][j], C, m, n, m0 + warp_m + i * kMmaM, n0 + warp_n + j * kMmaN, alpha, beta, pairs_c);
#else
  (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)vec_a, (void)vec_b, (void)pairs_c;
#endif
}

// One record per schedule: the opt-in belongs to the kernel, and exercise 53's schedule makes another kernel.
template <class Pipeline>
inline tut::PerDevice<tut::SetupDone> setup_done_for;
inline tut::PerDevice<tut::SetupDone>& setup_done = setup_done_for<Schedule>;

// The opt-in to kSharedBytes of dynamic shared memory (above the default 48 KiB), once per device.
template <class Pipeline = Schedule>
inline void setup_gemm_multistage() {
  setup_done_for<Pipeline>.ensure([] {
    TUT_CUDA_CHECK(cudaFuncSetAttribute(gemm_multistage_kernel<Pipeline>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        kSharedBytes));
    return tut::SetupDone{};
  });
}

// The launcher, with the schedule as a parameter (exercise 53 passes its own).
template <class Pipeline>
inline void gemm_with(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                      cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  setup_done_for<Pipeline>.require("bf16-cp-async-pipeline", "setup_gemm_multistage");
  const bool pairs_c = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
  gemm_multistage_kernel<Pipeline><<<tut::gemm::tile_grid(m, n, kBlockM, kBlockN), kThreads, kSharedBytes, stream>>>(
      m, n, k, alpha, A, B, beta, C, tut::gemm_tc::vector_ok(A, k), tut::gemm_tc::vector_ok(B, k), pairs_c);
  TUT_CHECK_LAUNCH();
}

inline void gemm(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                 cudaStream_t stream) {
  gemm_with<Schedule>(m, n, k, alpha, A, B, beta, C, stream);
}

// The stage as a variant of a chapter program: this chapter's, and chapters 54-57's (their previous stage, or
// their fallback where sm_90a code cannot run).
inline tut::gemm_tc::TcVariant as_variant(const std::string& name, const std::string& description, bool on_demand) {
  return {name, description, gemm, 80, on_demand, [](int, int, int) { setup_gemm_multistage(); }};
}
// The stage as chapters 55-57 register it: on demand, and their fallback where sm_90a code cannot run.
inline tut::gemm_tc::TcVariant as_fallback_variant(const std::string& name) {
  return as_variant(name, "chapter 53's stage (cp.async pipeline feeding ldmatrix + mma.sync): the fallback off sm_90a",
                    true);
}

}  // namespace gemm_multistage
