// GPU tests for chapter 57: the tensor-core ladder's tests (common/gemm_tc/tc_testing.cuh) for the stage and its
// candidates on one block per SM; the same kernels on grids of 1 to 7 blocks, so that every block takes several
// tiles (ragged last tiles in M and N, slice counts 1 to 9 and 13 per tile, so that the ring's phases run on across
// tile boundaries at every offset; beta = 0 with C poisoned); K multiples of 8 (TMA) beside K that are not
// (chapter 54's kernel); problems with more tiles than SMs on the full grid; the register split the kernels were
// compiled for; and the set-up contract. The ping-pong candidate (gemm_pingpong.cuh) runs in all of these, and
// alone where its consumers' turns can go wrong: one tile (consumer 1 idle), odd tile counts per block, 2 grid + 1
// tiles. The cluster-multicast candidate (gemm_cluster_multicast.cuh) runs in all of these too, and alone where its
// clusters can go wrong: a pair's second tile partly or wholly past M (odd tile-row counts, M = 129, M <= 128), B's
// second half past N, one tile, fewer tile pairs than clusters, odd pair counts per cluster, 2 clusters + 1 pairs.
// The epilogue candidates (c_epilogue.cuh) run in all of these, and alone where their batched and fragment paths meet
// in one tile. sm_90a only: elsewhere the program skips (exit 77) with one line. The
// schedule's indices and the ring's protocol are checked on the host too (test_persistent_schedule.cpp).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gemm_tc/tc_testing.cuh"
#include "hopper/hopper_testing.cuh"

#include <stdexcept>
#include <string>

namespace {

// A case that waits for a phase that never comes ends the program with one line (common/hopper/hopper_testing.cuh).
class Watchdog : public tut::hopper::testing::Watchdog {
 public:
  Watchdog(const char* what, int seconds) : tut::hopper::testing::Watchdog("57", what, seconds) {}
};

constexpr int kCaseSeconds = 300;

// 257 x 513: 3 x 3 tiles of 128 x 256 (3 x 5 of 128 x 128), the last ones one row and one column wide.
std::vector<tut::gemm_tc::testing::Shape> ragged_tiles_with_slices(std::initializer_list<int> ks) {
  std::vector<tut::gemm_tc::testing::Shape> shapes;
  for (int k : ks) shapes.push_back({257, 513, k});
  return shapes;
}

}  // namespace

// First in the file (doctest runs the cases in file order): no GPU, or no sm_90a code for this one, ends the
// program with meson's SKIP status before any case.
TEST_CASE("57: sm_90a code runs here (otherwise the whole program skips)") {
  tut::require_supported_gpu();
  tut::hopper::testing::skip_unless_sm90a();
}

// Before any case has set the kernel up.
TEST_CASE("57: a launch before setup_gemm_persistent() throws instead of setting up inside a timed run") {
  tut::require_supported_gpu();
  constexpr int kBand = gemm_persistent::kStageBandRows;
  bool done = true;
  try {
    gemm_persistent::setup_done<256, 4, kBand>.require("57", "setup_gemm_persistent");
  } catch (const std::logic_error&) {
    done = false;
  }
  if (done) {
    MESSAGE("already set up in this process (test order changed): the contract is not testable here");
    return;
  }
  CHECK_THROWS_WITH_AS((gemm_persistent::gemm<256, 4>(128, 256, 64, 1.0f, nullptr, nullptr, 0.0f, nullptr, 0)),
                       doctest::Contains("setup_gemm_persistent"), std::logic_error);
}

TEST_CASE("57: a ping-pong launch before setup_gemm_pingpong() throws instead of setting up inside a timed run") {
  constexpr int kBand = gemm_persistent::kDefaultBandRows<128>;
  constexpr int kStages = gemm_pingpong::kCandidateStages;
  tut::gemm_tc::testing::check_launch_before_setup_throws(
      [] { gemm_pingpong::setup_done<kStages, kBand>.require("57", "setup_gemm_pingpong"); },
      [] { gemm_pingpong::gemm<kStages, kBand>(128, 128, 64, 1.0f, nullptr, nullptr, 0.0f, nullptr, 0); },
      "setup_gemm_pingpong");
}

