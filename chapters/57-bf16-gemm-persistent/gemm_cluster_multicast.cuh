// Chapter 57, an experimental candidate: the stage's persistent warp-specialised kernel (gemm_persistent.cuh: a
// 128 x 256 x 64 tile, 4 stages, 384 threads, the registers split 40 / 232) launched in clusters of two CTAs that
// share B through TMA multicast. `diff gemm_persistent.cuh gemm_cluster_multicast.cuh` shows the idea. sm_90a only
// (common/hopper/arch.cuh): elsewhere the kernel body compiles out and setup_gemm_cluster_multicast() refuses with
// one line.
//
// Layout (common/gemm_tc/tc_workload.cuh): A M x K, B N x K, both row-major BF16 (K-major); C M x N FP32.
// TMA needs rows that start on 16 bytes (K a multiple of 8, aligned bases; common/hopper/tma.cuh): other problems,
// and K = 0, take chapter 54's kernel, as the stage does.
//
// Which operand the two CTAs share: B. The CTAs of a cluster take the two tiles of a tile pair, tile-rows 2 p and
// 2 p + 1 at one tile-column (CTA rank r takes tile-row 2 p + r), so they read the same 256 x 64 slice of B for each
// slice and different 128 x 64 slices of A. CTA r loads its own A slice (16 KiB) and half r of the B slice (rows
// 128 r .. 128 r + 127 of the 256, 16 KiB), multicast into both CTAs. Per slice a CTA then reads 32 KiB from L2
// instead of 48: a third less. Sharing A instead (tile-columns 2 q and 2 q + 1 at one tile-row) would save half of
// the 16 KiB A slice, 8 KiB of 48 (a sixth): with a 128 x 256 tile B is the larger slice, so it is the one to share.
// The pair covers 256 x 256 of C. (cuBLAS's kernels at these sizes on the H200 run clusters of two as well: a
// 256 x 128 tile in 1 x 2 clusters at 4096^3, 192 x 192 in 2 x 1 at 6144^3.)
//
// The protocol (CUTLASS's, with this ladder's pieces: common/bulk_copy.cuh, common/hopper/tma.cuh):
//  * Each CTA's stage s is written by both producers: its own (A, and its half of B) and the peer's (the other
//    half of B). The full barrier of each CTA: its own producer's one arrival, announcing A's bytes plus the WHOLE
//    B slice's (the two multicast halves each complete_tx the barrier at the same shared offset in both CTAs), so
//    the phase completes only once all three boxes have landed. The peer's half may land before this CTA's
//    producer has announced the bytes (the transaction count goes below zero for a while): the phase still needs
//    the producer's arrival, so it cannot complete early. The peer cannot be a whole use ahead: it loads use u + 1
//    of a stage only after this CTA's consumers released use u, that is after they saw its phase complete.
//  * The empty barrier of each CTA counts the releases of the consumers of BOTH CTAs: the producer of CTA r
//    writes its half of B into the peer's stage too, so it may refill stage s only once the consumers of both
//    CTAs are done with it. Each consumer warp's lane 0, after the warp's wgmma.wait_group (which all its lanes
//    execute together), arrives on the stage's empty barrier in its own CTA and in the peer (mapa +
//    mbarrier.arrive.shared::cluster: mbarrier_arrive_in_cta below, which says why at CTA scope): 2 CTAs x 8
//    consumer warps = 16 arrivals per phase, 8 crossing to the peer per slice rather than 256 per-thread ones
//    (CUTLASS's consumers also release a multicast stage with one arrival per destination CTA, not one per thread).
//  * The barriers are initialised, and fence.mbarrier_init.release.cluster plus a cluster barrier (arrive.release,
//    wait.acquire, every thread of both CTAs) make that visible cluster-wide before any multicast byte or remote
//    arrival can reach them. Every thread meets the cluster barrier again at the end, so no CTA exits while its
//    peer may still multicast into its shared memory or arrive on its barriers.
//  * Both CTAs walk the same tile pairs (pair c, c + clusters, ... of one order: tile_of over the pair rows), with
//    the same K, so they load, wait and release the same slices in the same order. Where M leaves a pair's second
//    tile partly or wholly past the last row, its CTA still loads (TMA writes zeros for rows past M, and still
//    delivers every byte), waits and releases every slice: its peer needs its half of B and its releases. Only
//    its epilogue is guarded (store_c_fragment stores no row >= M, no column >= N).
//
// Measured on the H200 (README "Clusters of two"; docs/results/raw/2026-11-29-h200-s7/c3/runs/57-*.csv): a tie with the
// stage at 4096^3, 6144^3 and 8192^3. Reading a third less from L2 does not shorten the stage's time.
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
#include "gemm_persistent.cuh"         // chapter 57: the stage's block and bands
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

