// Chapter 56: chapter 55's TMA + mbarrier pipeline, with the work split by warpgroup: warpgroup 0 is the producer
// (one of its threads waits for a stage to be free and asks TMA for the slice's boxes; the whole warpgroup gives
// its registers back with setmaxnreg.dec), warpgroups 1 and 2 are the consumers (they take those registers with
// setmaxnreg.inc and only multiply). A consumer keeps one group of wgmmas in flight: it waits until at most one
// group is pending, which retires the previous slice's, and only then frees that slice's stage, so the tensor
// pipe has the next slice's wgmmas queued while the producer refills. sm_90a only (common/hopper/arch.cuh):
// elsewhere the kernel body compiles out and setup_gemm_warp_specialized() refuses with one line.
//
// Layout (common/gemm_tc/tc_workload.cuh): A M x K, B N x K, both row-major BF16 (K-major); C M x N FP32.
// The consumers are chapter 54's two warpgroups with its tile, stages and epilogue (gemm_wgmma::WgmmaTile); the
// producer warpgroup comes in front of them (384 threads). TMA needs rows that start on 16 bytes (K a multiple of
// 8, aligned bases; common/hopper/tma.cuh): other problems, and K = 0, take chapter 54's kernel.
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
#include "gemm_tma.cuh"    // chapter 55: which problems TMA describes
#include "gemm_wgmma.cuh"  // chapter 54: the tile, and the kernel for what TMA cannot describe
#include "hopper/arch.cuh"
#include "hopper/tma.cuh"
#include "hopper/warpgroup.cuh"
#include "hopper/wgmma.cuh"
#include "setup_registry.cuh"

