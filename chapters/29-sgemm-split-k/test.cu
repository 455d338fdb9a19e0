// GPU tests for chapter 29: the SGEMM ladder's tests for the dispatcher, every fixed split and the stream-K
// variants, shapes where the model splits, K ranges that are not whole multiples of the slice or the split,
// bit-identical repeats (the reduction's and the fix-up's fixed order), and the refusal of a workspace the
// set-up did not size. Stream-K: shapes whose blocks' ranges cross two and three tiles and whose tiles are
// split over many blocks (asserted on this GPU's schedule), and a planted fix-up that drops the last partial.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>

#include "gemm/gemm_testing.cuh"

// This process plans in a folder of its own (no test reads a plan another run cached).
const tut::testing::ScopedPlanDir kTestPlans;

TUT_GEMM_CHAPTER_TESTS(chapter_spec(), split_k_variants())

TEST_CASE("29: K not a multiple of the slice nor of the split; fewer slices than splits; K = 1 and K = 0") {
  // 8 splits of K = 40 (3 slices of 16): 3 ranges; K = 1000 in 3, 4, 8 ranges; K = 17 (a partial slice).
  tut::gemm::testing::check_variants_at(split_k_variants(), {{33, 65, 40}, {129, 257, 1000}, {64, 64, 17},
                                                             {31, 33, 1}, {17, 19, 0}, {1, 1, 4097}});
}

TEST_CASE("29: shapes the model splits (few tiles, deep K): checked against cuBLAS and the CPU") {
  // On a 132-SM H200 the model splits all of these; on any GPU the stage must be right whatever it chooses.
  tut::gemm::testing::check_variants_at(split_k_variants(), {{64, 64, 8192}, {128, 512, 4096}, {255, 257, 3001}});
  tut::gemm::testing::check_variants_at(split_k_variants(), {{64, 64, 8192}, {129, 130, 2049}}, 1.0f, 0.0f);  // C = NaN
}

TEST_CASE("29: the reduction sums in a fixed order: two runs give the same bits") {
  tut::require_supported_gpu();
  for (const auto& v : split_k_variants()) {
    if (v.name != "sgemm-split-k" && v.name != "splitk-64x128-s8") continue;
    tut::gemm::GemmProblem p(200, 300, 5000, 1.0f, 0.0f, 7);
    v.setup(200, 300, 5000);
    std::vector<float> first(200 * 300), second(200 * 300);
    for (auto* out : {&first, &second}) {
      p.reset_c(0);
      p.run(v.launch, 0);
      TUT_CUDA_CHECK(cudaDeviceSynchronize());
      TUT_CUDA_CHECK(cudaMemcpy(out->data(), p.c_device(), out->size() * sizeof(float), cudaMemcpyDeviceToHost));
    }
    INFO(v.name);
    CHECK(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)) == 0);
  }
}

TEST_CASE("29: the stage's plan is made in the set-up, and the model counts the partial-sum kernels' blocks per SM") {
  tut::require_supported_gpu();
  sgemm_split_k::SplitDispatcher d;
  d.set_up(128, 4096, 4096);
  const auto& tiles = d.tiles();
  for (bool beta : {true, false}) {  // the looked-up plan is the model's
    const sgemm_shapes::Plan looked_up = d.plan(128, 4096, 4096, -1, 0, beta);
    const sgemm_shapes::Plan model = tiles.plan(128, 4096, 4096, sgemm_split_k::kMaxSplits, beta);
    CHECK(looked_up.config == model.config);
    CHECK(looked_up.splits == model.splits);
    CHECK(looked_up.k_per_split == model.k_per_split);
    CHECK(d.workspace_bytes() >= looked_up.workspace_bytes);
  }
  // A shape the set-up did not see is planned in the launch (slower, still the model's plan).
  CHECK(d.plan(1024, 1024, 16384).splits == tiles.plan(1024, 1024, 16384, sgemm_split_k::kMaxSplits).splits);
  // A split plan runs the partial-sum kernel, not the tile kernel: the set-up gives the model that kernel's
  // blocks per SM (on sm_90 with CUDA 13.0: 1 for 128x256, as its tile kernel; 3 for 64x128, whose tile kernel
  // holds 4), and a split plan counts them; a plan without a split counts the tile kernel's.
  auto split_blocks = [](auto kernel, int threads, int shared) {
    int blocks = 0;
    TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared));
    return blocks;
  };
  using C0 = std::tuple_element_t<0, sgemm_shapes::Tiles>::Config;
  using C1 = std::tuple_element_t<1, sgemm_shapes::Tiles>::Config;
  const auto& models = tiles.models();
  for (std::size_t u = 0; u < models.size(); ++u) {
    const auto& m = models[u];
    const int split = m.name == tiles.kernels()[0].model.name
                          ? split_blocks(sgemm_split_k::sgemm_split_k_kernel<C0, true>, C0::kThreads, C0::kSharedBytes)
                          : split_blocks(sgemm_split_k::sgemm_split_k_kernel<C1, true>, C1::kThreads, C1::kSharedBytes);
    INFO(m.name, ": tile kernel ", m.blocks_per_sm, " blocks per SM, partial-sum kernel ", split, ", the model ",
         m.split_blocks_per_sm);
    CHECK(split >= 1);
    CHECK(m.split_blocks_per_sm == split);
    const int index = static_cast<int>(u);
    CHECK(sgemm_shapes::predict(models, index, tiles.gpu(), 4096, 128, 4096, 8).fit == split);
    CHECK(sgemm_shapes::predict(models, index, tiles.gpu(), 4096, 128, 4096, 1).fit == m.blocks_per_sm);
  }
}

