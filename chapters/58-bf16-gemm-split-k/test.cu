// GPU tests for chapter 58: the tensor-core ladder's tests (common/gemm_tc/tc_testing.cuh) for the stage and its
// candidate on one block per SM; shapes where the plan splits K (few tiles, long K: 2 to 132 ranges, ragged last
// slices, odd N so that the partial sums are stored one float at a time, M N not a multiple of 4 and buffers
// offset by one element so that the reduction takes its scalar path); forced splits (2, 3, 5, 7 and one slice per
// range) on grids of 1, 3 and 7 blocks, so that each block takes several units of different lengths and the
// ring's phases run on across them; beta = 0 with C poisoned through the reduction; K that TMA cannot describe
// (chapter 54's kernel, never split); the register split; and the set-up contract (a launch whose workspace the
// set-up did not size throws). sm_90a only: elsewhere the program skips (exit 77) with one line. The plan's rules
// and the units are checked on the host too (test_split_k_schedule.cpp).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gemm_tc/tc_testing.cuh"
#include "hopper/hopper_testing.cuh"

#include <stdexcept>

namespace {

using tut::gemm_tc::testing::Shape;
using tut::hopper::testing::Watchdog;

constexpr int kCaseSeconds = 300;

// The same kernel with `splits` ranges per tile (0: the plan's) on at most `blocks` blocks (0: one per SM).
std::vector<tut::gemm_tc::TcVariant> forced(int splits, int blocks) {
  return {gemm_split_k::as_variant<256, 4>("split-k-forced-" + std::to_string(splits), "a test's split", true, splits,
                                           blocks)};
}

// Shapes where the plan splits K on an H100 or H200 (132 SMs) and on smaller GPUs alike: few tiles, long K.
// 257 x 513 x 4096: 9 tiles, 64 slices (14 ranges at 132 SMs); 64 x 64 x 8192: one tile, 128 slices (32 ranges);
// 33 x 31 x 2000: one tile, odd N, a ragged last slice (8 ranges); 1 x 1 x 4096: one element (16 ranges);
// 130 x 260 x 1544: 4 tiles, 25 slices, the last ragged (6 ranges); 100 x 1000 x 1000: 4 tiles, 16 slices (4).
const std::vector<Shape> kSplitShapes = {{257, 513, 4096}, {64, 64, 8192},  {33, 31, 2000},
                                         {1, 1, 4096},     {130, 260, 1544}, {100, 1000, 1000}};

}  // namespace

// First in the file (doctest runs the cases in file order): no GPU, or no sm_90a code for this one, ends the
// program with meson's SKIP status before any case.
TEST_CASE("58: sm_90a code runs here (otherwise the whole program skips)") {
  tut::require_supported_gpu();
  tut::hopper::testing::skip_unless_sm90a();
}

// Before any case has set the kernel up.
TEST_CASE("58: a launch before setup_gemm_split_k() throws instead of setting up inside a timed run") {
  tut::require_supported_gpu();
  bool done = true;
  try {
    gemm_split_k::setup_done<256, 4>.require("58", "setup_gemm_split_k");
  } catch (const std::logic_error&) {
    done = false;
  }
  if (done) {
    MESSAGE("already set up in this process (test order changed): the contract is not testable here");
    return;
  }
  gemm_split_k::SplitWorkspace workspace;
  CHECK_THROWS_WITH_AS((gemm_split_k::gemm_on_grid<256, 4>(128, 256, 64, 1.0f, nullptr, nullptr, 0.0f, nullptr, 0,
                                                           workspace, 1)),
                       doctest::Contains("setup_gemm_split_k"), std::logic_error);
}

TUT_TC_CHAPTER_TESTS(chapter_spec(), split_k_variants())

TEST_CASE("58: the plan line names the band and the split, and a split plan sizes a workspace") {
  tut::require_supported_gpu();
  const int sms = tut::sm_count_in_use(tut::current_device());
  gemm_split_k::SplitWorkspace workspace;
  const std::size_t before = tut::plan_lines().size();
  gemm_split_k::setup_gemm_split_k<256, 4>("bf16-gemm-split-k", workspace, 64, 64, 8192);
  REQUIRE(tut::plan_lines().size() == before + 1);
  const std::string& line = tut::plan_lines().back();
  const gemm_split_k::SplitKPlan p = gemm_split_k::plan_for<256, 4>(sms, 64, 64, 8192);
  INFO(line);
  CHECK(line.find("plan: 58 bf16-gemm-split-k 64 x 64 x 8192: bands of " + std::to_string(p.band_rows) + ", K in " +
                  std::to_string(p.splits) + " ranges (model: 1 tile of 128 x 256 and 128 slices of K for " +
                  std::to_string(sms) + " SMs") == 0);
  CHECK(p.splits > 1);
  CHECK_NOTHROW(workspace.require(static_cast<std::size_t>(p.splits) * 64 * 64));
  CHECK_THROWS_WITH_AS(workspace.require(static_cast<std::size_t>(p.splits) * 64 * 64 + 1),
                       doctest::Contains("setup_gemm_split_k() did not see this shape"), std::logic_error);
}

