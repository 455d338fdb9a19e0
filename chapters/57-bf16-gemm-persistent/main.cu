// Chapter 57: BF16 GEMM with a persistent, warp-specialised kernel: one block per SM takes output tile after
// output tile in a rasterised order, and its producer warpgroup loads the next tile's slices while the consumer
// warpgroups store the current tile, against cuBLAS (cublasGemmEx). sm_90a only.
#include <string>
#include <vector>

#include "gemm_cluster_multicast.cuh"  // an experimental candidate: clusters of 2 CTAs share B by TMA multicast
#include "gemm_multistage.cuh"  // chapter 53's stage: the fallback off sm_90a
#include "gemm_persistent.cuh"
#include "gemm_pingpong.cuh"    // an experimental candidate: the consumers take turns on whole tiles
#include "gemm_tc/tc_workload.cuh"
#include "gemm_tma.cuh"                // chapter 55's stage, for the same-run comparison
#include "gemm_warp_specialized.cuh"   // the previous stage (chapter 56)
#include "hopper/sm90a_fallback.cuh"

namespace {

// A kernel's launches as a variant with its set-up (the sm_90a check and the shared-memory opt-ins): `launch` on one
// block per SM in use (grid_blocks = 0), or `on_grid` on at most grid_blocks blocks (the tests' grids, smaller than
// the tiles).
using OnGrid = void (*)(int m, int n, int k, float alpha, const tut::gemm_tc::bf16* A, const tut::gemm_tc::bf16* B,
                        float beta, float* C, cudaStream_t stream, int max_blocks);
tut::gemm_tc::TcVariant grid_variant(const std::string& name, const std::string& description, bool on_demand,
                                     int grid_blocks, tut::gemm_tc::TcLaunch launch, OnGrid on_grid,
                                     void (*setup)(const std::string& variant)) {
  if (grid_blocks > 0)
    launch = [grid_blocks, on_grid](int m, int n, int k, float alpha, const tut::gemm_tc::bf16* A,
                                    const tut::gemm_tc::bf16* B, float beta, float* C, cudaStream_t stream) {
      on_grid(m, n, k, alpha, A, B, beta, C, stream, grid_blocks);
    };
  return {grid_blocks > 0 ? name + " on " + std::to_string(grid_blocks) + " blocks" : name, description, launch, 90,
          on_demand, [name, setup](int, int, int) { setup(name); }};
}

// One tile shape and band of chapter 57's kernel as a variant; grid_blocks as above.
template <int kBlockN, int kStages, int kBandRows,
          gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
tut::gemm_tc::TcVariant persistent_variant(const std::string& name, const std::string& description, bool on_demand,
                                           int grid_blocks) {
  return grid_variant(name, description, on_demand, grid_blocks,
                      gemm_persistent::gemm<kBlockN, kStages, kBandRows, kEpilogue>,
                      gemm_persistent::gemm_on_grid<kBlockN, kStages, kBandRows, kEpilogue>,
                      gemm_persistent::setup_gemm_persistent<kBlockN, kStages, kBandRows, kEpilogue>);
}

// The ping-pong kernel (gemm_pingpong.cuh) as a variant; grid_blocks as above.
template <int kStages, int kBandRows, gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
tut::gemm_tc::TcVariant pingpong_variant(const std::string& name, const std::string& description, bool on_demand,
                                         int grid_blocks) {
  return grid_variant(name, description, on_demand, grid_blocks, gemm_pingpong::gemm<kStages, kBandRows, kEpilogue>,
                      gemm_pingpong::gemm_on_grid<kStages, kBandRows, kEpilogue>,
                      gemm_pingpong::setup_gemm_pingpong<kStages, kBandRows, kEpilogue>);
}

// The cluster-multicast kernel (gemm_cluster_multicast.cuh) as a variant; grid_blocks as above (floor(grid_blocks /
// 2) clusters of 2 CTAs, at least one).
template <int kStages, int kBandRows, gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
tut::gemm_tc::TcVariant cluster_multicast_variant(const std::string& name, const std::string& description,
                                                  bool on_demand, int grid_blocks) {
  return grid_variant(name, description, on_demand, grid_blocks,
                      gemm_cluster_multicast::gemm<kStages, kBandRows, kEpilogue>,
                      gemm_cluster_multicast::gemm_on_grid<kStages, kBandRows, kEpilogue>,
                      gemm_cluster_multicast::setup_gemm_cluster_multicast<kStages, kBandRows, kEpilogue>);
}

}  // namespace