namespace gemm_cluster_multicast {

using tut::gemm_tc::bf16;
using gemm_persistent::TileCoord;

// The stage's block and tile: 128 x 256 x 64, 384 threads, the registers split 40 / 232 (chapter 56's Tile).
inline constexpr int kBlockN = 256;
template <int kStages>
using Tile = gemm_warp_specialized::Tile<kBlockN, kStages>;

inline constexpr int kClusterCtas = 2;                       // a cluster of 2 x 1 x 1 CTAs: a tile pair
inline constexpr std::uint16_t kClusterMask = 0b11;          // multicast to both
inline constexpr int kBHalfRows = kBlockN / kClusterCtas;    // 128: the B box each CTA's producer loads
// The stage's stages (4 x 48 KiB: each CTA still holds a whole A and B slice per stage).
inline constexpr int kCandidateStages = 4;
// Bands of pair-rows: 8 pair-rows are the stage's 16 tile-rows, so a wave of 66 clusters spans the same region of C
// as the stage's wave of 132 blocks.
inline constexpr int kPairBandRows = gemm_persistent::kStageBandRows / kClusterCtas;
static_assert(kPairBandRows == 8, "the stage's 16 tile-rows in pairs");

// Cluster pieces (PTX ISA: %cluster_ctarank, barrier.cluster). Every thread of every CTA of the cluster calls
// cluster_sync(): the arrive releases what the thread wrote before it (the barriers' initialisation), the wait
// acquires what every other thread released.
__device__ __forceinline__ unsigned cluster_cta_rank() {
  unsigned rank = 0;
#if TUT_SM90_DEVICE_CODE
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
#endif
  return rank;
}
__device__ __forceinline__ void cluster_sync() {
#if TUT_SM90_DEVICE_CODE
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
#endif
}

// An arrival on the mbarrier at `barrier`'s offset in cluster CTA `cta_rank` (this CTA's own or its peer's):
// mapa, then mbarrier.arrive.shared::cluster with its default semantics, .release at CTA scope (CUTLASS's
// ClusterBarrier::arrive(cta_id)). What a consumer's arrival must order is only that its warpgroup's wgmmas have
// finished reading the stage (wgmma.wait_group, before it) before a producer's TMA overwrites the stage; the
// consumer wrote nothing the producers read, so it needs no release of its writes at cluster scope. That release
// (mbarrier.arrive.release.cluster, bulk_copy.cuh's mbarrier_arrive_cluster) compiles to a MEMBAR.ALL.GPU before
// each arrival: on the H200 it made this kernel take 0.409 ms at 4096^3 against 0.276 ms with this arrival (and
// 2.81 ms against 1.87 at 8192^3), 0.5 us more per slice.
__device__ __forceinline__ void mbarrier_arrive_in_cta(std::uint64_t* barrier, unsigned cta_rank) {
#if TUT_SM90_DEVICE_CODE
  asm volatile(
      "{\n\t"
      ".reg .b32 remote;\n\t"
      "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n\t"
      "}" ::"r"(tut::bulk_copy::shared_address(barrier)),
      "r"(cta_rank)
      : "memory");
#else
  (void)barrier, (void)cta_rank;
#endif
}

// This CTA's tile of tile pair `pair` (0 <= pair < pair_rows x tiles_n): the pairs in bands of kPairBandRows
// pair-rows (tile_of, persistent_schedule.hpp); pair-row p holds tile-rows 2 p and 2 p + 1, CTA rank r takes
// 2 p + r (tiles_m itself where tiles_m is odd and this is the last pair-row's second tile: wholly past M).
template <int kBandRows>
__device__ __forceinline__ TileCoord tile_of_pair(int pair, int pair_rows, int tiles_n, unsigned rank) {
  const TileCoord p = gemm_persistent::tile_of<kBandRows>(pair, pair_rows, tiles_n);
  return {kClusterCtas * p.row + static_cast<int>(rank), p.col};
}

template <int kStages, int kBandRows, gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
__global__ void __launch_bounds__(Tile<kStages>::kThreads, Tile<kStages>::kBlocksPerSm)
    gemm_cluster_multicast_kernel(const __grid_constant__ CUtensorMap map_a,
                                  const __grid_constant__ CUtensorMap map_b, int m, int n, int k, float alpha,
                                  float beta, float* __restrict__ C, bool pairs_c) {
#if TUT_SM90A_DEVICE_CODE
  using T = Tile<kStages>;
  using Ring = gemm_persistent::SliceRing<kStages>;
  using namespace tut::gemm_tc;
  using namespace tut::bulk_copy;
  using namespace tut::hopper;
  // What each CTA's stage receives per slice: its A box, and both halves of B (its own producer's and the peer's).
  constexpr unsigned kStageBytes = (T::kATileElements + T::kBTileElements) * sizeof(bf16);
  constexpr int kBHalfElements = kBHalfRows * T::kBlockK;
  static_assert((kBHalfElements * sizeof(bf16)) % kSwizzleAtomBytes == 0,
                "the second half of B starts on a swizzle atom: the two 128-row boxes lie as one 256-row box");
  constexpr unsigned kConsumerWarps = T::kConsumerThreads / 32;
  constexpr unsigned kEmptyArrivals = kClusterCtas * kConsumerWarps;  // 16: every consumer warp of both CTAs
  extern __shared__ __align__(16) unsigned char shared_raw[];  // realigned below: only 16 bytes are promised
  __shared__ std::uint64_t full[kStages];   // 1 arrival (with A's and all of B's bytes) + the bytes of 3 boxes
  __shared__ std::uint64_t empty[kStages];  // both CTAs' consumer warps are done reading the stage: 16 arrivals
  bf16* const a_stages = reinterpret_cast<bf16*>(align_to_swizzle_atom(shared_raw));
  bf16* const b_stages = a_stages + kStages * T::kATileElements;
  const int warpgroup = warpgroup_index();
  const unsigned rank = cluster_cta_rank();  // 0 or 1; the cluster's CTAs are blocks 2 c and 2 c + 1
  const int cluster = static_cast<int>(blockIdx.x) / kClusterCtas;
  const int clusters = static_cast<int>(gridDim.x) / kClusterCtas;
  const int tiles_m = (m + T::kBlockM - 1) / T::kBlockM, tiles_n = (n + kBlockN - 1) / kBlockN;
  const int pair_rows = (tiles_m + kClusterCtas - 1) / kClusterCtas;
  const int pairs = pair_rows * tiles_n;
  const int slices = (k + T::kBlockK - 1) / T::kBlockK;

  if (threadIdx.x == 0) {
    prefetch_tensor_map(&map_a);
    prefetch_tensor_map(&map_b);
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], kEmptyArrivals);
    }
    fence_mbarrier_init();  // release at cluster scope: the peer's copies and arrivals must see them initialised
  }
  cluster_sync();  // both CTAs' barriers are initialised before anyone waits on them or copies or arrives to them

  if (warpgroup == 0) {
    warpgroup_registers_decrease<T::Registers::kProducerRegisters>();
    if (threadIdx.x == 0) {
      const bool prefetch_c = gemm_persistent::prefetch_c_allowed(C, n, beta);
      std::uint32_t count = 0;  // slices loaded so far, over all of this cluster's tile pairs
      for (int pair = cluster; pair < pairs; pair += clusters) {
        const TileCoord t = tile_of_pair<kBandRows>(pair, pair_rows, tiles_n, rank);
        for (int s = 0; s < slices; ++s, ++count) {
          const int stage = Ring::stage(count);
          // The stage's previous use must be done in BOTH CTAs: this producer's half of B lands in the peer's
          // stage too. The empty barrier counts both CTAs' consumer warps.
          if (count >= kStages) mbarrier_wait_parity(&empty[stage], Ring::empty_parity(count));
          mbarrier_arrive_expect_tx(&full[stage], kStageBytes);  // A + all of B: the peer's half counts here too
          tma_load_2d(a_stages + stage * T::kATileElements, &map_a, s * T::kBlockK, t.row * T::kBlockM, &full[stage]);
          tma_load_2d_multicast(b_stages + stage * T::kBTileElements + rank * kBHalfElements, &map_b,
                                s * T::kBlockK, t.col * kBlockN + static_cast<int>(rank) * kBHalfRows, &full[stage],
                                kClusterMask);
          // The epilogue candidates' prefetch of this CTA's tile of C (chapter 57's c_epilogue.cuh).
          if constexpr (kEpilogue == gemm_persistent::CEpilogue::kBatchedPrefetch)
            if (prefetch_c)
              gemm_persistent::prefetch_c_rows<T::kBlockM, kBlockN>(C, m, n, t.row * T::kBlockM, t.col * kBlockN, s,
                                                                     slices);
        }
      }
    }
    cluster_sync();  // the consumers' end: no CTA leaves while its peer may still copy or arrive to it
    return;
  }

  warpgroup_registers_increase<T::Registers::kConsumerRegisters>();
  const int consumer = warpgroup - 1;  // rows 64 consumer .. 64 consumer + 63 of each tile
  const int warp_in_group = (static_cast<int>(threadIdx.x) / 32) % 4;
  const bool releases = threadIdx.x % 32 == 0;  // lane 0 of each consumer warp frees stages for the cluster
  // After the warp's wgmma.wait_group: the stage is free as far as this warp goes, in this CTA and in the peer.
  auto release = [&](int stage) {
    if (!releases) return;
    for (unsigned cta = 0; cta < kClusterCtas; ++cta) mbarrier_arrive_in_cta(&empty[stage], cta);
  };
  float acc[T::kAccumulators];
  std::uint32_t count = 0;  // slices multiplied so far, over all of this cluster's tile pairs: the producer's
  for (int pair = cluster; pair < pairs; pair += clusters) {
    const TileCoord t = tile_of_pair<kBandRows>(pair, pair_rows, tiles_n, rank);
    // Each tile is a new sum (the last tile's groups have all retired: wait_group 0 below).
#pragma unroll
    for (int i = 0; i < T::kAccumulators; ++i) acc[i] = 0.0f;
    for (int s = 0; s < slices; ++s, ++count) {
      const int stage = Ring::stage(count);
      mbarrier_wait_parity(&full[stage], Ring::full_parity(count));  // A and both halves of B have landed

      const std::uint64_t desc_a = make_smem_descriptor_sw128(a_stages + stage * T::kATileElements +
                                                              consumer * T::kWgmmaM * T::kBlockK);
      const std::uint64_t desc_b = make_smem_descriptor_sw128(b_stages + stage * T::kBTileElements);
      wgmma_slice_bf16<kBlockN, T::kBlockK>(acc, desc_a, desc_b);  // the stage's slice, as one committed group
      // As in the stage: this slice's group stays in flight, the previous slice's has retired and frees its stage
      // (the tile's first slice has none: the previous tile freed its last below), here in both CTAs.
      wgmma_wait_group<1>();
      accumulator_fence(acc);
      if (s > 0) release(Ring::stage(count - 1));
    }
    wgmma_wait_group<0>();  // the tile's last group: the accumulators are final
    accumulator_fence(acc);
    // Its stage is free now, before the epilogue: both producers fill it with the next pair's slice meanwhile.
    release(Ring::stage(count - 1));

    // Epilogue (chapter 54's, or an epilogue candidate's: c_epilogue.cuh): an 8-column block j of the accumulators is
    // an mma.sync m16n8 C fragment; rows past M (a pair's second tile past the last tile-row) and columns past N are
    // not stored.
    const int row0 = t.row * T::kBlockM + consumer * T::kWgmmaM + warp_in_group * 16;
    gemm_persistent::store_c_warp_rows<kBlockN, kEpilogue>(acc, C, m, n, row0, t.col * kBlockN, alpha, beta, pairs_c);
  }
  cluster_sync();  // as the producer's: the peer's last releases reach this CTA before it exits, and ours the peer