TEST_CASE("57: a cluster-multicast launch before setup_gemm_cluster_multicast() throws instead of setting up") {
  constexpr int kStages = gemm_cluster_multicast::kCandidateStages;
  constexpr int kBand = gemm_cluster_multicast::kPairBandRows;
  tut::gemm_tc::testing::check_launch_before_setup_throws(
      [] { gemm_cluster_multicast::setup_done<kStages, kBand>.require("57", "setup_gemm_cluster_multicast"); },
      [] { gemm_cluster_multicast::gemm<kStages, kBand>(128, 256, 64, 1.0f, nullptr, nullptr, 0.0f, nullptr, 0); },
      "setup_gemm_cluster_multicast");
}

TUT_TC_CHAPTER_TESTS(chapter_spec(), persistent_variants())

TEST_CASE("57: more tiles than blocks: grids of 1, 2, 3 and 7 blocks, ragged last tiles in M and N") {
  const Watchdog dog("more tiles than blocks", kCaseSeconds);
  for (int blocks : {1, 2, 3, 7})
    tut::gemm_tc::testing::check_variants_at(
        persistent_variants(blocks),
        {{257, 513, 64}, {255, 1023, 136}, {640, 1024, 128}, {1000, 1000, 328}, {129, 2049, 72}, {1025, 129, 200}});
}

TEST_CASE("57: slice counts 1 to 9 and 13 per tile, several tiles per block: the phases run on across tiles") {
  const Watchdog dog("slice counts", kCaseSeconds);
  // K = 64 s: s slices per tile; 328 and 1544: a ragged last slice (zeros past K from the copy engine).
  for (int blocks : {1, 2, 3})
    tut::gemm_tc::testing::check_variants_at(
        persistent_variants(blocks),
        ragged_tiles_with_slices({64, 128, 192, 256, 320, 384, 448, 512, 576, 832, 328, 1544}));
}

TEST_CASE("57: beta = 0 never reads C (it holds NaN) when blocks take several tiles") {
  const Watchdog dog("beta = 0", kCaseSeconds);
  for (int blocks : {1, 3}) {
    tut::gemm_tc::testing::check_variants_at(persistent_variants(blocks), ragged_tiles_with_slices({64, 328}), 1.0f,
                                             0.0f);
    tut::gemm_tc::testing::check_variants_at(persistent_variants(blocks), {{640, 1024, 128}}, -2.0f, 0.0f);
  }
}

TEST_CASE("57: K multiples of 8 take TMA (zeros past K, M and N from the copy engine), others chapter 54's kernel") {
  const Watchdog dog("K multiples of 8 or not", kCaseSeconds);
  // TMA: K = 8, 16, 56, 72, 136 with M and N one over and under a tile; then K = 1, 7, 9, 65, 127 (cp.async).
  const std::vector<tut::gemm_tc::testing::Shape> shapes = {
      {130, 260, 8},  {127, 255, 16}, {129, 257, 56}, {1, 1, 72},     {255, 129, 136}, {1, 513, 64},
      {130, 260, 1},  {127, 255, 7},  {64, 128, 9},   {255, 129, 65}, {257, 511, 127}};
  tut::gemm_tc::testing::check_variants_at(persistent_variants(), shapes);
  tut::gemm_tc::testing::check_variants_at(persistent_variants(2), shapes);
}

TEST_CASE("57: more tiles than SMs on the grid the program launches (one block per SM in use)") {
  const Watchdog dog("more tiles than SMs", kCaseSeconds);
  // 33 x 9 and 17 x 17 tiles of 128 x 256 (297 and 289: two or three per block on 132 SMs), ragged in M, N and K;
  // the second is past the CPU reference's 2^30 (cuBLAS checks it).
  tut::gemm_tc::testing::check_variants_at(persistent_variants(), {{4097, 2049, 72}, {2049, 4097, 200}});
}

// One candidate of persistent_variants() alone, by name, on a grid of `blocks` (grid_blocks as there; the cluster
// candidate takes floor(blocks / 2) clusters, at least one). On a given grid the variant's name is "NAME on B blocks".
std::vector<tut::gemm_tc::TcVariant> candidate_variants(const std::string& name, int blocks) {
  const std::string full = blocks > 0 ? name + " on " + std::to_string(blocks) + " blocks" : name;
  std::vector<tut::gemm_tc::TcVariant> v;
  for (auto& variant : persistent_variants(blocks))
    if (variant.name == full) v.push_back(variant);
  REQUIRE(v.size() == 1);
  return v;
}
std::vector<tut::gemm_tc::TcVariant> pingpong_variants(int blocks) { return candidate_variants("ping-pong", blocks); }
// Both cluster kernels: the candidate's, and the one with the epilogue candidates' epilogue (c_epilogue.cuh).
std::vector<tut::gemm_tc::TcVariant> cluster_variants(int blocks) {
  std::vector<tut::gemm_tc::TcVariant> v = candidate_variants("cluster-multicast", blocks);
  for (auto& variant : candidate_variants("cluster-epilogue-prefetch", blocks)) v.push_back(variant);
  return v;
}

