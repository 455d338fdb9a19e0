// Chapter 57, an experimental candidate: a "ping-pong" persistent warp-specialised kernel (CUTLASS's
// KernelTmaWarpSpecializedPingpong schedule, written with this ladder's pieces). In chapter 57's kernel both consumer
// warpgroups work on the same 128 x 256 tile, so no wgmma runs while they store it. Here each consumer warpgroup owns
// a whole 128 x 128 tile by itself, and the consumers take the block's tiles in turns: block b takes tiles b,
// b + grid, b + 2 grid, ... of the band order (tile_of, persistent_schedule.hpp), its local tiles 0, 2, 4, ... go to
// consumer 0 and 1, 3, 5, ... to consumer 1, so while one consumer stores its tile the other multiplies the next.
// sm_90a only (common/hopper/arch.cuh): elsewhere the kernel body compiles out and setup_gemm_pingpong() refuses
// with one line.
//
// Layout (common/gemm_tc/tc_workload.cuh): A M x K, B N x K, both row-major BF16 (K-major); C M x N FP32.
// The block (384 threads: a producer warpgroup, two consumer warpgroups, setmaxnreg 40 / 232), the stage (A 128 x 64
// + B 128 x 64 in the 128-byte swizzle, one TMA box each) and its full/empty mbarriers are chapter 56's 128-wide
// tile's; the ring of stages and its phases are chapter 57's (SliceRing over one stream of slices); the epilogue is
// chapter 54's. TMA needs rows that start on 16 bytes (K a multiple of 8, aligned bases; common/hopper/tma.cuh):
// other problems, and K = 0, take chapter 54's kernel.
//
// The one stream of slices: the producer loads every slice of local tile 0, then of local tile 1, ... (chapter 57's
// loop), so slice s of local tile j is the stream's slice j * slices + s, whatever consumer multiplies it. Exactly
// one consumer warpgroup reads each stage, so its empty barrier counts 128 arrivals (chapter 57's, 256).
//
// The consumers' turns (MathTurns): consumer c starts local tile j's main loop only once the other consumer has
// waited on every slice of local tile j - 1. That is what makes the ring's parities right: a wait on full[stage]
// names its phase by parity only, so a consumer that waited for slice x while the stage's previous slice x - kStages
// had not landed yet would take that stage's earlier phase for its own and read the wrong slice (or a half-written
// stage). The turns make every slice before x land, and be waited on, before anyone waits for x. They also keep the
// two main loops from interleaving their slices on the tensor pipe: the consumers' wgmmas alternate tile by tile,
// and one's epilogue runs while the other multiplies (CUTLASS orders its ping-pong consumers' main loops the same
// way, with an ordered sequence barrier).
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "bulk_copy.cuh"
#include "cli.hpp"
#include "cuda_check.cuh"
#include "gemm_persistent.cuh"         // chapter 57: the bands
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