TEST_CASE("29: a split plan with a workspace the set-up did not size is refused with one sentence (exit 2)") {
  tut::require_supported_gpu();
  sgemm_split_k::SplitDispatcher d;
  d.set_up(16, 16, 16);  // no split here: no workspace
  const sgemm_shapes::Plan p = d.plan(256, 256, 4096, 0, 4);
  REQUIRE(p.splits == 4);
  CHECK(d.workspace_bytes() < p.workspace_bytes);
  tut::gemm::GemmProblem prob(256, 256, 4096, 1.0f, 0.0f, 3);
  CHECK_THROWS_WITH_AS(d.run(p, 256, 256, 4096, 1.0f, prob.a_device(), prob.b_device(), 0.0f, prob.c_device(), 0),
                       doctest::Contains("workspace"), tut::UsageError);
  d.reserve(p.workspace_bytes);  // sized: now it runs
  d.run(p, 256, 256, 4096, 1.0f, prob.a_device(), prob.b_device(), 0.0f, prob.c_device(), 0);
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
}

TEST_CASE("29: the program refuses negative sizes with exit 2") {
  tut::require_supported_gpu();
  const char* argv[] = {"29-sgemm-split-k", "--m", "-5", "--n", "8", "--k", "8"};
  CHECK(tut::run_chapter(7, const_cast<char**>(argv), chapter_spec()) == 2);
}

// ---- The stage's plan per GPU (stage_plan.cuh) -------------------------------------------------------------------
// At the smallest shape of a ladder where the model's plans for the two tiles are within its error on this GPU (on an
// H100, 768^3: 128x256 in 7 splits against 64x128 in 5), each candidate a cached plan names is what the stage runs.
TEST_CASE("29: the plan: each candidate a cached plan names is what the stage runs; an unknown one is replanned") {
  tut::require_supported_gpu();
  sgemm_split_k::SplitDispatcher d;
  d.set_up(1, 1, 1);
  const auto undecided = [&](const tut::gemm::testing::Shape& s) {
    return !sgemm_shapes::rank(d.tiles().models(), d.tiles().gpu(), s.m, s.n, s.k, sgemm_split_k::kMaxSplits).decided;
  };
  const std::vector<std::string> candidates = sgemm_split_k::stage_candidates(d);
  CHECK(candidates.size() >= 2);
  tut::gemm::testing::check_stage_plan(
      split_k_variants().front(), tut::gemm::testing::first_shape_where(undecided), candidates,
      [](const std::string& choice, const std::string& ran) {  // ran: "64x128 tiles, split 5 ..." or stream-K's
        if (choice == sgemm_split_k::kStreamKCandidate) return ran.find("data-parallel + stream-K") != std::string::npos;
        return ran.rfind(choice.substr(std::string("splitk-").size()) + " tiles", 0) == 0;
      });
}