#else
  (void)map_a, (void)map_b, (void)m, (void)n, (void)k, (void)alpha, (void)beta, (void)C, (void)pairs_c;
#endif
}

// What the set-up finds out: how many clusters of 2 of this kernel the GPU holds at once
// (cudaOccupancyMaxActiveClusters; a cluster's CTAs share one GPC, so where GPCs have odd SM counts this can be less
// than half the SMs; 66 on the H200's 132). The persistent grid takes no more clusters than that: a cluster that
// waited for another to finish would double the run's time.
struct ClusterPlan {
  int max_active_clusters = 0;
};

template <int kStages, int kBandRows, gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
inline tut::PerDevice<ClusterPlan> setup_done;

// The launch configuration of `clusters` clusters of 2 CTAs of 384 threads with the stage's shared memory.
struct LaunchConfig {
  cudaLaunchConfig_t config = {};
  cudaLaunchAttribute attributes[1] = {};
  LaunchConfig(int clusters, int threads, int shared_bytes, cudaStream_t stream) {
    config.gridDim = dim3(static_cast<unsigned>(kClusterCtas * clusters));
    config.blockDim = dim3(static_cast<unsigned>(threads));
    config.dynamicSmemBytes = static_cast<std::size_t>(shared_bytes);
    config.stream = stream;
    attributes[0].id = cudaLaunchAttributeClusterDimension;
    attributes[0].val.clusterDim.x = kClusterCtas;
    attributes[0].val.clusterDim.y = 1;
    attributes[0].val.clusterDim.z = 1;
    config.attrs = attributes;
    config.numAttrs = 1;
  }
  LaunchConfig(const LaunchConfig&) = delete;
  LaunchConfig& operator=(const LaunchConfig&) = delete;
};