TEST_CASE("58: the plan splits K where C has few tiles: 2 to 32 ranges, ragged slices, odd N, offset buffers") {
  const Watchdog dog("58", "planned splits", kCaseSeconds);
  tut::gemm_tc::testing::check_variants_at(split_k_variants(), kSplitShapes);
  // Buffers one element off 16 bytes: the reduction's scalar path (C not float4-aligned).
  tut::gemm_tc::testing::check_variants_at(split_k_variants(), {{257, 513, 4096}, {33, 31, 2000}},
                                           tut::gemm_tc::kDefaultAlpha, tut::gemm_tc::kDefaultBeta, 1);
}

TEST_CASE("58: beta = 0 never reads C (it holds NaN) through the reduction; alpha = 0 gives beta C") {
  const Watchdog dog("58", "beta = 0", kCaseSeconds);
  for (const auto& [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{-2.0f, 0.0f}, std::pair{0.0f, 0.5f}})
    tut::gemm_tc::testing::check_variants_at(split_k_variants(), {{257, 513, 4096}, {33, 31, 2000}}, alpha, beta);
}

TEST_CASE("58: forced splits on grids of 1, 3 and 7 blocks: units of different lengths, several per block") {
  const Watchdog dog("58", "forced splits", kCaseSeconds);
  // K = 576: 9 slices, split 2 (4 + 5), 3, 5 (1-2 slices), 7 and 9 (one slice per range); 328 and 1544 end in a
  // ragged slice (zeros past K from the copy engine). The last two shapes are small enough for compute-sanitizer.
  for (int blocks : {1, 3, 7})
    for (int splits : {2, 3, 5, 7, 9})
      tut::gemm_tc::testing::check_variants_at(forced(splits, blocks),
                                               {{257, 513, 576}, {129, 2049, 328}, {33, 65, 576}, {1, 300, 1544}});
  for (int splits : {2, 25})
    tut::gemm_tc::testing::check_variants_at(forced(splits, 3), {{255, 1023, 1544}, {1025, 129, 1544}});
}

TEST_CASE("58: a split above the slices is cut to one slice per range; K that TMA cannot describe is never split") {
  const Watchdog dog("58", "splits above the slices, K % 8 != 0", kCaseSeconds);
  tut::gemm_tc::testing::check_variants_at(forced(64, 0), {{257, 513, 128}, {130, 260, 8}});
  tut::gemm_tc::testing::check_variants_at(forced(4, 0), {{130, 260, 1}, {257, 511, 127}, {64, 64, 4093}});
}

TEST_CASE("58: more tiles than SMs: no split, the full grid, ragged in M, N and K") {
  const Watchdog dog("58", "more tiles than SMs", kCaseSeconds);
  tut::gemm_tc::testing::check_variants_at(split_k_variants(), {{4097, 2049, 72}, {2049, 4097, 200}});
}

TEST_CASE("58: the kernel launches with the registers its split assumes, spills nothing, fits one block per SM") {
  tut::require_supported_gpu();
  gemm_split_k::SplitWorkspace workspace;
  gemm_split_k::setup_gemm_split_k<256, 4>("bf16-gemm-split-k", workspace, 128, 256, 64);
  tut::hopper::testing::check_register_split<gemm_split_k::Tile<256, 4>>(
      "bf16-gemm-split-k", gemm_split_k::gemm_split_k_kernel<256, 4>, true);
}

TEST_CASE("58: the stage is the one default variant, the previous stages are on demand") {
  const tut::ChapterSpec spec = chapter_spec();
  int stages = 0;
  for (const auto& v : spec.variants) {
    if (v.name == "bf16-gemm-split-k") {
      CHECK_FALSE(v.on_demand);
      ++stages;
    }
    if (v.name == "split-k-never" || v.name == "bf16-gemm-persistent" || v.name == "bf16-gemm-tma-mbarrier" ||
        v.name == "bf16-gemm-cp-async-pipeline")
      CHECK(v.on_demand);
  }
  CHECK(stages == 1);
  CHECK(tut::hopper::needs_sm90a(chapter_variants(), "bf16-gemm-persistent"));
  CHECK_FALSE(tut::hopper::needs_sm90a(chapter_variants(), "bf16-gemm-cp-async-pipeline"));
}