TEST_CASE("57: ping-pong: one tile (consumer 1 idle), odd tile counts per block, 2 grid + 1 tiles, many slice counts") {
  const Watchdog dog("ping-pong tile counts", kCaseSeconds);
  // 128 x 128 tiles: 1 (consumer 1 has none, consumer 0 passes no turn), 2, 3, 5, 6, 7, 8, 9 and 15 tiles, ragged in
  // M, N or K. On 1, 2, 3 and 7 blocks they give blocks an odd count of tiles (consumer 0 one more than consumer 1),
  // blocks of one tile beside blocks of two, and 2 grid + 1 tiles (3 on 1 block, 5 on 2, 7 on 3, 15 on 7). K: 1, 2,
  // 3, 5, 6, 7 (the stages), 13 and 25 slices, so that the consumers' turns start at many offsets of the ring.
  const std::vector<tut::gemm_tc::testing::Shape> shapes = {
      {128, 128, 64},   {1, 1, 64},       {100, 77, 1544}, {256, 128, 320}, {384, 128, 136},
      {640, 100, 448},  {129, 257, 384},  {128, 833, 832}, {385, 129, 1600}, {300, 300, 72},
      {1920, 128, 192}};
  for (int blocks : {1, 2, 3, 7}) tut::gemm_tc::testing::check_variants_at(pingpong_variants(blocks), shapes);
  // beta = 0 with C full of NaN, alpha = -2: neither consumer's tiles read C.
  for (int blocks : {1, 3})
    tut::gemm_tc::testing::check_variants_at(pingpong_variants(blocks),
                                             {{128, 128, 64}, {300, 300, 72}, {640, 100, 448}}, -2.0f, 0.0f);
  // One block per SM in use: fewer tiles than SMs (one each, every consumer 1 idle), and 2 SMs + 1 tiles (one
  // block takes 3).
  const int sms = tut::sm_count_in_use(tut::current_device());
  tut::gemm_tc::testing::check_variants_at(pingpong_variants(0), {{1000, 1000, 328}, {128 * (2 * sms + 1), 100, 72}});
}

// The epilogue candidates (c_epilogue.cuh) alone where their paths split: warps whose 16 rows cross M (M = 1000, 1030)
// and tiles past N take the fragments' path beside batched warps of the same tile; N % 4 == 2 (514, 1030) keeps float2
// pairs but no prefetch (rows not on 16 bytes); 1, 2, 7, 9 and 13 slices per tile (the prefetch's rows spread over
// fewer slices than kPrefetchSlices, or over 8 of more); beta = 0 with C full of NaN; several tiles per block.
TEST_CASE("57: epilogue candidates: batched and fragment warps in one tile, N % 4 == 2, prefetch over 1 to 13 slices") {
  const Watchdog dog("epilogue candidates", kCaseSeconds);
  std::vector<tut::gemm_tc::TcVariant> v;
  for (const char* name :
       {"epilogue-batched", "epilogue-prefetch", "ping-pong-epilogue-prefetch", "cluster-epilogue-prefetch"})
    for (auto& variant : candidate_variants(name, 3)) v.push_back(variant);
  const std::vector<tut::gemm_tc::testing::Shape> shapes = {{1000, 1000, 328}, {640, 514, 128}, {1030, 1030, 64},
                                                            {384, 1024, 448}, {256, 768, 576},  {129, 512, 832}};
  tut::gemm_tc::testing::check_variants_at(v, shapes);
  tut::gemm_tc::testing::check_variants_at(v, shapes, -2.0f, 0.0f);
  tut::gemm_tc::testing::check_variants_at(v, shapes, 0.5f, 1.0f);
  for (auto& name : {"epilogue-prefetch", "ping-pong-epilogue-prefetch", "cluster-epilogue-prefetch"})
    tut::gemm_tc::testing::check_variants_at(candidate_variants(name, 0), {{4096, 2048, 72}, {1000, 2052, 64}});
}

