// Chapter 53: chapter 52's kernel with a multi-stage cp.async pipeline: kStages shared-memory stages of the
// K slices, the copies of slice s + kStages - 1 in flight (global to shared, no registers) while the tensor cores
// work on slice s, and one barrier per slice instead of two. The best design for sm_80-89 and the fallback stage
// of the Hopper chapters on those GPUs. sm_80+: below it the kernel body compiles out and the host refuses the GPU.
//
// Layout (common/gemm_tc/tc_workload.cuh): A M x K, B N x K, both row-major BF16 (K-major); C M x N FP32.
// The block tile, the warp grid, the slice depth and the number of stages are one compile-time parameter, a
// Tiling (below), so that the chapter program builds and measures several. The stage's (`Stage`, chosen by
// measurement, README): 128 x 256 x 32 blocks of 8 warps of 64 x 64, 4 stages (96 KiB), one block per SM, each
// warp loading the next k16 step's ldmatrix fragments before it issues this step's mma.sync.
// The opt-in above 48 KiB of dynamic shared memory is setup_gemm_multistage(), called once per device.
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

constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;  // mma.m16n8k16

// The shared tiles' swizzle for a slice depth: rows of 32 BF16 (chapter 52's) or of 64 (common/gemm_tc/mma_sync.cuh).
template <int kBlockK>
struct SwizzleFor;
template <>
struct SwizzleFor<32> {
  using type = tut::gemm_tc::Swizzled32;
};
template <>
struct SwizzleFor<64> {
  using type = tut::gemm_tc::Swizzled64;
};

// The kernel's shape. A block of WarpsM x WarpsN warps computes a BlockM x BlockN tile of C over BlockK-deep K
// slices, Stages of them in shared memory; each warp a (BlockM / WarpsM) x (BlockN / WarpsN) warp tile of 16 x 8 mma
// tiles. BlocksPerSm is the occupancy asked of ptxas (__launch_bounds__: at most 65536 / (threads x BlocksPerSm)
// registers a thread). PrefetchFragments: the warp loads the ldmatrix fragments of the next k16 step before it issues
// this step's mma.sync (two sets of fragment registers), so the shared-memory latency hides behind the tensor cores.
template <int BlockM, int BlockN, int BlockK, int WarpsM, int WarpsN, int Stages, int BlocksPerSm,
          bool PrefetchFragments>
struct Tiling {
  static constexpr int kBlockM = BlockM, kBlockN = BlockN, kBlockK = BlockK;
  static constexpr int kWarpsM = WarpsM, kWarpsN = WarpsN, kThreads = 32 * WarpsM * WarpsN;
  static constexpr int kWarpM = BlockM / WarpsM, kWarpN = BlockN / WarpsN;
  static constexpr int kTilesM = kWarpM / kMmaM, kTilesN = kWarpN / kMmaN;  // mma tiles of a warp tile
  static constexpr int kSteps = BlockK / kMmaK;                             // k16 steps of a slice
  static constexpr int kStages = Stages, kBlocksPerSm = BlocksPerSm;
  static constexpr bool kPrefetchFragments = PrefetchFragments;
  static constexpr int kATileElements = BlockM * BlockK, kBTileElements = BlockN * BlockK;
  static constexpr int kSharedBytes = Stages * (kATileElements + kBTileElements) * static_cast<int>(sizeof(bf16));
  using Swizzle = typename SwizzleFor<BlockK>::type;

  static_assert(BlockM % WarpsM == 0 && BlockN % WarpsN == 0, "the warps split the block tile evenly");
  static_assert(kWarpM % kMmaM == 0 && kWarpN % (2 * kMmaN) == 0, "B is loaded two n-tiles per ldmatrix.x4");
  static_assert(BlockK == Swizzle::kRowElements, "a slice row is one swizzled row of 32 or 64 BF16");
  static_assert(!PrefetchFragments || kSteps >= 2, "the prefetch waits for the next slice one k16 step early");
  static_assert(kTilesM * kTilesN * 4 <= 128, "at most 128 FP32 accumulators a thread (a 64 x 64 warp tile)");
  static_assert(Stages >= 2 && Stages <= 8, "cp.async.wait_group takes kStages - 2");
  static_assert(kThreads * BlocksPerSm <= 2048, "at most 64 warps an SM");
  static_assert(BlocksPerSm * (kSharedBytes + 1024) <= 228 * 1024,
                "BlocksPerSm blocks fit an sm_90 SM's shared memory (228 KiB, 1 KiB of it reserved per block)");
};