// Refuses (tut::UsageError, one line) where this program's sm_90a code cannot run, then opts in to the dynamic
// shared memory of this kernel and of chapter 54's (the path for what TMA cannot describe) and asks how many of its
// clusters fit at once; once per device.
template <int kStages, int kBandRows, gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
inline void setup_gemm_cluster_multicast(const std::string& variant) {
  setup_done<kStages, kBandRows, kEpilogue>.ensure([&] {
    if (const char* why = tut::hopper::sm90a_unavailable_reason()) throw tut::UsageError(variant + ": " + why);
    auto* const kernel = gemm_cluster_multicast_kernel<kStages, kBandRows, kEpilogue>;
    TUT_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tile<kStages>::kSharedBytes));
    gemm_wgmma::setup_gemm_wgmma<kBlockN, kStages>(variant);
    ClusterPlan plan;
    const LaunchConfig launch(1, Tile<kStages>::kThreads, Tile<kStages>::kSharedBytes, nullptr);
    TUT_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&plan.max_active_clusters, kernel, &launch.config));
    if (plan.max_active_clusters < 1)
      throw tut::UsageError(variant + ": this GPU cannot hold a cluster of two of its 193 KiB blocks");
    return plan;
  });
}

// The clusters a launch on at most max_blocks blocks takes: floor(max_blocks / 2), at least one (a grid of one
// block still runs one cluster of two), no more than max_active_clusters (0: no limit) and no more than the tile
// pairs.
inline int clusters_for(int m, int n, int max_blocks, int max_active_clusters = 0) {
  const long long pair_rows = ((m + 127) / 128 + kClusterCtas - 1) / kClusterCtas;
  const long long pairs = pair_rows * ((n + kBlockN - 1) / kBlockN);
  int clusters = std::max(max_blocks / kClusterCtas, 1);
  if (max_active_clusters > 0) clusters = std::min(clusters, max_active_clusters);
  return static_cast<int>(std::min<long long>(pairs, clusters));
}

