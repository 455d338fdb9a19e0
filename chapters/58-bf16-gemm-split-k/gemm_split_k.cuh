// Chapter 58: chapter 57's persistent, warp-specialised kernel, with its work planned for the GPU and the problem
// at run time (split_k_schedule.hpp). Chapter 57 gives each block whole output tiles, each one all of K, and fixes
// its band of tile-rows for 132 SMs at compile time: a problem whose C has fewer tiles than the GPU has SMs leaves
// SMs idle (256 x 256 x 65536: 2 tiles for 132 SMs, each 1024 slices long). Here the plan cuts each tile's K into
// `splits` ranges where that fills a wave, and the blocks take work units (a tile and a K range) instead of tiles:
// the same producer stream and slice ring over the units' slices, the same consumers, and an epilogue that stores
// a unit's partial sums, unscaled, into its split's slice of an FP32 workspace (splits x M x N). A second kernel,
// chapter 29's reduction (common/gemm/split_k_reduce.cuh), adds the slices in a fixed order and applies alpha and
// beta: the same bits on every run, no atomics. With splits = 1 (as many tiles as SMs, or more) nothing changes from
// chapter 57 but the band, chosen for the SMs in use: one kernel, the epilogue into C, no workspace. sm_90a only
// (common/hopper/arch.cuh): elsewhere the kernel body compiles out and the set-up refuses with one line.
//
// Layout (common/gemm_tc/tc_workload.cuh): A M x K, B N x K, both row-major BF16 (K-major); C M x N FP32.
// The block, its register split, tile and stages are chapter 56's (gemm_warp_specialized::Tile); the consumers'
// epilogue is chapter 54's. TMA needs rows that start on 16 bytes (K a multiple of 8, aligned bases;
// common/hopper/tma.cuh): other problems, and K = 0, take chapter 54's kernel.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "bulk_copy.cuh"
#include "cli.hpp"
#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "gemm_tc/mma_sync.cuh"
#include "gemm_tc/tc_workload.cuh"
#include "gemm_tma.cuh"                // chapter 55: which problems TMA describes
#include "gemm_warp_specialized.cuh"   // chapter 56: the block and its register split
#include "gemm_wgmma.cuh"              // chapter 54: the kernel for what TMA cannot describe
#include "green_context.cuh"           // sm_count_in_use
#include "hopper/arch.cuh"
#include "hopper/tma.cuh"
#include "hopper/warpgroup.cuh"
#include "hopper/wgmma.cuh"
#include "plan_cache.hpp"
#include "setup_registry.cuh"
#include "gemm/split_k_reduce.cuh"     // chapter 29's reduction: the sum of the workspace's slices into C
#include "split_k_schedule.hpp"

namespace gemm_split_k {

using tut::gemm_tc::bf16;
template <int kBlockN, int kStages>
using Tile = gemm_warp_specialized::Tile<kBlockN, kStages>;

template <int kBlockN, int kStages>
__global__ void __launch_bounds__(Tile<kBlockN, kStages>::kThreads, Tile<kBlockN, kStages>::kBlocksPerSm)
    gemm_split_k_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                        int m, int n, int k, float alpha, float beta, float* __restrict__ C, bool pairs_c,
                        const SplitKPlan plan, float* __restrict__ workspace) {
#if TUT_SM90A_DEVICE_CODE
  using T = Tile<kBlockN, kStages>;
  using Ring = SliceRing<kStages>;
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
  const int units = plan.units();

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
    warpgroup_registers_decrease<T::Registers::kProducerRegisters>();
    if (threadIdx.x == 0) {
      std::uint32_t count = 0;  // slices loaded so far, over all of this block's units
      for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
        const WorkUnit u = unit_of(unit, plan);
        for (int s = u.first_slice; s < u.end_slice; ++s, ++count) {
          const int stage = Ring::stage(count);
          // The stage's previous use (slice count - kStages, perhaps of the previous unit) must be done: at a unit
          // boundary that is a slice the consumers freed before their epilogue, so this runs ahead of it.
          if (count >= kStages) mbarrier_wait_parity(&empty[stage], Ring::empty_parity(count));
          mbarrier_arrive_expect_tx(&full[stage], kStageBytes);
          tma_load_2d(a_stages + stage * T::kATileElements, &map_a, s * T::kBlockK, u.tile.row * T::kBlockM,
                      &full[stage]);
          tma_load_2d(b_stages + stage * T::kBTileElements, &map_b, s * T::kBlockK, u.tile.col * kBlockN,
                      &full[stage]);
        }
      }
    }
    return;
  }

  warpgroup_registers_increase<T::Registers::kConsumerRegisters>();
  const int consumer = warpgroup - 1;  // rows 64 consumer .. 64 consumer + 63 of each tile
  const int warp_in_group = (static_cast<int>(threadIdx.x) / 32) % 4;
  // Where a unit's sums go: C, scaled, when K is not split; else its split's slice of the workspace, unscaled (the
  // reduction scales the total). The workspace is 16-byte aligned and holds whole rows of n floats.
  const bool split = plan.splits > 1;
  const bool pairs_out = split ? n % 2 == 0 : pairs_c;
  float acc[T::kAccumulators];
  std::uint32_t count = 0;  // slices multiplied so far, over all of this block's units: the producer's numbering
  for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
    const WorkUnit u = unit_of(unit, plan);
    // Each unit is a new sum (the last unit's groups have all retired: wait_group 0 below).