TEST_CASE("29: skinny shapes with a long K: the model splits the small tile to fill the SMs, and is right") {
  // 64 x 4096 x 16384 and its transpose: 32 tiles of 64 x 128; the model splits K until every SM holds as many
  // blocks as the partial-sum kernel fits, and predicts 128 x 256's best split far slower (shape_model's host test
  // has the H100's numbers). On any GPU the stage must be right at these shapes and the plan must name a split tile.
  tut::require_supported_gpu();
  if (tut::testing::under_sanitizer()) {
    MESSAGE("skipped under compute-sanitizer: the shapes are past its M N K cap of 2^21, so no plan is made");
    return;
  }
  const tut::testing::ScopedPlanDir dir;
  const tut::gemm::GemmVariant stage = split_k_variants().front();
  for (const tut::gemm::testing::Shape& s : {tut::gemm::testing::Shape{64, 4096, 16384}, {4096, 64, 16384}, {48, 2048, 8192}}) {
    const std::string line = tut::testing::plan_line_of([&] { tut::gemm::testing::check_variants_at({stage}, {s}); });
    const std::string ran = stage.explain(s.m, s.n, s.k);
    INFO(s.m << " x " << s.n << " x " << s.k << ": " << line << "; the stage ran " << ran);
    CHECK(line.find(": splitk-64x128 (model: 64x128 tiles, split ") != std::string::npos);
    CHECK(ran.find(", split ") != std::string::npos);
  }
}

// ---- Stream-K --------------------------------------------------------------------------------------------------
namespace {

using BigTile = std::tuple_element_t<0, sgemm_shapes::Tiles>;  // 128x256, the stream-k variant's tile

// The stream-k variant's schedule at (m, n, k) on this GPU (its own set-up).
sgemm_stream_k::Schedule big_tile_schedule(int m, int n, int k, bool hybrid) {
  sgemm_stream_k::StreamK<BigTile::Config> sk(BigTile::kName);
  sk.set_up(1, 1, 1, hybrid);
  return sk.schedule(m, n, k, hybrid);
}

// The most tiles one block's stream-K range touches, and the most blocks one tile is summed by.
int most_tiles_per_block(const sgemm_stream_k::Schedule& s) {
  int most = 0;
  for (int b = 0; b < s.grid; ++b) {
    int touched = 0;
    for (int it = s.begin(b); it < s.end(b); ++touched) {
      const sgemm_stream_k::Segment seg = s.segment(b, it);
      it += seg.slice_end - seg.slice_begin;
    }
    most = std::max(most, touched);
  }
  return most;
}
int most_blocks_per_tile(const sgemm_stream_k::Schedule& s) {
  int most = 0;
  for (int t = 0; t < s.sk_tiles(); ++t) most = std::max(most, s.last_block(t) - s.first_block(t) + 1);
  return most;
}

}  // namespace

TEST_CASE("29 stream-K: K = 1, M = 1, N = 1, one past a tile, K not a multiple of the 16-deep slice") {
  tut::gemm::testing::check_variants_at(stream_k_variants(), {{1, 4096, 1000}, {4096, 1, 77}, {129, 257, 1},
                                                              {129, 257, 17}, {1, 1, 4097}, {33, 65, 40},
                                                              {257, 513, 1000}, {17, 19, 0}});
  tut::gemm::testing::check_variants_at(stream_k_variants(), {{129, 257, 1000}, {1, 4096, 1000}}, 1.0f, 0.0f);  // C = NaN
  tut::gemm::testing::check_variants_at(stream_k_variants(), {{129, 257, 1000}}, 0.0f, 0.5f);  // C = beta C
}