// The launch on clusters_for() clusters of 2 CTAs (one CTA per SM, as the stage's). gemm() gives the SMs in use;
// the tests give fewer, so that each cluster takes many tile pairs.
template <int kStages, int kBandRows, gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
inline void gemm_on_grid(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                         cudaStream_t stream, int max_blocks) {
  using T = Tile<kStages>;
  static_assert(T::kBlockM == 128, "clusters_for counts 128-row tiles");
  if (m == 0 || n == 0) return;
  const ClusterPlan& plan = setup_done<kStages, kBandRows, kEpilogue>.require("cluster-multicast",
                                                                            "setup_gemm_cluster_multicast");
  if (!gemm_tma::tma_describes(A, B, k)) {
    gemm_wgmma::gemm<kBlockN, kStages>(m, n, k, alpha, A, B, beta, C, stream);
    return;
  }
  // Host work only (no allocation, no synchronisation): the maps travel as __grid_constant__ parameters. B's box
  // is half the tile's B slice: each CTA of a pair loads one half.
  const tut::hopper::TensorMap2d map_a = tut::hopper::make_tensor_map_2d_bf16(A, m, k, k, T::kBlockM, T::kBlockK);
  const tut::hopper::TensorMap2d map_b = tut::hopper::make_tensor_map_2d_bf16(B, n, k, k, kBHalfRows, T::kBlockK);
  const bool pairs_c = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
  const LaunchConfig launch(clusters_for(m, n, max_blocks, plan.max_active_clusters), T::kThreads, T::kSharedBytes,
                            stream);
  TUT_CUDA_CHECK(cudaLaunchKernelEx(&launch.config, gemm_cluster_multicast_kernel<kStages, kBandRows, kEpilogue>,
                                    map_a.map, map_b.map, m, n, k, alpha, beta, C, pairs_c));
  TUT_CHECK_LAUNCH();
}

template <int kStages = kCandidateStages, int kBandRows = kPairBandRows,
          gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
inline void gemm(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                 cudaStream_t stream) {
  gemm_on_grid<kStages, kBandRows, kEpilogue>(m, n, k, alpha, A, B, beta, C, stream,
                                              tut::sm_count_in_use(tut::current_device()));
}

// The kernel as a variant of a tensor-core chapter.
template <int kStages = kCandidateStages, int kBandRows = kPairBandRows,
          gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
tut::gemm_tc::TcVariant as_variant(const std::string& name, const std::string& description, bool on_demand) {
  return {name, description, gemm<kStages, kBandRows, kEpilogue>, 90, on_demand,
          [name](int, int, int) { setup_gemm_cluster_multicast<kStages, kBandRows, kEpilogue>(name); }};
}

}  // namespace gemm_cluster_multicast
