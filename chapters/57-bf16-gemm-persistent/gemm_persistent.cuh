// Chapter 57: chapter 56's warp-specialised kernel, made persistent: the grid is one block per SM in use, and each
// block takes output tile after output tile (tile b, b + grid, ... of a rasterised order: persistent_schedule.hpp)
// instead of one. The producer's stream of slices runs on across the tiles: while the consumers store one tile's
// C from their registers, the producer already loads the next tile's first slices into the stages they freed, so
// the consumers find them full when they start it. One slice counter over all the block's tiles numbers the
// stages and the mbarrier phases (SliceRing), in the producer and in the consumers alike. sm_90a only
// (common/hopper/arch.cuh): elsewhere the kernel body compiles out and setup_gemm_persistent() refuses with one
// line.
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
#include <string>

#include "bulk_copy.cuh"
#include "c_epilogue.cuh"  // how the consumers write C (a template option; the stage: kFragments)
#include "cli.hpp"
#include "cuda_check.cuh"
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
#include "persistent_schedule.hpp"
#include "setup_registry.cuh"

namespace gemm_persistent {

using tut::gemm_tc::bf16;
template <int kBlockN, int kStages>
using Tile = gemm_warp_specialized::Tile<kBlockN, kStages>;

// The bands (persistent_schedule.hpp): band_rows_for the 132 SMs of an H100 SXM or an H200, one block each, and
// the tile's shape. A compile-time constant, a template parameter of the kernel, as the tile is: each candidate's
// band is its own kernel, and nothing is planned per GPU; one with another SM count takes the same bands, a little
// off its own best width (the host test prints the rows a wave reads at several widths).
inline constexpr int kBandSms = 132;
template <int kBlockN>
inline constexpr int kDefaultBandRows = band_rows_for(kBandSms, 128, kBlockN);
inline constexpr int kStageBandRows = kDefaultBandRows<256>;
static_assert(kStageBandRows == 16 && kDefaultBandRows<128> == 8,
              "sqrt(132 x 256 / 128) = 16.2 and sqrt(132) = 11.5, each rounded down to a power of two: the bands "
              "the README describes");

template <int kBlockN, int kStages, int kBandRows, CEpilogue kEpilogue = CEpilogue::kFragments>
__global__ void __launch_bounds__(Tile<kBlockN, kStages>::kThreads, Tile<kBlockN, kStages>::kBlocksPerSm)
    gemm_persistent_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                           int m, int n, int k, float alpha, float beta, float* __restrict__ C, bool pairs_c) {
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
  const int tiles_m = (m + T::kBlockM - 1) / T::kBlockM, tiles_n = (n + kBlockN - 1) / kBlockN;
  const int tiles = tiles_m * tiles_n;
  const int slices = (k + T::kBlockK - 1) / T::kBlockK;

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
      const bool prefetch_c = prefetch_c_allowed(C, n, beta);
      std::uint32_t count = 0;  // slices loaded so far, over all of this block's tiles
      for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const TileCoord t = tile_of<kBandRows>(tile, tiles_m, tiles_n);
        for (int s = 0; s < slices; ++s, ++count) {
          const int stage = Ring::stage(count);
          // The stage's previous use (slice count - kStages, perhaps of the previous tile) must be done: at a tile
          // boundary that is a slice the consumers freed before their epilogue, so this runs ahead of it.
          if (count >= kStages) mbarrier_wait_parity(&empty[stage], Ring::empty_parity(count));
          mbarrier_arrive_expect_tx(&full[stage], kStageBytes);
          tma_load_2d(a_stages + stage * T::kATileElements, &map_a, s * T::kBlockK, t.row * T::kBlockM, &full[stage]);
          tma_load_2d(b_stages + stage * T::kBTileElements, &map_b, s * T::kBlockK, t.col * kBlockN, &full[stage]);
          // The candidate kBatchedPrefetch: during the tile's last slices, its rows of C into L2 (c_epilogue.cuh).
          if constexpr (kEpilogue == CEpilogue::kBatchedPrefetch)
            if (prefetch_c)
              prefetch_c_rows<T::kBlockM, kBlockN>(C, m, n, t.row * T::kBlockM, t.col * kBlockN, s, slices);
        }
      }
    }
    return;
  }

  warpgroup_registers_increase<T::Registers::kConsumerRegisters>();
  const int consumer = warpgroup - 1;  // rows 64 consumer .. 64 consumer + 63 of each tile
  const int warp_in_group = (static_cast<int>(threadIdx.x) / 32) % 4;
  float acc[T::kAccumulators];
  std::uint32_t count = 0;  // slices multiplied so far, over all of this block's tiles: the producer's numbering
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const TileCoord t = tile_of<kBandRows>(tile, tiles_m, tiles_n);
    // Each tile is a new sum (the last tile's groups have all retired: wait_group 0 below).