TEST_CASE("57: clusters: the clusters each grid gives") {
  // grid_blocks 1 to 3: one cluster; 7: three; never more than the tile pairs (here 2 x 3 pairs: 3 x 3 tiles).
  CHECK(gemm_cluster_multicast::clusters_for(640, 768, 1) == 1);
  CHECK(gemm_cluster_multicast::clusters_for(640, 768, 3) == 1);
  CHECK(gemm_cluster_multicast::clusters_for(640, 768, 7) == 3);
  CHECK(gemm_cluster_multicast::clusters_for(640, 768, 132) == 9);
  CHECK(gemm_cluster_multicast::clusters_for(129, 1, 132) == 1);
  CHECK(gemm_cluster_multicast::clusters_for(4096, 4096, 132) == 66);
  CHECK(gemm_cluster_multicast::clusters_for(4096, 4096, 132, 60) == 60);
  CHECK(gemm_cluster_multicast::clusters_for(4096, 4096, 7, 60) == 3);
}

TEST_CASE("57: cluster-multicast: pairs' second tiles past M, B halves past N, one tile, odd and few pairs") {
  const Watchdog dog("cluster-multicast tile pairs", kCaseSeconds);
  // Tiles of 128 x 256, pairs of two tile-rows. M: 384 and 640 (3 and 5 tile-rows: the last pair's second tile
  // wholly past M), 129 (its second tile one row), 100 and 1 (one tile-row: every pair's second tile past M), 256
  // (even). N: 100 (B's second half wholly past N), 513 (the last tile-column one column), 256. Pair counts 1 (one
  // tile in all: 128 x 256, 1 x 1), 2, 3, 4, 5, 6, 9; K: 1, 2, 3, 4 (the stages), 5, 9, 13 and 25 slices, ragged
  // ones too, so that the ring runs on across pairs at many offsets.
  const std::vector<tut::gemm_tc::testing::Shape> shapes = {
      {128, 256, 64},  {1, 1, 64},       {129, 256, 64},  {129, 513, 200}, {100, 300, 448}, {384, 256, 128},
      {640, 513, 328}, {384, 100, 256},  {256, 100, 72},  {640, 768, 832}, {1, 1100, 1544}, {1000, 600, 576},
      {256, 1025, 1600}};
  // 2, 4, 6 and 14 blocks: 1, 2, 3 and 7 clusters; 1 block: one cluster still.
  for (int blocks : {1, 2, 4, 6, 14}) tut::gemm_tc::testing::check_variants_at(cluster_variants(blocks), shapes);
  // 2 clusters + 1 pairs on 1, 2, 3 and 7 clusters (odd pair counts per cluster: 3 on one, 3 and 2 on two, ...),
  // the last pair-row's second tile wholly past M (tile-rows 2 (2 c + 1) - 1) or one row (M = 256 (2 c + 1) - 127).
  for (int clusters : {1, 2, 3, 7}) {
    const int pair_rows = 2 * clusters + 1;
    tut::gemm_tc::testing::check_variants_at(cluster_variants(2 * clusters),
                                             {{256 * pair_rows, 256, 64},
                                              {256 * pair_rows - 128, 200, 136},
                                              {256 * pair_rows - 127, 257, 200}});
  }
  // beta = 0 with C full of NaN, alpha = -2: neither CTA's tiles read C, the out-of-range second tiles included.
  for (int blocks : {2, 6})
    tut::gemm_tc::testing::check_variants_at(cluster_variants(blocks),
                                             {{128, 256, 64}, {129, 513, 200}, {384, 100, 256}, {640, 768, 832}},
                                             -2.0f, 0.0f);
  // The program's grid (floor(SMs in use / 2) clusters): fewer pairs than clusters (8 x 4 tiles: 16 pairs), a
  // second tile past M with one pair in all, and 2 clusters + 1 pairs (one cluster takes 2 pairs) down one
  // tile-column at an odd tile-row count (the last second tile wholly past M) and along one pair-row.
  const int clusters = std::max(tut::sm_count_in_use(tut::current_device()) / 2, 1);
  tut::gemm_tc::testing::check_variants_at(cluster_variants(0), {{1000, 1000, 328},
                                                                 {129, 2, 64},
                                                                 {256 * (2 * clusters + 1) - 128, 256, 72},
                                                                 {256, 256 * (2 * clusters + 1), 72}});
}

// The kernels as compiled (common/hopper/hopper_testing.cuh): the registers their split assumes, no spills, one
// block per SM.
template <int kBlockN, int kStages, int kBandRows,
          gemm_persistent::CEpilogue kEpilogue = gemm_persistent::CEpilogue::kFragments>