// The stage and its candidates (on demand: --variant NAME or --variant all); grid_blocks as above.
std::vector<tut::gemm_tc::TcVariant> persistent_variants(int grid_blocks = 0) {
  constexpr int kBand = gemm_persistent::kStageBandRows;
  return {
      persistent_variant<256, 4, kBand>(
          "bf16-gemm-persistent",
          "chapter 56's warp-specialised block made persistent: one block per SM takes tile after tile in bands of " +
              std::to_string(kBand) +
              " tile-rows, and its producer loads the next tile's slices during the current tile's epilogue (128 x "
              "256 x 64, 4 stages, 193 KiB, 384 threads; sm_90a; K % 8 != 0 or misaligned rows: chapter 54's "
              "kernel)",
          false, grid_blocks),
      persistent_variant<256, 4, 1>("persistent-row-by-row",
                                    "the stage's kernel taking its tiles row by row (no bands)", true, grid_blocks),
      persistent_variant<256, 4, 8>("persistent-band-8", "the stage's kernel with bands of 8 tile-rows", true,
                                    grid_blocks),
      persistent_variant<128, 6, gemm_persistent::kDefaultBandRows<128>>(
          "persistent-128x128-6-stages",
          "the stage's kernel with a 128 x 128 x 64 tile (m64n128k16), 6 stages (193 KiB) and bands of " +
              std::to_string(gemm_persistent::kDefaultBandRows<128>) + " tile-rows",
          true, grid_blocks),
      pingpong_variant<gemm_pingpong::kCandidateStages, gemm_persistent::kDefaultBandRows<128>>(
          "ping-pong",
          "experimental: the persistent block with its consumer warpgroups taking turns on whole tiles (CUTLASS's "
          "ping-pong schedule): each multiplies a 128 x 128 x 64 tile alone (two m64n128k16 per step), the block's "
          "tiles alternate between the two, so one stores its tile while the other multiplies (" +
              std::to_string(gemm_pingpong::kCandidateStages) + " stages, " +
              std::to_string(gemm_pingpong::Tile<gemm_pingpong::kCandidateStages>::kSharedBytes / 1024) +
              " KiB, bands of " +
              std::to_string(gemm_persistent::kDefaultBandRows<128>) + " tile-rows)",
          true, grid_blocks),
      persistent_variant<256, 4, kBand, gemm_persistent::CEpilogue::kBatched>(
          "epilogue-batched",
          "experimental: the stage with its epilogue's loads of C in batches (c_epilogue.cuh): where a warp's 16 rows "
          "and the tile's 256 columns lie inside C, " +
              std::to_string(gemm_persistent::kEpilogueBatch) +
              " fragments' old C (2 float2 each) are loaded before their stores, one memory round trip per batch "
              "instead of one per float2",
          true, grid_blocks),
      persistent_variant<256, 4, kBand, gemm_persistent::CEpilogue::kBatchedPrefetch>(
          "epilogue-prefetch",
          "experimental: epilogue-batched, and the producer asks L2 for the tile's rows of C "
          "(cp.async.bulk.prefetch.L2) during the tile's last " +
              std::to_string(gemm_persistent::kPrefetchSlices) +
              " slices, so that the batches find C in L2 (beta != 0, N % 4 == 0)",
          true, grid_blocks),
      pingpong_variant<gemm_pingpong::kCandidateStages, gemm_persistent::kDefaultBandRows<128>,
                       gemm_persistent::CEpilogue::kBatchedPrefetch>(
          "ping-pong-epilogue-prefetch",
          "experimental: ping-pong with epilogue-prefetch's epilogue (batched loads of C, C prefetched into L2)",
          true, grid_blocks),
      cluster_multicast_variant<gemm_cluster_multicast::kCandidateStages, gemm_cluster_multicast::kPairBandRows>(
          "cluster-multicast",
          "experimental: the stage's kernel in clusters of 2 CTAs that take tile-rows 2p and 2p + 1 of one "
          "tile-column: each CTA loads its A slice and half of the shared 256 x 64 B slice, multicast by TMA into "
          "both (32 KiB per CTA and slice from L2 instead of 48); the empty barriers count both CTAs' consumers "
          "(128 x 256 x 64, " +
              std::to_string(gemm_cluster_multicast::kCandidateStages) + " stages, bands of " +
              std::to_string(gemm_cluster_multicast::kPairBandRows) + " pair-rows; sm_90a)",
          true, grid_blocks),
      cluster_multicast_variant<gemm_cluster_multicast::kCandidateStages, gemm_cluster_multicast::kPairBandRows,
                                gemm_persistent::CEpilogue::kBatchedPrefetch>(
          "cluster-epilogue-prefetch",
          "experimental: cluster-multicast with epilogue-prefetch's epilogue (batched loads of C, C prefetched into "
          "L2): the epilogue fix and a third less read from L2 per slice",
          true, grid_blocks),
  };
}

// The stage, its candidates, the previous stage (on demand, under the name tools/results gives it), chapter 55's
// stage (the fastest before it, on demand) and chapter 53's stage (the fallback where sm_90a code cannot run).
std::vector<tut::gemm_tc::TcVariant> chapter_variants() {
  std::vector<tut::gemm_tc::TcVariant> v = persistent_variants();
  v.push_back(gemm_warp_specialized::as_variant<256, 4>(
      "bf16-gemm-warp-specialized",
      "the previous stage, chapter 56's kernel (one 128 x 256 tile per block, a grid of all the tiles), for the "
      "same-run comparison",
      true));
  v.push_back(gemm_tma::as_variant<128, 3>(
      "bf16-gemm-tma-mbarrier",
      "chapter 55's stage (128 x 128 x 64, 3 stages, two blocks per SM), for the same-run comparison", true));
  v.push_back(gemm_multistage::as_fallback_variant(tut::hopper::kSm90aFallbackStage));
  return v;
}

// As chapter 54: below sm_80 refused (one line, exit 2); where this program's sm_90a code cannot run, one line says
// so and chapter 53's stage takes the stage's place in a plain run; naming an sm_90a variant is refused.
tut::ChapterSpec chapter_spec() {
  return tut::hopper::sm90a_tc_chapter("57-bf16-gemm-persistent", "BF16 GEMM: a persistent warp-specialised kernel",
                                       "bf16-gemm-persistent", chapter_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