// The stage's tiling, the fastest the chapter program measured on an H200 (README, "Choosing the tiling"); the
// program's other variants are other Tilings of the same kernel.
//                  block M    N    K   warps M x N   stages  blocks/SM  prefetch
using Stage = Tiling<    128, 256, 32,        2, 4,        4,         1,     true>;
// The pipeline's two decisions, in one place: which stage holds slice s, and how many of this thread's cp.async
// groups may still be in flight when slice s is read (one group per slice: after the prologue's kStages - 1 and s
// more, "at most kStages - 2 pending" means slice s has landed, and slices s + 1 ... s + kStages - 2 stay in
// flight). A template parameter of the kernel, so that exercise 53-cp-async-wait-depth runs it with its own.
template <int Stages>
struct ScheduleOf {
  static constexpr int kWaitDepth = Stages - 2;
  __host__ __device__ __forceinline__ static int stage_of(int slice) { return slice % Stages; }
};
constexpr int kStages = Stage::kStages;  // the stage's (exercise 53 writes its schedule for it)
using Schedule = ScheduleOf<kStages>;

// kAligned: A's and B's rows all start 16-byte aligned (vector_ok) and each has fewer than 2^32 elements, so the
// copies take copy_tile_aligned, with no branches; else copy_tile (element copies at the edges).
template <class Pipeline, class T = Stage, bool kAligned = true>
__global__ void __launch_bounds__(T::kThreads, T::kBlocksPerSm) gemm_multistage_kernel(int m, int n, int k, float alpha,
                                                                   const bf16* __restrict__ A,
                                                                   const bf16* __restrict__ B, float beta,
                                                                   float* __restrict__ C, bool vec_a, bool vec_b,
                                                                   bool pairs_c) {
  static_assert(Pipeline::kWaitDepth >= 0, "cp.async.wait_group takes a count of groups");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace tut::gemm_tc;
  using namespace tut::async_copy;
  // The tiling's numbers, under chapter 52's names.
  constexpr int kBlockM = T::kBlockM, kBlockN = T::kBlockN, kBlockK = T::kBlockK, kStages = T::kStages;
  constexpr int kWarpsN = T::kWarpsN, kThreads = T::kThreads, kWarpM = T::kWarpM, kWarpN = T::kWarpN;
  constexpr int kTilesM = T::kTilesM, kTilesN = T::kTilesN, kSteps = T::kSteps;
  constexpr int kATileElements = T::kATileElements, kBTileElements = T::kBTileElements;
  using Swizzle = typename T::Swizzle;
  extern __shared__ __align__(128) unsigned char shared_bytes[];
  bf16* const a_stages = reinterpret_cast<bf16*>(shared_bytes);
  bf16* const b_stages = a_stages + kStages * kATileElements;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int warp_m = (warp / kWarpsN) * kWarpM, warp_n = (warp % kWarpsN) * kWarpN;
  const int m0 = static_cast<int>(blockIdx.y) * kBlockM, n0 = static_cast<int>(blockIdx.x) * kBlockN;
  const int slices = (k + kBlockK - 1) / kBlockK;

  // Starts the copies of slice s into its stage (asynchronous where a chunk is whole and aligned; edge chunks and
  // zeros are plain stores, visible after the barrier like the rest).
  // Where the rows are aligned, slices past the last are zeros (a stage no one reads) rather than a branch.
  auto load_slice = [&](int s) {
    const int stage = Pipeline::stage_of(s);
    if constexpr (kAligned) {
      copy_tile_aligned<kBlockM, kBlockK, kThreads>(a_stages + stage * kATileElements, Swizzle{}, A, m, k, k, m0,
                                                    s * kBlockK, s < slices);
      copy_tile_aligned<kBlockN, kBlockK, kThreads>(b_stages + stage * kBTileElements, Swizzle{}, B, n, k, k, n0,
                                                    s * kBlockK, s < slices);
    } else if (s < slices) {
      copy_tile<kBlockM, kBlockK, kThreads, true>(a_stages + stage * kATileElements, Swizzle{}, A, m, k, k, m0,
                                                  s * kBlockK, vec_a);
      copy_tile<kBlockN, kBlockK, kThreads, true>(b_stages + stage * kBTileElements, Swizzle{}, B, n, k, k, n0,
                                                  s * kBlockK, vec_b);
    }
  };

  // The warp's fragments of k16 step `step` of slice s (chapter 52's ldmatrix.x4s: one per 16-row m-tile of A, one
  // per pair of 8-column n-tiles of B, n-tiles 2p and 2p + 1 in registers {0, 1} and {2, 3}), and its mma.sync on them.
  struct Fragments {
    std::uint32_t a[kTilesM][4], b[kTilesN / 2][4];
  };
  auto load_fragments = [&](Fragments& f, int s, int step) {
    const bf16* a_tile = a_stages + Pipeline::stage_of(s) * kATileElements;
    const bf16* b_tile = b_stages + Pipeline::stage_of(s) * kBTileElements;
    const int kk = step * kMmaK;
#pragma unroll
    for (int i = 0; i < kTilesM; ++i)
      ldmatrix_x4(f.a[i], a_tile + Swizzle{}(warp_m + i * kMmaM + a_ldmatrix_row(lane), kk / 8 + a_ldmatrix_chunk(lane)));
#pragma unroll
    for (int p = 0; p < kTilesN / 2; ++p)
      ldmatrix_x4(f.b[p], b_tile + Swizzle{}(warp_n + p * 2 * kMmaN + b_ldmatrix_row(lane), kk / 8 + b_ldmatrix_chunk(lane)));
  };
  float acc[kTilesM][kTilesN][4] = {};
  auto multiply = [&](const Fragments& f) {
#pragma unroll
    for (int i = 0; i < kTilesM; ++i)
#pragma unroll
      for (int j = 0; j < kTilesN; ++j) mma_bf16_16816(acc[i][j], f.a[i], f.b[j / 2][(j % 2) * 2], f.b[j / 2][(j % 2) * 2 + 1]);
  };

  // Prologue: slices 0 ... kStages - 2 in flight, one commit group each (empty groups past the last slice
  // keep the count of groups, and so the waits below, the same for every iteration).
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    load_slice(s);
    cp_async_commit();
  }
  // kStages - 1 groups committed; at most kStages - 2 in flight: slice 0 has landed, and after the barrier every
  // thread's copies of it are visible.
  cp_async_wait<Pipeline::kWaitDepth>();
  __syncthreads();

  // The wait and the barrier for slice s + 1 come after slice s's last k16 step; with the prefetch, one step earlier,
  // so that the last step's mma.sync (on fragments already in registers) cover the next slice's first ldmatrix.
  constexpr int kBuffers = T::kPrefetchFragments ? 2 : 1;
  constexpr int kWaitStep = T::kPrefetchFragments ? kSteps - 2 : kSteps - 1;
  Fragments frag[kBuffers];
  if constexpr (T::kPrefetchFragments) load_fragments(frag[0], 0, 0);
  for (int s = 0; s < slices; ++s) {
#pragma unroll
    for (int step = 0; step < kSteps; ++step) {
      if constexpr (T::kPrefetchFragments) {  // the next step's fragments, this slice's or the next one's
        if (step + 1 < kSteps) load_fragments(frag[(step + 1) % 2], s, step + 1);
        else if (s + 1 < slices) load_fragments(frag[(step + 1) % 2], s + 1, 0);
      } else {
        load_fragments(frag[0], s, step);
      }
      if (step == 0) {
        // Every warp passed the barrier after its last ldmatrix of slice s - 1: its stage takes slice
        // s + kStages - 1 (a group is committed even when there is none).
        load_slice(s + kStages - 1);
        cp_async_commit();
      }
      multiply(frag[step % kBuffers]);
      if (step == kWaitStep) {
        // s + kStages groups committed; at most kStages - 2 in flight: slice s + 1 has landed. The barrier makes
        // every thread's copies of it visible and tells that every warp is done reading slice s.
        cp_async_wait<Pipeline::kWaitDepth>();
        __syncthreads();
      }
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

// One record per kernel (schedule and tiling): the opt-in belongs to the kernel, and exercise 53's schedule makes
// another kernel.
template <class Pipeline, class T = Stage>
inline tut::PerDevice<tut::SetupDone> setup_done_for;
inline tut::PerDevice<tut::SetupDone>& setup_done = setup_done_for<Schedule>;

// The opt-in to the tiling's kSharedBytes of dynamic shared memory (above the default 48 KiB), once per device.
template <class Pipeline = Schedule, class T = Stage>
inline void setup_gemm_multistage() {
  setup_done_for<Pipeline, T>.ensure([] {
    TUT_CUDA_CHECK(cudaFuncSetAttribute(gemm_multistage_kernel<Pipeline, T, true>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSharedBytes));
    TUT_CUDA_CHECK(cudaFuncSetAttribute(gemm_multistage_kernel<Pipeline, T, false>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSharedBytes));
    return tut::SetupDone{};
  });
}

// The launcher, with the schedule (exercise 53 passes its own) and the tiling as parameters.
template <class Pipeline, class T = Stage>
inline void gemm_with(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                      cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  setup_done_for<Pipeline, T>.require("bf16-cp-async-pipeline", "setup_gemm_multistage");
  const bool pairs_c = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
  const bool vec_a = tut::gemm_tc::vector_ok(A, k), vec_b = tut::gemm_tc::vector_ok(B, k);
  const dim3 grid = tut::gemm::tile_grid(m, n, T::kBlockM, T::kBlockN);
  const bool offsets_fit = tut::gemm_tc::copy_tile_aligned_fits(m, k) && tut::gemm_tc::copy_tile_aligned_fits(n, k);
  if (vec_a && vec_b && offsets_fit)
    gemm_multistage_kernel<Pipeline, T, true><<<grid, T::kThreads, T::kSharedBytes, stream>>>(
        m, n, k, alpha, A, B, beta, C, vec_a, vec_b, pairs_c);
  else
    gemm_multistage_kernel<Pipeline, T, false><<<grid, T::kThreads, T::kSharedBytes, stream>>>(
        m, n, k, alpha, A, B, beta, C, vec_a, vec_b, pairs_c);
  TUT_CHECK_LAUNCH();
}

// The launcher of a tiling's kernel with its own schedule (T::kStages stages), and the stage's.
template <class T>
inline void gemm_tiled(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                       cudaStream_t stream) {
  gemm_with<ScheduleOf<T::kStages>, T>(m, n, k, alpha, A, B, beta, C, stream);
}
inline void gemm(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                 cudaStream_t stream) {
  gemm_tiled<Stage>(m, n, k, alpha, A, B, beta, C, stream);
}

// A tiling as a variant of a chapter program: the stage in this chapter and chapters 54-59 (their previous stage, or
// their fallback where sm_90a code cannot run), other tilings in this chapter.
template <class T = Stage>
inline tut::gemm_tc::TcVariant as_variant(const std::string& name, const std::string& description, bool on_demand) {
  static_assert(T::kSharedBytes <= 99 * 1024, "a variant runs on every sm_80+ GPU: sm_86 and sm_89 give a block 99 KiB");
  return {name, description, gemm_tiled<T>, 80, on_demand,
          [](int, int, int) { setup_gemm_multistage<ScheduleOf<T::kStages>, T>(); }};
}
// The stage as chapters 55-59 register it: on demand, and their fallback where sm_90a code cannot run.
inline tut::gemm_tc::TcVariant as_fallback_variant(const std::string& name) {
  return as_variant(name, "chapter 53's stage (cp.async pipeline feeding ldmatrix + mma.sync): the fallback off sm_90a",
                    true);
}

}  // namespace gemm_multistage