#pragma unroll
    for (int i = 0; i < T::kAccumulators; ++i) acc[i] = 0.0f;
    for (int s = u.first_slice; s < u.end_slice; ++s, ++count) {
      const int stage = Ring::stage(count);
      mbarrier_wait_parity(&full[stage], Ring::full_parity(count));  // the slice's bytes have landed

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
      // As in chapter 56: this slice's group stays in flight, the previous slice's has retired and frees its
      // stage (the unit's first slice has none: the previous unit freed its last below).
      wgmma_wait_group<1>();
      accumulator_fence(acc);
      if (s > u.first_slice) mbarrier_arrive(&empty[Ring::stage(count - 1)]);
    }
    wgmma_wait_group<0>();  // the unit's last group: the accumulators are final
    accumulator_fence(acc);
    // Its stage is free now, before the epilogue: the producer fills it with the next unit's slice meanwhile.
    mbarrier_arrive(&empty[Ring::stage(count - 1)]);

    // Epilogue (chapter 54's): an 8-column block j of the accumulators is an mma.sync m16n8 C fragment.
    float* const out = split ? workspace + static_cast<std::size_t>(u.split) * m * n : C;
    const float out_alpha = split ? 1.0f : alpha, out_beta = split ? 0.0f : beta;
    const int row0 = u.tile.row * T::kBlockM + consumer * T::kWgmmaM + warp_in_group * 16;
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j) {
      const float fragment[4] = {acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]};
      store_c_fragment(fragment, out, m, n, row0, u.tile.col * kBlockN + 8 * j, out_alpha, out_beta, pairs_out);
    }
  }
#else
  (void)map_a, (void)map_b, (void)m, (void)n, (void)k, (void)alpha, (void)beta, (void)C, (void)pairs_c, (void)plan,
      (void)workspace;
#endif
}

template <int kBlockN, int kStages>
inline tut::PerDevice<tut::SetupDone> setup_done;

// The plan of (m, n, k) for this kernel's tile on `sms` SMs (forced_splits > 0: that split).
template <int kBlockN, int kStages>
inline SplitKPlan plan_for(int sms, int m, int n, int k, int forced_splits = 0) {
  using T = Tile<kBlockN, kStages>;
  return plan_split_k(sms, m, n, k, T::kBlockM, kBlockN, T::kBlockK, forced_splits);
}

// What the plan line says: the band, the split and why (the counts it came from).
inline std::string explain(const SplitKPlan& p, int sms, int block_m, int block_n) {
  std::string why = "model: " + std::to_string(p.tiles()) + (p.tiles() == 1 ? " tile of " : " tiles of ") + std::to_string(block_m) + " x " +
                    std::to_string(block_n) + " and " + std::to_string(p.slices) + " slices of K for " +
                    std::to_string(sms) + " SMs; bands of " + std::to_string(p.band_rows) + " tile-rows";
  if (p.splits == 1)
    return why + (sms / std::max(p.tiles(), 1) <= 1
                      ? ", no split: the tiles alone fill a wave"
                      : ", no split: too few slices for ranges of " + std::to_string(kMinSlicesPerSplit));
  return why + ", " + std::to_string(p.units()) + " units of " + std::to_string(p.slices / p.splits) + "-" +
         std::to_string((p.slices + p.splits - 1) / p.splits) + " slices";
}

// The partial sums' workspace of one variant, on the current device: sized at set-up (grown, never shrunk), never
// in a launch. Shared by the variant's launch and set-up (a shared_ptr in both closures).
class SplitWorkspace {
 public:
  void reserve(std::size_t floats) {
    const int device = tut::current_device();
    if (floats <= buffer_.size() && (buffer_.size() == 0 || buffer_.device() == device)) return;
    tut::DeviceBuffer<float> grown(floats);
    grown.label("split-K workspace");
    buffer_ = std::move(grown);
  }
  // The workspace for `floats`; throws where the set-up did not size it (a launch must not allocate).
  float* require(std::size_t floats) {
    if (floats > buffer_.size() || buffer_.device() != tut::current_device())
      throw std::logic_error("bf16-gemm-split-k: the workspace holds " + std::to_string(buffer_.size()) +
                             " floats on this device, the plan needs " + std::to_string(floats) +
                             ": setup_gemm_split_k() did not see this shape");
    return buffer_.data();
  }

 private:
  tut::DeviceBuffer<float> buffer_;
};

// Where K is split, splits x M x N floats; else none.
inline std::size_t workspace_floats(const SplitKPlan& p, int m, int n) {
  return p.splits > 1 ? static_cast<std::size_t>(p.splits) * m * n : 0;
}