namespace gemm_pingpong {

using tut::gemm_tc::bf16;

// Chapter 56's block for a 128 x 128 x 64 stage (gemm_warp_specialized::Tile<128, kStages>: 384 threads, the
// registers split 40 / 232, one block per SM), with the work cut the other way: a consumer warpgroup multiplies the
// whole 128 x 128 tile, its rows 0-63 and 64-127 (the two m64 halves of the A stage) with one m64n128k16 each per
// 16-deep step, into 64 accumulators per half: 128 per thread, as many as chapter 57's 64 x 256 half-tile.
template <int kStages_>
struct Tile : gemm_warp_specialized::Tile<128, kStages_> {
  using Block = gemm_warp_specialized::Tile<128, kStages_>;
  static constexpr int kConsumers = 2;                                  // warpgroups 1 and 2, a tile each in turn
  static constexpr int kHalves = Block::kBlockM / Block::kWgmmaM;       // 2: m64 halves of a consumer's tile
  static constexpr int kHalfAccumulators = Block::kAccumulators;        // 64: one m64n128 per thread
  static constexpr int kTileThreads = tut::hopper::kWarpgroupThreads;   // a stage's readers: the empty arrivals
  static constexpr unsigned kStageBytes = (Block::kATileElements + Block::kBTileElements) * sizeof(bf16);
  static_assert(Block::kBlockM == 128 && Block::kBlockN == 128 && Block::kBlockK == 64,
                "a consumer's tile is 128 x 128 x 64");
  static_assert(kHalves == 2 && kHalves * kHalfAccumulators == 128,
                "two m64n128k16 per step, 128 accumulators per thread (the register split's 232 hold them)");
  static_assert(kConsumers * kTileThreads == Block::kConsumerThreads, "one warpgroup per consumer");
  static_assert(kStageBytes == 32 * 1024, "a stage: A 128 x 64 + B 128 x 64 BF16");
  static_assert(Block::kSharedBytes + 2 * kStages_ * sizeof(std::uint64_t) <= 227 * 1024,
                "the stages, their realignment and the mbarriers fit a block's 227 KiB (opt-in)");
};

// bar.sync / bar.arrive on a named barrier (PTX ISA, "barrier"): `threads` (a multiple of 32) arrivals complete it;
// bar.sync waits for that, bar.arrive only counts. Id 0 is __syncthreads()'s.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// The consumers' turns at the main loop (see the top of the file). Named barrier kFirstId + c is consumer c's turn:
// its 128 threads bar.sync on it before a main loop (the block's first tile, consumer 0's local tile 0, waits for no
// one), the other consumer's 128 bar.arrive on it after its main loop's last wait on full, where a next local tile
// exists. So every arrival meets exactly one sync (no arrivals are left over at the end: a block with one tile, or an
// odd count, has consumer 1 idle or one tile short), and a barrier's next arrivals come only after its sync
// completed (they need the other turn first), so one barrier never holds two generations.
struct MathTurns {
  static constexpr int kFirstId = 1;                                    // ids 1 and 2
  static constexpr int kThreads = 2 * tut::hopper::kWarpgroupThreads;   // the waiting consumer's 128 + the other's
  __device__ __forceinline__ static void wait_for_turn(int consumer) {
    named_barrier_sync(kFirstId + consumer, kThreads);
  }
  __device__ __forceinline__ static void pass_turn(int consumer) {
    named_barrier_arrive(kFirstId + (1 - consumer), kThreads);
  }
};

template <class T>
using Accumulators = float[T::kHalves][T::kHalfAccumulators];

// Every accumulator register changes here, for the compiler (common/hopper/wgmma.cuh, accumulator_fence).
template <class T>
__device__ __forceinline__ void fence_accumulators(Accumulators<T>& acc) {
#pragma unroll
  for (int h = 0; h < T::kHalves; ++h) tut::hopper::accumulator_fence(acc[h]);
}

template <class T>
__device__ __forceinline__ void zero_accumulators(Accumulators<T>& acc) {
#pragma unroll
  for (int h = 0; h < T::kHalves; ++h)
#pragma unroll
    for (int i = 0; i < T::kHalfAccumulators; ++i) acc[h][i] = 0.0f;
}

// One slice of the tile: per 16-deep step an m64n128k16 for each half of the A stage against the whole B stage, one
// commit group in all (the caller waits for it).
template <class T>
__device__ __forceinline__ void multiply_slice(Accumulators<T>& acc, const bf16* a_stage, const bf16* b_stage) {
  using namespace tut::hopper;
  std::uint64_t desc_a[T::kHalves];
#pragma unroll
  for (int h = 0; h < T::kHalves; ++h) desc_a[h] = make_smem_descriptor_sw128(a_stage + h * T::kWgmmaM * T::kBlockK);
  const std::uint64_t desc_b = make_smem_descriptor_sw128(b_stage);
  fence_accumulators<T>(acc);
  wgmma_fence();  // the accumulators were last written by ordinary instructions (zeroing) or a wgmma
#pragma unroll
  for (int kk = 0; kk < T::kBlockK; kk += T::kWgmmaK)
#pragma unroll
    for (int h = 0; h < T::kHalves; ++h)
      wgmma_m64k16_bf16<T::kBlockN>(acc[h], smem_descriptor_advance_k(desc_a[h], kk),
                                    smem_descriptor_advance_k(desc_b, kk), true);
  wgmma_commit_group();
}

// Epilogue (chapter 54's, per half): an 8-column block j of a half's accumulators is an mma.sync m16n8 C fragment
// of the warp's 16 rows of that half.
// kEpilogue: chapter 57's c_epilogue.cuh (the candidate's default, kFragments, stores them one by one).
template <class T, gemm_persistent::CEpilogue kEpilogue>
__device__ __forceinline__ void store_tile(const Accumulators<T>& acc, float* __restrict__ C, int m, int n,
                                           gemm_persistent::TileCoord t, float alpha, float beta, bool pairs_c) {
  const int warp_in_group = (static_cast<int>(threadIdx.x) / 32) % 4;
#pragma unroll
  for (int h = 0; h < T::kHalves; ++h) {
    const int row0 = t.row * T::kBlockM + h * T::kWgmmaM + warp_in_group * 16;
    gemm_persistent::store_c_warp_rows<T::kBlockN, kEpilogue>(acc[h], C, m, n, row0, t.col * T::kBlockN, alpha, beta,
                                                              pairs_c);
  }
}

template <int kStages, int kBandRows, gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
__global__ void __launch_bounds__(Tile<kStages>::kThreads, Tile<kStages>::kBlocksPerSm)
    gemm_pingpong_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int m,
                         int n, int k, float alpha, float beta, float* __restrict__ C, bool pairs_c) {
#if TUT_SM90A_DEVICE_CODE
  using T = Tile<kStages>;
  using Ring = gemm_persistent::SliceRing<kStages>;
  using namespace tut::bulk_copy;
  using namespace tut::hopper;
  extern __shared__ __align__(16) unsigned char shared_raw[];  // realigned below: only 16 bytes are promised
  __shared__ std::uint64_t full[kStages];   // the stage holds its slice: 1 arrival (with the bytes) + the bytes
  __shared__ std::uint64_t empty[kStages];  // its consumer's wgmmas are done reading the stage: 128 arrivals
  bf16* const a_stages = reinterpret_cast<bf16*>(align_to_swizzle_atom(shared_raw));
  bf16* const b_stages = a_stages + kStages * T::kATileElements;
  const int warpgroup = warpgroup_index();
  const int tiles_m = (m + T::kBlockM - 1) / T::kBlockM, tiles_n = (n + T::kBlockN - 1) / T::kBlockN;
  const int tiles = tiles_m * tiles_n;
  const int slices = (k + T::kBlockK - 1) / T::kBlockK;
  const int grid = static_cast<int>(gridDim.x);

  if (threadIdx.x == 0) {
    prefetch_tensor_map(&map_a);
    prefetch_tensor_map(&map_b);
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], T::kTileThreads);
    }
    fence_mbarrier_init();  // the copy engine must see initialised barriers
  }
  __syncthreads();  // the barriers are initialised before anyone waits on them: the kernel's only block barrier

  if (warpgroup == 0) {
    // Chapter 57's producer with the 128-wide tile: one stream over all the block's tiles, whichever consumer takes
    // each.
    warpgroup_registers_decrease<T::Registers::kProducerRegisters>();
    if (threadIdx.x == 0) {
      const bool prefetch_c = gemm_persistent::prefetch_c_allowed(C, n, beta);
      std::uint32_t count = 0;  // slices loaded so far, over all of this block's tiles
      for (int tile = static_cast<int>(blockIdx.x); tile < tiles; tile += grid) {
        const gemm_persistent::TileCoord t = gemm_persistent::tile_of<kBandRows>(tile, tiles_m, tiles_n);
        for (int s = 0; s < slices; ++s, ++count) {
          const int stage = Ring::stage(count);
          // The stage's previous use (slice count - kStages, perhaps of the other consumer's tile) must be done.
          if (count >= kStages) mbarrier_wait_parity(&empty[stage], Ring::empty_parity(count));
          mbarrier_arrive_expect_tx(&full[stage], T::kStageBytes);
          tma_load_2d(a_stages + stage * T::kATileElements, &map_a, s * T::kBlockK, t.row * T::kBlockM, &full[stage]);
          tma_load_2d(b_stages + stage * T::kBTileElements, &map_b, s * T::kBlockK, t.col * T::kBlockN, &full[stage]);
          if constexpr (kEpilogue == gemm_persistent::CEpilogue::kBatchedPrefetch)
            if (prefetch_c)
              gemm_persistent::prefetch_c_rows<T::kBlockM, T::kBlockN>(C, m, n, t.row * T::kBlockM,
                                                                        t.col * T::kBlockN, s, slices);
        }
      }
    }
    return;
  }

  warpgroup_registers_increase<T::Registers::kConsumerRegisters>();
  const int consumer = warpgroup - 1;  // local tiles consumer, consumer + 2, ... of the block
  Accumulators<T> acc;
  for (int local = consumer, tile = static_cast<int>(blockIdx.x) + consumer * grid; tile < tiles;
       local += T::kConsumers, tile += T::kConsumers * grid) {
    const gemm_persistent::TileCoord t = gemm_persistent::tile_of<kBandRows>(tile, tiles_m, tiles_n);
    // The producer's number of this tile's first slice: the tiles before it in the block's stream, either
    // consumer's, have `slices` slices each.
    std::uint32_t count = static_cast<std::uint32_t>(local) * static_cast<std::uint32_t>(slices);
    // Each tile is a new sum (this consumer's previous tile's groups have all retired: wait_group 0 below).
    zero_accumulators<T>(acc);
    // Every slice before this tile's has landed and been waited on by the other consumer (MathTurns).
    if (local > 0) MathTurns::wait_for_turn(consumer);
    for (int s = 0; s < slices; ++s, ++count) {
      const int stage = Ring::stage(count);
      mbarrier_wait_parity(&full[stage], Ring::full_parity(count));  // the slice's bytes have landed
      multiply_slice<T>(acc, a_stages + stage * T::kATileElements, b_stages + stage * T::kBTileElements);
      // As in chapter 57: this slice's group stays in flight, the previous slice's has retired and frees its stage
      // (the tile's first slice has none: this consumer's previous tile freed its last below).
      wgmma_wait_group<1>();
      fence_accumulators<T>(acc);
      if (s > 0) mbarrier_arrive(&empty[Ring::stage(count - 1)]);
    }
    // This tile's slices have all been waited on: the other consumer's next tile (the block's next) may start its
    // main loop while this one's last group retires and its epilogue runs.
    if (tile + grid < tiles) MathTurns::pass_turn(consumer);
    wgmma_wait_group<0>();  // the tile's last group: the accumulators are final
    fence_accumulators<T>(acc);
    // Its stage is free now, before the epilogue: the producer refills it for the other consumer meanwhile.
    mbarrier_arrive(&empty[Ring::stage(count - 1)]);
    store_tile<T, kEpilogue>(acc, C, m, n, t, alpha, beta, pairs_c);
  }