TEST_CASE("29 stream-K: ranges that cross two and three tiles, tiles split over many blocks, the hybrid's last wave") {
  tut::require_supported_gpu();
  const int grid = big_tile_schedule(1, 1, 1, false).grid;  // SMs x blocks per SM of the 128x256 kernel
  REQUIRE(grid >= 2);
  // Two 128x256 tiles of 512 slices: each summed by about grid / 2 blocks.
  const tut::gemm::testing::Shape many{128, 512, 8192};
  // 1.5 tiles' worth of 3-slice tiles per block (K = 40: 3 slices, the last partial): ranges cross 2 or 3 tiles.
  const tut::gemm::testing::Shape two{128, 256 * (grid + grid / 2) - 3, 40};
  // 3 (grid - 1) tiles of 3 slices: 8 or 9 iterations per block, ranges cross 3 or 4 tiles.
  const tut::gemm::testing::Shape three{384, 256 * (grid - 1) - 5, 40};
  // The hybrid with full waves: grid + 12 tiles of 7 slices; the last 12 tiles dealt to 84 blocks.
  const tut::gemm::testing::Shape hybrid{128 * ((grid + 12 + 8) / 9), 256 * 9 - 1, 100};
  {
    const auto s = big_tile_schedule(many.m, many.n, many.k, false);
    INFO("grid " << grid << ": " << sgemm_stream_k::describe(s, 0, 0));
    CHECK(most_blocks_per_tile(s) >= grid / 2);
  }
  {
    const auto s = big_tile_schedule(two.m, two.n, two.k, false);
    INFO("grid " << grid << ": " << sgemm_stream_k::describe(s, 0, 0));
    CHECK(most_tiles_per_block(s) >= 2);
    CHECK(s.split_tiles() > 0);
  }
  {
    const auto s = big_tile_schedule(three.m, three.n, three.k, false);
    INFO("grid " << grid << ": " << sgemm_stream_k::describe(s, 0, 0));
    CHECK(most_tiles_per_block(s) >= 3);
    CHECK(s.split_tiles() > 0);
  }
  {
    const auto s = big_tile_schedule(hybrid.m, hybrid.n, hybrid.k, true);
    INFO("grid " << grid << ": " << sgemm_stream_k::describe(s, 0, 0));
    CHECK(s.dp_tiles >= grid);
    CHECK(s.sk_tiles() > 0);
    CHECK(s.split_tiles() > 0);
  }
  tut::gemm::testing::check_variants_at(stream_k_variants(), {many, two, three, hybrid});
  tut::gemm::testing::check_variants_at(stream_k_variants(), {two, hybrid}, -2.0f, 0.0f);  // C = NaN: never read
}

TEST_CASE("29 stream-K: any grid is right (small grids: ranges across tiles at shapes compute-sanitizer can run)") {
  // The set-up's grid is one full wave (132+ blocks on an H100), so multi-tile ranges need shapes above the
  // sanitizer's M N K cap of 2^21. The kernels take the grid from the schedule: small grids reach every path
  // (ranges across 2 to 6 tiles, the hybrid's data-parallel loop, the fix-up of tiles over several blocks)
  // at small shapes, under the sanitizer too.
  tut::require_supported_gpu();
  sgemm_stream_k::StreamK<BigTile::Config> sk(BigTile::kName);
  sk.set_up(1, 1, 1, false);
  const tut::gemm::testing::Shape shapes[] = {{257, 300, 20}, {129, 257, 40}, {33, 65, 17}, {1, 1, 1}, {17, 19, 0}};
  for (const auto& sh : shapes)
    for (int grid : {1, 2, 3, 5, 7})
      for (bool hybrid : {false, true})
        for (float beta : {0.0f, -0.75f}) {
          const sgemm_stream_k::Schedule s =
              sgemm_stream_k::make_schedule(sh.m, sh.n, sh.k, BigTile::Config::kBlockM, BigTile::Config::kBlockN,
                                            BigTile::Config::kBlockK, grid, hybrid);
          sk.reserve(s.slots());
          tut::gemm::GemmProblem p(sh.m, sh.n, sh.k, 1.5f, beta, tut::testing::test_seed() + grid);
          p.compute_references(true);
          p.reset_c(0);
          sk.run(s, sh.m, sh.n, sh.k, p.alpha(), p.a_device(), p.b_device(), p.beta(), p.c_device(), 0);
          TUT_CUDA_CHECK(cudaDeviceSynchronize());
          const tut::CheckResult r = tut::with_buffer_checks(p.check(false).check);
          INFO(sh.m << " x " << sh.n << " x " << sh.k << ", beta " << beta << ": " << sgemm_stream_k::describe(s, 0, 0));
          CHECK_MESSAGE(r.ok, r.message());
        }
}