namespace gemm_warp_specialized {

using tut::gemm_tc::bf16;

// Chapter 54's tile for the two consumer warpgroups, one producer warpgroup more, and the registers split between
// them: the block gets 65536 / 384 = 168 per thread at launch, the producer keeps 40 (CUTLASS's warp-specialised
// kernels keep as many) and the consumers take the rest, 232 (common/hopper/warpgroup.cuh, RegisterSplit).
// One block per SM whatever the shared memory: two would leave 80 registers per thread at launch, and ptxas
// (CUDA 13.0) compiles a wgmma within the launch count even after setmaxnreg.inc, so an m64n128k16 with its 64
// accumulators does not compile there (error C7602, "insufficient registers").
template <int kBlockN, int kStages>
struct Tile : gemm_wgmma::WgmmaTile<kBlockN, kStages> {
  using Consumers = gemm_wgmma::WgmmaTile<kBlockN, kStages>;
  static constexpr int kConsumerThreads = Consumers::kThreads;                      // 256: warpgroups 1 and 2
  static constexpr int kThreads = tut::hopper::kWarpgroupThreads + kConsumerThreads;  // 384: warpgroup 0 loads
  static constexpr int kBlocksPerSm = 1;
  using Registers = tut::hopper::RegisterSplit<kThreads, kBlocksPerSm, tut::hopper::kWarpgroupThreads, 40>;
  static_assert(Registers::kLaunchRegisters == 168 && Registers::kConsumerRegisters == 232, "the split above");
};

// kMoveRegisters = false: the same kernel without setmaxnreg (every warpgroup keeps what ptxas gives it), the
// candidate that measures what the register split is worth.
template <int kBlockN, int kStages, bool kMoveRegisters = true>
__global__ void __launch_bounds__(Tile<kBlockN, kStages>::kThreads, Tile<kBlockN, kStages>::kBlocksPerSm)
    gemm_warp_specialized_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                                 int m, int n, int k, float alpha, float beta, float* __restrict__ C, bool pairs_c) {
#if TUT_SM90A_DEVICE_CODE
  using T = Tile<kBlockN, kStages>;
  using namespace tut::gemm_tc;
  using namespace tut::bulk_copy;
  using namespace tut::hopper;
  constexpr unsigned kStageBytes = (T::kATileElements + T::kBTileElements) * sizeof(bf16);
  extern __shared__ __align__(16) unsigned char shared_raw[];  // realigned below: only 16 bytes are promised
  __shared__ std::uint64_t full[kStages];   // the stage holds its slice: 1 arrival (with the bytes) + the bytes
  __shared__ std::uint64_t empty[kStages];  // the consumers' wgmmas are done reading the stage: 256 arrivals
  bf16* const a_stages = reinterpret_cast<bf16*>(align_to_swizzle_atom(shared_raw));
  bf16* const b_stages = a_stages + kStages * T::kATileElements;
  const int warpgroup = warpgroup_index();
  const int m0 = static_cast<int>(blockIdx.y) * T::kBlockM, n0 = static_cast<int>(blockIdx.x) * kBlockN;
  const int slices = (k + T::kBlockK - 1) / T::kBlockK;

  // The producer's thread only: announces the stage's bytes and asks TMA for slice s's boxes of A (128 x 64) and
  // B (kBlockN x 64). Rows past M or N and columns past K arrive as zeros, and count as bytes like the rest.
  auto load_slice = [&](int s) {
    const int stage = s % kStages;
    mbarrier_arrive_expect_tx(&full[stage], kStageBytes);
    tma_load_2d(a_stages + stage * T::kATileElements, &map_a, s * T::kBlockK, m0, &full[stage]);
    tma_load_2d(b_stages + stage * T::kBTileElements, &map_b, s * T::kBlockK, n0, &full[stage]);
  };

  if (threadIdx.x == 0) {
    prefetch_tensor_map(&map_a);
    prefetch_tensor_map(&map_b);
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], T::kConsumerThreads);
    }
    fence_mbarrier_init();  // the copy engine must see initialised barriers
  }
  __syncthreads();  // the barriers are initialised before anyone waits on them: the kernel's only block barrier

  if (warpgroup == 0) {
    // The producer needs a loop counter and a few addresses: its registers go to the consumers (all 128 threads
    // execute the .dec; then one thread loads and the others are done).
    if constexpr (kMoveRegisters) warpgroup_registers_decrease<T::Registers::kProducerRegisters>();
    if (threadIdx.x == 0)
      for (int s = 0; s < slices; ++s) {
        const int stage = s % kStages;
        // The first kStages slices find their stages unused; slice s waits until the consumers have freed the
        // stage of slice s - kStages (that stage's previous use: parity (s / kStages - 1) mod 2).
        if (s >= kStages) mbarrier_wait_parity(&empty[stage], (s / kStages - 1) & 1);
        load_slice(s);
      }
    return;
  }

  if constexpr (kMoveRegisters) warpgroup_registers_increase<T::Registers::kConsumerRegisters>();
  const int consumer = warpgroup - 1;  // rows 64 consumer .. 64 consumer + 63 of the tile
  const int warp_in_group = (static_cast<int>(threadIdx.x) / 32) % 4;
  float acc[T::kAccumulators];
#pragma unroll
  for (int i = 0; i < T::kAccumulators; ++i) acc[i] = 0.0f;
  for (int s = 0; s < slices; ++s) {
    const int stage = s % kStages;
    const unsigned parity = (s / kStages) & 1;  // the stage's use count, mod 2: which phase to wait for
    // Slice s's bytes have landed (TMA wrote them through the async proxy, which wgmma reads: no fence).
    mbarrier_wait_parity(&full[stage], parity);

    const std::uint64_t desc_a = make_smem_descriptor_sw128(a_stages + stage * T::kATileElements +
                                                            consumer * T::kWgmmaM * T::kBlockK);
    const std::uint64_t desc_b = make_smem_descriptor_sw128(b_stages + stage * T::kBTileElements);
    accumulator_fence(acc);
    wgmma_fence();  // the accumulators were last written by ordinary instructions (zeroing) or a wgmma
#pragma unroll
    for (int kk = 0; kk < T::kBlockK; kk += T::kWgmmaK)
      wgmma_m64k16_bf16<kBlockN>(acc, smem_descriptor_advance_k(desc_a, kk), smem_descriptor_advance_k(desc_b, kk),
                                 true);
    wgmma_commit_group();
    // Slice s's group stays in flight; the one before it, slice s - 1's, is done reading its stage, which the
    // producer may now refill.
    wgmma_wait_group<1>();
    accumulator_fence(acc);
    const int retired = s - 1;
    if (retired >= 0) mbarrier_arrive(&empty[retired % kStages]);
  }
  wgmma_wait_group<0>();  // the last slice's group: the accumulators are final
  accumulator_fence(acc);

  // Epilogue (chapter 54's): an 8-column block j of the accumulators is an mma.sync m16n8 C fragment.
  const int row0 = m0 + consumer * T::kWgmmaM + warp_in_group * 16;