#else
  (void)map_a, (void)map_b, (void)m, (void)n, (void)k, (void)alpha, (void)beta, (void)C, (void)pairs_c;
#endif
}

// The stages chapters 57 and 59 run it with: 6 x 32 KiB, as many as fit beside the mbarriers.
inline constexpr int kCandidateStages = 6;

template <int kStages, int kBandRows, gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
inline tut::PerDevice<tut::SetupDone> setup_done;

// Refuses (tut::UsageError, one line) where this program's sm_90a code cannot run, then opts in to the dynamic
// shared memory of this kernel and of chapter 54's (the path for what TMA cannot describe); once per device.
template <int kStages, int kBandRows, gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
inline void setup_gemm_pingpong(const std::string& variant) {
  setup_done<kStages, kBandRows, kEpilogue>.ensure([&] {
    if (const char* why = tut::hopper::sm90a_unavailable_reason()) throw tut::UsageError(variant + ": " + why);
    TUT_CUDA_CHECK(cudaFuncSetAttribute(gemm_pingpong_kernel<kStages, kBandRows, kEpilogue>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, Tile<kStages>::kSharedBytes));
    gemm_wgmma::setup_gemm_wgmma<128, kStages>(variant);
    return tut::SetupDone{};
  });
}

// The launch on at most max_blocks blocks (one per SM, as chapter 57's). gemm() gives the SMs in use; the tests give
// fewer, so that each block takes many tiles (and both consumers several).
template <int kStages, int kBandRows, gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
inline void gemm_on_grid(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                         cudaStream_t stream, int max_blocks) {
  using T = Tile<kStages>;
  if (m == 0 || n == 0) return;
  setup_done<kStages, kBandRows, kEpilogue>.require("ping-pong", "setup_gemm_pingpong");
  if (!gemm_tma::tma_describes(A, B, k)) {
    gemm_wgmma::gemm<128, kStages>(m, n, k, alpha, A, B, beta, C, stream);
    return;
  }
  // Host work only (no allocation, no synchronisation): the maps travel as __grid_constant__ parameters.
  const tut::hopper::TensorMap2d map_a = tut::hopper::make_tensor_map_2d_bf16(A, m, k, k, T::kBlockM, T::kBlockK);
  const tut::hopper::TensorMap2d map_b = tut::hopper::make_tensor_map_2d_bf16(B, n, k, k, T::kBlockN, T::kBlockK);
  const bool pairs_c = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
  const long long tiles =
      static_cast<long long>((m + T::kBlockM - 1) / T::kBlockM) * ((n + T::kBlockN - 1) / T::kBlockN);
  const int blocks = static_cast<int>(std::min<long long>(tiles, std::max(max_blocks, 1)));
  gemm_pingpong_kernel<kStages, kBandRows, kEpilogue><<<blocks, T::kThreads, T::kSharedBytes, stream>>>(
      map_a.map, map_b.map, m, n, k, alpha, beta, C, pairs_c);
  TUT_CHECK_LAUNCH();
}

template <int kStages, int kBandRows = gemm_persistent::kDefaultBandRows<128>,
          gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
inline void gemm(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                 cudaStream_t stream) {
  gemm_on_grid<kStages, kBandRows, kEpilogue>(m, n, k, alpha, A, B, beta, C, stream,
                                              tut::sm_count_in_use(tut::current_device()));
}

// The kernel as a variant of a tensor-core chapter (chapter 59 takes it as a candidate).
template <int kStages = kCandidateStages, int kBandRows = gemm_persistent::kDefaultBandRows<128>,
          gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
tut::gemm_tc::TcVariant as_variant(const std::string& name, const std::string& description, bool on_demand) {
  return {name, description, gemm<kStages, kBandRows, kEpilogue>, 90, on_demand,
          [name](int, int, int) { setup_gemm_pingpong<kStages, kBandRows, kEpilogue>(name); }};
}

}  // namespace gemm_pingpong