TEST_CASE("29 stream-K: the fix-up sums in a fixed order: two runs give the same bits") {
  tut::require_supported_gpu();
  const int grid = big_tile_schedule(1, 1, 1, false).grid;
  const tut::gemm::testing::Shape shapes[] = {{200, 300, 5000}, {128 * ((grid + 12 + 8) / 9), 256 * 9 - 1, 100}};
  for (const auto& v : stream_k_variants())
    for (const auto& sh : shapes) {
      tut::gemm::GemmProblem p(sh.m, sh.n, sh.k, 1.0f, 0.0f, 11);
      v.setup(sh.m, sh.n, sh.k);
      std::vector<float> first(static_cast<std::size_t>(sh.m) * sh.n), second(first.size());
      for (auto* out : {&first, &second}) {
        p.reset_c(0);
        p.run(v.launch, 0);
        TUT_CUDA_CHECK(cudaDeviceSynchronize());
        TUT_CUDA_CHECK(cudaMemcpy(out->data(), p.c_device(), out->size() * sizeof(float), cudaMemcpyDeviceToHost));
      }
      INFO(v.name << " at " << sh.m << " x " << sh.n << " x " << sh.k);
      CHECK(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)) == 0);
    }
}

TEST_CASE("29 stream-K: a planted fix-up that drops the last partial of each split tile fails the check") {
  tut::require_supported_gpu();
  sgemm_stream_k::StreamK<BigTile::Config> sk(BigTile::kName);
  for (bool hybrid : {false, true}) {
    const int grid = big_tile_schedule(1, 1, 1, hybrid).grid;
    const tut::gemm::testing::Shape shapes[] = {{200, 300, 5000}, {129, 257, 1000},
                                                {128 * ((grid + 12 + 8) / 9), 256 * 9 - 1, 100}};
    for (const auto& sh : shapes) {
      sk.set_up(sh.m, sh.n, sh.k, hybrid);
      const sgemm_stream_k::Schedule s = sk.schedule(sh.m, sh.n, sh.k, hybrid);
      INFO((hybrid ? "dp-stream-k" : "stream-k") << " at " << sh.m << " x " << sh.n << " x " << sh.k << ": "
                                                 << sk.explain(sh.m, sh.n, sh.k, hybrid));
      REQUIRE(s.split_tiles() > 0);
      for (float beta : {0.0f, -0.75f}) {
        tut::gemm::GemmProblem p(sh.m, sh.n, sh.k, 1.5f, beta, 5);
        p.compute_references(false);
        for (auto fixup : {sgemm_stream_k::Fixup::kSumAll, sgemm_stream_k::Fixup::kPlantedDropLast}) {
          p.reset_c(0);
          sk.run(s, sh.m, sh.n, sh.k, p.alpha(), p.a_device(), p.b_device(), p.beta(), p.c_device(), 0, fixup);
          TUT_CUDA_CHECK(cudaDeviceSynchronize());
          const tut::CheckResult r = tut::with_buffer_checks(p.check(false).check);
          if (fixup == sgemm_stream_k::Fixup::kSumAll) CHECK_MESSAGE(r.ok, r.message());
          else CHECK_FALSE_MESSAGE(r.ok, "the planted fix-up passed the check");
        }
      }
    }
  }
}

TEST_CASE("29 stream-K: one full wave of co-resident blocks, a workspace the set-up did not size is refused") {
  tut::require_supported_gpu();
  int device = 0, sms = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  sgemm_stream_k::StreamK<BigTile::Config> sk(BigTile::kName);
  tut::gemm::GemmProblem prob(256, 256, 4096, 1.0f, 0.0f, 3);
  // Before the set-up: a clear error, not a silent set-up inside the launch.
  CHECK_THROWS_AS(sk.schedule(256, 256, 4096, false), std::logic_error);
  sk.set_up(1, 1, 1, false);  // one iteration: one active block, 2 slots
  const sgemm_stream_k::Schedule s = sk.schedule(256, 256, 4096, false);
  CHECK(s.grid == sms * sk.blocks_per_sm());  // the grid is one full wave: every block resident at once
  CHECK(sk.blocks_per_sm() >= 1);
  CHECK(sk.workspace_bytes() < static_cast<std::uint64_t>(s.slots()) * sk.slot_bytes());
  CHECK_THROWS_WITH_AS(sk.run(s, 256, 256, 4096, 1.0f, prob.a_device(), prob.b_device(), 0.0f, prob.c_device(), 0),
                       doctest::Contains("workspace"), tut::UsageError);
  sk.reserve(s.slots());  // sized: now it runs, and right
  prob.compute_references(false);
  prob.reset_c(0);
  sk.run(s, 256, 256, 4096, 1.0f, prob.a_device(), prob.b_device(), 0.0f, prob.c_device(), 0);
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  const tut::CheckResult r = tut::with_buffer_checks(prob.check(false).check);
  CHECK_MESSAGE(r.ok, r.message());
}
