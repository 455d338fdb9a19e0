// Chapter 55: chapter 54's wgmma kernel, with the stages filled by TMA instead of cp.async: one thread asks the
// Tensor Memory Accelerator for a whole 2-D box of A and of B per slice (written 128-byte swizzled, zeros past the
// matrix edges), and an mbarrier per stage counts the bytes as they land, so the warpgroups wait for exactly their
// slice instead of meeting at a block barrier; a second mbarrier per stage says when both warpgroups are done with
// it and the copy engine may refill it. sm_90a only (common/hopper/arch.cuh): elsewhere the kernel body compiles
// out and setup_gemm_tma() refuses with one line.
//
// Layout (common/gemm_tc/tc_workload.cuh): A M x K, B N x K, both row-major BF16 (K-major); C M x N FP32.
// Tile, stages and epilogue are chapter 54's (gemm_wgmma::WgmmaTile). TMA needs rows that start on 16 bytes (K a
// multiple of 8, aligned bases; common/hopper/tma.cuh): other problems, and K = 0, take chapter 54's kernel.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "bulk_copy.cuh"
#include "cli.hpp"
#include "cuda_check.cuh"
#include "gemm/gemm_workload.cuh"
#include "gemm_tc/mma_sync.cuh"
#include "gemm_tc/tc_workload.cuh"
#include "gemm_tc/tile_copy.cuh"
#include "gemm_wgmma.cuh"  // chapter 54: the tile, and the kernel for what TMA cannot describe
#include "hopper/arch.cuh"
#include "hopper/tma.cuh"
#include "hopper/warpgroup.cuh"
#include "hopper/wgmma.cuh"
#include "setup_registry.cuh"

namespace gemm_tma {

using tut::gemm_tc::bf16;
template <int kBlockN, int kStages>
using Tile = gemm_wgmma::WgmmaTile<kBlockN, kStages>;

// Whether TMA can describe both operands (rows 16-byte aligned: K a multiple of 8, aligned bases) and there is a
// K to load at all; otherwise chapter 54's cp.async kernel, which copies edge chunks element by element, runs.
inline bool tma_describes(const bf16* A, const bf16* B, int k) {
  return k > 0 && tut::gemm_tc::vector_ok(A, k) && tut::gemm_tc::vector_ok(B, k);
}

template <int kBlockN, int kStages>
__global__ void __launch_bounds__(Tile<kBlockN, kStages>::kThreads, Tile<kBlockN, kStages>::kBlocksPerSm)
    gemm_tma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int m,
                    int n, int k, float alpha, float beta, float* __restrict__ C, bool pairs_c) {
#if TUT_SM90A_DEVICE_CODE
  using T = Tile<kBlockN, kStages>;
  using namespace tut::gemm_tc;
  using namespace tut::bulk_copy;
  using namespace tut::hopper;
  constexpr unsigned kStageBytes = (T::kATileElements + T::kBTileElements) * sizeof(bf16);
  extern __shared__ __align__(16) unsigned char shared_raw[];  // realigned below: only 16 bytes are promised
  __shared__ std::uint64_t full[kStages];   // the stage holds its slice: 1 arrival (with the bytes) + the bytes
  __shared__ std::uint64_t empty[kStages];  // every thread's wgmmas are done reading the stage: kThreads arrivals
  bf16* const a_stages = reinterpret_cast<bf16*>(align_to_swizzle_atom(shared_raw));
  bf16* const b_stages = a_stages + kStages * T::kATileElements;
  const int warpgroup = warpgroup_index();
  const int warp_in_group = (static_cast<int>(threadIdx.x) / 32) % 4;
  const int m0 = static_cast<int>(blockIdx.y) * T::kBlockM, n0 = static_cast<int>(blockIdx.x) * kBlockN;
  const int slices = (k + T::kBlockK - 1) / T::kBlockK;
  const bool producer = threadIdx.x == 0;

  // Thread 0 only: announces the stage's bytes and asks TMA for slice s's boxes of A (128 x 64) and B (kBlockN x
  // 64). Rows past M or N and columns past K arrive as zeros, and count as bytes like the rest.
  auto load_slice = [&](int s) {
    const int stage = s % kStages;
    mbarrier_arrive_expect_tx(&full[stage], kStageBytes);
    tma_load_2d(a_stages + stage * T::kATileElements, &map_a, s * T::kBlockK, m0, &full[stage]);
    tma_load_2d(b_stages + stage * T::kBTileElements, &map_b, s * T::kBlockK, n0, &full[stage]);
  };

  if (producer) {
    prefetch_tensor_map(&map_a);
    prefetch_tensor_map(&map_b);
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], T::kThreads);
    }
    fence_mbarrier_init();  // the copy engine must see initialised barriers
  }
  __syncthreads();  // the barriers are initialised before anyone waits on them: the kernel's only block barrier
  // Prologue: every stage in flight (no stage is in use yet).
  if (producer)
    for (int s = 0; s < kStages && s < slices; ++s) load_slice(s);

  float acc[T::kAccumulators];