void check_register_split(const std::string& variant) {
  gemm_persistent::setup_gemm_persistent<kBlockN, kStages, kBandRows, kEpilogue>(variant);
  tut::hopper::testing::check_register_split<gemm_persistent::Tile<kBlockN, kStages>>(
      variant, gemm_persistent::gemm_persistent_kernel<kBlockN, kStages, kBandRows, kEpilogue>, true);
}

TEST_CASE("57: each kernel launches with the registers its split assumes, spills nothing, fits one block per SM") {
  tut::require_supported_gpu();
  constexpr int kBand = gemm_persistent::kStageBandRows;
  check_register_split<256, 4, kBand>("bf16-gemm-persistent");
  check_register_split<256, 4, 1>("persistent-row-by-row");
  check_register_split<256, 4, 8>("persistent-band-8");
  check_register_split<128, 6, gemm_persistent::kDefaultBandRows<128>>("persistent-128x128-6-stages");
  check_register_split<256, 4, kBand, gemm_persistent::CEpilogue::kBatched>("epilogue-batched");
  check_register_split<256, 4, kBand, gemm_persistent::CEpilogue::kBatchedPrefetch>("epilogue-prefetch");
  constexpr int kPingPongBand = gemm_persistent::kDefaultBandRows<128>;
  gemm_pingpong::setup_gemm_pingpong<gemm_pingpong::kCandidateStages, kPingPongBand>("ping-pong");
  tut::hopper::testing::check_register_split<gemm_pingpong::Tile<gemm_pingpong::kCandidateStages>>(
      "ping-pong", gemm_pingpong::gemm_pingpong_kernel<gemm_pingpong::kCandidateStages, kPingPongBand>, true);
  constexpr auto kPrefetch = gemm_persistent::CEpilogue::kBatchedPrefetch;
  gemm_pingpong::setup_gemm_pingpong<gemm_pingpong::kCandidateStages, kPingPongBand, kPrefetch>(
      "ping-pong-epilogue-prefetch");
  tut::hopper::testing::check_register_split<gemm_pingpong::Tile<gemm_pingpong::kCandidateStages>>(
      "ping-pong-epilogue-prefetch",
      gemm_pingpong::gemm_pingpong_kernel<gemm_pingpong::kCandidateStages, kPingPongBand, kPrefetch>, true);
  constexpr int kClusterStages = gemm_cluster_multicast::kCandidateStages;
  constexpr int kClusterBand = gemm_cluster_multicast::kPairBandRows;
  gemm_cluster_multicast::setup_gemm_cluster_multicast<kClusterStages, kClusterBand>("cluster-multicast");
  tut::hopper::testing::check_register_split<gemm_cluster_multicast::Tile<kClusterStages>>(
      "cluster-multicast", gemm_cluster_multicast::gemm_cluster_multicast_kernel<kClusterStages, kClusterBand>, true);
  gemm_cluster_multicast::setup_gemm_cluster_multicast<kClusterStages, kClusterBand, kPrefetch>(
      "cluster-epilogue-prefetch");
  tut::hopper::testing::check_register_split<gemm_cluster_multicast::Tile<kClusterStages>>(
      "cluster-epilogue-prefetch",
      gemm_cluster_multicast::gemm_cluster_multicast_kernel<kClusterStages, kClusterBand, kPrefetch>, true);
  // The clusters of two the GPU holds at once: the persistent grid takes no more.
  const int clusters = gemm_cluster_multicast::setup_done<kClusterStages, kClusterBand>.require("57", "setup")
                           .max_active_clusters;
  MESSAGE("cluster-multicast: " << clusters << " clusters of 2 CTAs at once on "
                                << tut::sm_count_in_use(tut::current_device()) << " SMs");
  CHECK(clusters >= 1);
}

TEST_CASE("57: the stage is the one default variant, the previous stages are on demand") {
  const tut::ChapterSpec spec = chapter_spec();
  int stages = 0;
  for (const auto& v : spec.variants) {
    if (v.name == "bf16-gemm-persistent") {
      CHECK_FALSE(v.on_demand);
      ++stages;
    }
    if (v.name == "bf16-gemm-warp-specialized" || v.name == "bf16-gemm-tma-mbarrier" ||
        v.name == "bf16-gemm-cp-async-pipeline")
      CHECK(v.on_demand);
  }
  CHECK(stages == 1);
  CHECK(tut::hopper::needs_sm90a(chapter_variants(), "bf16-gemm-warp-specialized"));
  CHECK_FALSE(tut::hopper::needs_sm90a(chapter_variants(), "bf16-gemm-cp-async-pipeline"));
}