// Refuses (tut::UsageError, one line) where this program's sm_90a code cannot run, then opts in to the dynamic
// shared memory of this kernel and of chapter 54's (the path for what TMA cannot describe), once per device; then,
// for (m, n, k) on the SMs in use, makes the plan, records its line ("plan: 58 bf16 gemm M x N x K: ...") and sizes
// the workspace. Outside every timed region: the launch only looks the plan up again (arithmetic on four ints).
template <int kBlockN, int kStages>
inline void setup_gemm_split_k(const std::string& variant, SplitWorkspace& workspace, int m, int n, int k,
                               int forced_splits = 0) {
  setup_done<kBlockN, kStages>.ensure([&] {
    if (const char* why = tut::hopper::sm90a_unavailable_reason()) throw tut::UsageError(variant + ": " + why);
    TUT_CUDA_CHECK(cudaFuncSetAttribute(gemm_split_k_kernel<kBlockN, kStages>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        Tile<kBlockN, kStages>::kSharedBytes));
    gemm_wgmma::setup_gemm_wgmma<kBlockN, kStages>(variant);
    return tut::SetupDone{};
  });
  const int sms = tut::sm_count_in_use(tut::current_device());
  const SplitKPlan p = plan_for<kBlockN, kStages>(sms, m, n, k, forced_splits);
  if (forced_splits == 0) {
    tut::PlanRequest r;
    r.key.stage = "58 " + variant + " " + std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k);
    const std::string choice =
        "bands of " + std::to_string(p.band_rows) + ", K in " + std::to_string(p.splits) + " range" +
        (p.splits > 1 ? "s" : "");
    r.candidates = {choice};
    r.model = [&]() -> std::optional<tut::Plan> {
      return tut::Plan{choice, explain(p, sms, Tile<kBlockN, kStages>::kBlockM, kBlockN)};
    };
    tut::choose_plan(r);
  }
  workspace.reserve(workspace_floats(p, m, n));
}

// The launch on at most max_blocks blocks (one per SM: the block's shared memory and registers leave no room for
// a second). The plan is made for the SMs in use whatever the grid; the tests give fewer blocks, so that each
// takes many units, and force splits (forced_splits > 0) the rule would not choose.
template <int kBlockN, int kStages>
inline void gemm_on_grid(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                         cudaStream_t stream, SplitWorkspace& workspace, int max_blocks, int forced_splits = 0) {
  using T = Tile<kBlockN, kStages>;
  if (m == 0 || n == 0) return;
  setup_done<kBlockN, kStages>.require("bf16-gemm-split-k", "setup_gemm_split_k");
  if (!gemm_tma::tma_describes(A, B, k)) {
    gemm_wgmma::gemm<kBlockN, kStages>(m, n, k, alpha, A, B, beta, C, stream);
    return;
  }
  const int sms = tut::sm_count_in_use(tut::current_device());
  const SplitKPlan plan = plan_for<kBlockN, kStages>(sms, m, n, k, forced_splits);
  float* const partials = plan.splits > 1 ? workspace.require(workspace_floats(plan, m, n)) : nullptr;
  // Host work only (no allocation, no synchronisation): the maps travel as __grid_constant__ parameters.
  const tut::hopper::TensorMap2d map_a = tut::hopper::make_tensor_map_2d_bf16(A, m, k, k, T::kBlockM, T::kBlockK);
  const tut::hopper::TensorMap2d map_b = tut::hopper::make_tensor_map_2d_bf16(B, n, k, k, kBlockN, T::kBlockK);
  const bool pairs_c = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
  const int blocks = std::min(plan.units(), std::max(max_blocks, 1));
  gemm_split_k_kernel<kBlockN, kStages><<<blocks, T::kThreads, T::kSharedBytes, stream>>>(
      map_a.map, map_b.map, m, n, k, alpha, beta, C, pairs_c, plan, partials);
  TUT_CHECK_LAUNCH();
  if (plan.splits > 1)
    split_k_reduce::reduce_splits(static_cast<std::size_t>(m) * n, plan.splits, partials, alpha, beta, C, sms,
                                  stream);
}

// The stage, or one of its candidates (forced_splits > 0), as a variant of the chapter program: the launch on one
// block per SM in use (grid_blocks > 0: at most that many, the tests' grids), its set-up, one workspace for both.
template <int kBlockN, int kStages>
tut::gemm_tc::TcVariant as_variant(const std::string& name, const std::string& description, bool on_demand,
                                   int forced_splits = 0, int grid_blocks = 0) {
  auto workspace = std::make_shared<SplitWorkspace>();
  return {name, description,
          [workspace, grid_blocks, forced_splits](int m, int n, int k, float alpha, const bf16* A, const bf16* B,
                                                  float beta, float* C, cudaStream_t stream) {
            gemm_on_grid<kBlockN, kStages>(m, n, k, alpha, A, B, beta, C, stream, *workspace,
                                           grid_blocks > 0 ? grid_blocks : tut::sm_count_in_use(tut::current_device()),
                                           forced_splits);
          },
          90, on_demand,
          [workspace, name, forced_splits](int m, int n, int k) {
            setup_gemm_split_k<kBlockN, kStages>(name, *workspace, m, n, k, forced_splits);
          }};
}

}  // namespace gemm_split_k