#pragma unroll
    for (int i = 0; i < T::kAccumulators; ++i) acc[i] = 0.0f;
    for (int s = 0; s < slices; ++s, ++count) {
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
      // stage (the tile's first slice has none: the previous tile freed its last below).
      wgmma_wait_group<1>();
      accumulator_fence(acc);
      if (s > 0) mbarrier_arrive(&empty[Ring::stage(count - 1)]);
    }
    wgmma_wait_group<0>();  // the tile's last group: the accumulators are final
    accumulator_fence(acc);
    // Its stage is free now, before the epilogue: the producer fills it with the next tile's slice meanwhile.
    mbarrier_arrive(&empty[Ring::stage(count - 1)]);

    // Epilogue (chapter 54's for the stage): an 8-column block j of the accumulators is an mma.sync m16n8 C fragment
    // (c_epilogue.cuh: the stage's kFragments stores them one by one, the candidates in batches).
    const int row0 = t.row * T::kBlockM + consumer * T::kWgmmaM + warp_in_group * 16;
    store_c_warp_rows<kBlockN, kEpilogue>(acc, C, m, n, row0, t.col * kBlockN, alpha, beta, pairs_c);
  }
#else
  (void)map_a, (void)map_b, (void)m, (void)n, (void)k, (void)alpha, (void)beta, (void)C, (void)pairs_c;
#endif
}

template <int kBlockN, int kStages, int kBandRows, CEpilogue kEpilogue = CEpilogue::kFragments>
inline tut::PerDevice<tut::SetupDone> setup_done;

// Refuses (tut::UsageError, one line) where this program's sm_90a code cannot run, then opts in to the dynamic
// shared memory of this kernel and of chapter 54's (the path for what TMA cannot describe); once per device.
template <int kBlockN, int kStages, int kBandRows, CEpilogue kEpilogue = CEpilogue::kFragments>
inline void setup_gemm_persistent(const std::string& variant) {
  setup_done<kBlockN, kStages, kBandRows, kEpilogue>.ensure([&] {
    if (const char* why = tut::hopper::sm90a_unavailable_reason()) throw tut::UsageError(variant + ": " + why);
    TUT_CUDA_CHECK(cudaFuncSetAttribute(gemm_persistent_kernel<kBlockN, kStages, kBandRows, kEpilogue>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        Tile<kBlockN, kStages>::kSharedBytes));
    gemm_wgmma::setup_gemm_wgmma<kBlockN, kStages>(variant);
    return tut::SetupDone{};
  });
}

// The launch on at most max_blocks blocks (one per SM: the block's shared memory and registers leave no room for
// a second). gemm() gives the SMs in use; the tests give fewer, so that each block takes many tiles.
template <int kBlockN, int kStages, int kBandRows, CEpilogue kEpilogue = CEpilogue::kFragments>
inline void gemm_on_grid(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                         cudaStream_t stream, int max_blocks) {
  using T = Tile<kBlockN, kStages>;
  if (m == 0 || n == 0) return;
  setup_done<kBlockN, kStages, kBandRows, kEpilogue>.require("bf16-gemm-persistent", "setup_gemm_persistent");
  if (!gemm_tma::tma_describes(A, B, k)) {
    gemm_wgmma::gemm<kBlockN, kStages>(m, n, k, alpha, A, B, beta, C, stream);
    return;
  }
  // Host work only (no allocation, no synchronisation): the maps travel as __grid_constant__ parameters.
  const tut::hopper::TensorMap2d map_a = tut::hopper::make_tensor_map_2d_bf16(A, m, k, k, T::kBlockM, T::kBlockK);
  const tut::hopper::TensorMap2d map_b = tut::hopper::make_tensor_map_2d_bf16(B, n, k, k, kBlockN, T::kBlockK);
  const bool pairs_c = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
  const long long tiles = static_cast<long long>((m + T::kBlockM - 1) / T::kBlockM) * ((n + kBlockN - 1) / kBlockN);
  const int blocks = static_cast<int>(std::min<long long>(tiles, std::max(max_blocks, 1)));
  gemm_persistent_kernel<kBlockN, kStages, kBandRows, kEpilogue><<<blocks, T::kThreads, T::kSharedBytes, stream>>>(
      map_a.map, map_b.map, m, n, k, alpha, beta, C, pairs_c);
  TUT_CHECK_LAUNCH();
}

template <int kBlockN, int kStages, int kBandRows = kDefaultBandRows<kBlockN>,
          CEpilogue kEpilogue = CEpilogue::kFragments>
inline void gemm(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                 cudaStream_t stream) {
  gemm_on_grid<kBlockN, kStages, kBandRows, kEpilogue>(m, n, k, alpha, A, B, beta, C, stream,
                                                       tut::sm_count_in_use(tut::current_device()));
}

// The stage's kernel as a variant of a later chapter's program (one block per SM in use), with its set-up.
template <int kBlockN, int kStages, int kBandRows = kDefaultBandRows<kBlockN>,
          CEpilogue kEpilogue = CEpilogue::kFragments>
tut::gemm_tc::TcVariant as_variant(const std::string& name, const std::string& description, bool on_demand) {
  return {name, description, gemm<kBlockN, kStages, kBandRows, kEpilogue>, 90, on_demand,
          [name](int, int, int) { setup_gemm_persistent<kBlockN, kStages, kBandRows, kEpilogue>(name); }};
}

}  // namespace gemm_persistent