#pragma unroll
  for (int j = 0; j < kBlockN / 8; ++j) {
    const float fragment[4] = {acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]};
    store_c_fragment(fragment, C, m, n, row0, n0 + 8 * j, alpha, beta, pairs_c);
  }
#else
  (void)map_a, (void)map_b, (void)m, (void)n, (void)k, (void)alpha, (void)beta, (void)C, (void)pairs_c;
#endif
}

template <int kBlockN, int kStages, bool kMoveRegisters = true>
inline tut::PerDevice<tut::SetupDone> setup_done;

// Refuses (tut::UsageError, one line) where this program's sm_90a code cannot run, then opts in to the dynamic
// shared memory of this kernel and of chapter 54's (the path for what TMA cannot describe); once per device.
template <int kBlockN, int kStages, bool kMoveRegisters = true>
inline void setup_gemm_warp_specialized(const std::string& variant) {
  setup_done<kBlockN, kStages, kMoveRegisters>.ensure([&] {
    if (const char* why = tut::hopper::sm90a_unavailable_reason()) throw tut::UsageError(variant + ": " + why);
    TUT_CUDA_CHECK(cudaFuncSetAttribute(gemm_warp_specialized_kernel<kBlockN, kStages, kMoveRegisters>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        Tile<kBlockN, kStages>::kSharedBytes));
    gemm_wgmma::setup_gemm_wgmma<kBlockN, kStages>(variant);
    return tut::SetupDone{};
  });
}

template <int kBlockN, int kStages, bool kMoveRegisters = true>
inline void gemm(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                 cudaStream_t stream) {
  using T = Tile<kBlockN, kStages>;
  if (m == 0 || n == 0) return;
  setup_done<kBlockN, kStages, kMoveRegisters>.require("bf16-gemm-warp-specialized", "setup_gemm_warp_specialized");
  if (!gemm_tma::tma_describes(A, B, k)) {
    gemm_wgmma::gemm<kBlockN, kStages>(m, n, k, alpha, A, B, beta, C, stream);
    return;
  }
  // Host work only (no allocation, no synchronisation): the maps travel as __grid_constant__ parameters.
  const tut::hopper::TensorMap2d map_a = tut::hopper::make_tensor_map_2d_bf16(A, m, k, k, T::kBlockM, T::kBlockK);
  const tut::hopper::TensorMap2d map_b = tut::hopper::make_tensor_map_2d_bf16(B, n, k, k, kBlockN, T::kBlockK);
  const bool pairs_c = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
  gemm_warp_specialized_kernel<kBlockN, kStages, kMoveRegisters>
      <<<tut::gemm::tile_grid(m, n, T::kBlockM, kBlockN), T::kThreads, T::kSharedBytes, stream>>>(
          map_a.map, map_b.map, m, n, k, alpha, beta, C, pairs_c);
  TUT_CHECK_LAUNCH();
}

// One tile shape as a variant of a chapter program (this chapter's, and chapter 57's previous stage): the launch
// and its set-up (the sm_90a check and the shared-memory opt-ins).
template <int kBlockN, int kStages, bool kMoveRegisters = true>
tut::gemm_tc::TcVariant as_variant(const std::string& name, const std::string& description, bool on_demand) {
  return {name, description, gemm<kBlockN, kStages, kMoveRegisters>, 90, on_demand,
          [name](int, int, int) { setup_gemm_warp_specialized<kBlockN, kStages, kMoveRegisters>(name); }};
}

}  // namespace gemm_warp_specialized