#pragma unroll
  for (int i = 0; i < T::kAccumulators; ++i) acc[i] = 0.0f;
  for (int s = 0; s < slices; ++s) {
    const int stage = s % kStages;
    const unsigned parity = (s / kStages) & 1;  // the stage's use count, mod 2: which phase to wait for
    // Slice s's bytes have landed (TMA wrote them through the async proxy, which wgmma reads: no fence).
    mbarrier_wait_parity(&full[stage], parity);

    const std::uint64_t desc_a = make_smem_descriptor_sw128(a_stages + stage * T::kATileElements +
                                                            warpgroup * T::kWgmmaM * T::kBlockK);
    const std::uint64_t desc_b = make_smem_descriptor_sw128(b_stages + stage * T::kBTileElements);
    accumulator_fence(acc);
    wgmma_fence();  // the accumulators were last written by ordinary instructions (zeroing) or the last wait
#pragma unroll
    for (int kk = 0; kk < T::kBlockK; kk += T::kWgmmaK)
      wgmma_m64k16_bf16<kBlockN>(acc, smem_descriptor_advance_k(desc_a, kk), smem_descriptor_advance_k(desc_b, kk),
                                 true);
    wgmma_commit_group();
    wgmma_wait_group<0>();  // this thread's wgmmas no longer read the stage
    accumulator_fence(acc);

    mbarrier_arrive(&empty[stage]);
    if (producer && s + kStages < slices) {
      mbarrier_wait_parity(&empty[stage], parity);  // both warpgroups are done with the stage: refill it
      load_slice(s + kStages);
    }
    __syncwarp();  // warp 0 reconverges before its next .sync.aligned wgmma
  }

  // Epilogue (chapter 54's): an 8-column block j of the accumulators is an mma.sync m16n8 C fragment.
  const int row0 = m0 + warpgroup * T::kWgmmaM + warp_in_group * 16;
#pragma unroll
  for (int j = 0; j < kBlockN / 8; ++j) {
    const float fragment[4] = {acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]};
    store_c_fragment(fragment, C, m, n, row0, n0 + 8 * j, alpha, beta, pairs_c);
  }
#else
  (void)map_a, (void)map_b, (void)m, (void)n, (void)k, (void)alpha, (void)beta, (void)C, (void)pairs_c;
#endif
}

template <int kBlockN, int kStages>
inline tut::PerDevice<tut::SetupDone> setup_done;

// Refuses (tut::UsageError, one line) where this program's sm_90a code cannot run, then opts in to the dynamic
// shared memory of this kernel and of chapter 54's (the path for what TMA cannot describe); once per device.
template <int kBlockN, int kStages>
inline void setup_gemm_tma(const std::string& variant) {
  setup_done<kBlockN, kStages>.ensure([&] {
    if (const char* why = tut::hopper::sm90a_unavailable_reason()) throw tut::UsageError(variant + ": " + why);
    TUT_CUDA_CHECK(cudaFuncSetAttribute(gemm_tma_kernel<kBlockN, kStages>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        Tile<kBlockN, kStages>::kSharedBytes));
    gemm_wgmma::setup_gemm_wgmma<kBlockN, kStages>(variant);
    return tut::SetupDone{};
  });
}

template <int kBlockN, int kStages>
inline void gemm(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                 cudaStream_t stream) {
  using T = Tile<kBlockN, kStages>;
  if (m == 0 || n == 0) return;
  setup_done<kBlockN, kStages>.require("bf16-gemm-tma-mbarrier", "setup_gemm_tma");
  if (!tma_describes(A, B, k)) {
    gemm_wgmma::gemm<kBlockN, kStages>(m, n, k, alpha, A, B, beta, C, stream);
    return;
  }
  // Host work only (no allocation, no synchronisation): the maps travel as __grid_constant__ parameters.
  const tut::hopper::TensorMap2d map_a = tut::hopper::make_tensor_map_2d_bf16(A, m, k, k, T::kBlockM, T::kBlockK);
  const tut::hopper::TensorMap2d map_b = tut::hopper::make_tensor_map_2d_bf16(B, n, k, k, kBlockN, T::kBlockK);
  const bool pairs_c = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
  gemm_tma_kernel<kBlockN, kStages><<<tut::gemm::tile_grid(m, n, T::kBlockM, kBlockN), T::kThreads,
                                      T::kSharedBytes, stream>>>(map_a.map, map_b.map, m, n, k, alpha, beta, C,
                                                                 pairs_c);
  TUT_CHECK_LAUNCH();
}

// One tile shape as a variant of a chapter program (this chapter's, and chapters 56 and 57's same-run rows): the
// launch and its set-up (the sm_90a check and the shared-memory opt-ins).
template <int kBlockN, int kStages>
tut::gemm_tc::TcVariant as_variant(const std::string& name, const std::string& description, bool on_demand) {
  return {name, description, gemm<kBlockN, kStages>, 90, on_demand,
          [name](int, int, int) { setup_gemm_tma<kBlockN, kStages>(name); }};
}

}  // namespace gemm_tma
