// GPU tests for chapter 55: the tensor-core ladder's tests (common/gemm_tc/tc_testing.cuh) for the stage and its
// tile-shape candidates, the slice counts and stage reuse of the mbarrier ring, K multiples of 8 (the TMA path)
// beside K that are not (chapter 54's kernel), and the set-up contract. sm_90a only: elsewhere the program skips
// (exit 77) with one line.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gemm_tc/tc_testing.cuh"
#include "hopper/hopper_testing.cuh"

#include <stdexcept>

// First in the file (doctest runs the cases in file order): no GPU, or no sm_90a code for this one, ends the
// program with meson's SKIP status before any case.
TEST_CASE("55: sm_90a code runs here (otherwise the whole program skips)") {
  tut::require_supported_gpu();
  tut::hopper::testing::skip_unless_sm90a();
}

// Before any case has set the kernel up.
TEST_CASE("55: a launch before setup_gemm_tma() throws instead of setting up inside a timed run") {
  tut::gemm_tc::testing::check_launch_before_setup_throws(
      [] { gemm_tma::setup_done<128, 3>.require("55", "setup_gemm_tma"); },
      [] { gemm_tma::gemm<128, 3>(128, 128, 64, 1.0f, nullptr, nullptr, 0.0f, nullptr, 0); }, "setup_gemm_tma");
}

TUT_TC_CHAPTER_TESTS(chapter_spec(), tma_variants())

TEST_CASE("55: slice counts 1 to 9 (the prologue only, every stage reused twice) and a ragged last slice") {
  tut::gemm_tc::testing::check_variants_at(
      tma_variants(), {{128, 256, 64},  {128, 256, 128}, {128, 256, 192}, {128, 256, 256}, {128, 256, 320},
                       {128, 256, 384}, {128, 256, 576}, {129, 257, 328}, {256, 512, 1024}});
}

TEST_CASE("55: K multiples of 8 take TMA (zeros past K, M and N from the copy engine), others chapter 54's kernel") {
  // TMA: K = 8, 16, 56, 72, 136 with M and N one over and under a tile; then K = 1, 7, 9, 65, 127 (cp.async).
  tut::gemm_tc::testing::check_variants_at(
      tma_variants(), {{130, 260, 8},  {127, 255, 16}, {129, 257, 56}, {1, 1, 72},    {255, 129, 136}, {1, 513, 64},
                       {130, 260, 1},  {127, 255, 7},  {64, 128, 9},   {255, 129, 65}, {257, 511, 127}});
}

TEST_CASE("55: which path a problem takes") {
  alignas(16) static const tut::gemm_tc::bf16 data[64] = {};
  CHECK(gemm_tma::tma_describes(data, data, 8));
  CHECK(gemm_tma::tma_describes(data, data, 4096));
  CHECK_FALSE(gemm_tma::tma_describes(data, data, 0));   // nothing to load: chapter 54's kernel writes beta C
  CHECK_FALSE(gemm_tma::tma_describes(data, data, 7));   // rows not 16-byte aligned
  CHECK_FALSE(gemm_tma::tma_describes(data + 1, data, 8));  // base not 16-byte aligned
  CHECK_FALSE(gemm_tma::tma_describes(data, data + 1, 8));
}

TEST_CASE("55: the stage is the one default variant, the previous stages are on demand") {
  const tut::ChapterSpec spec = chapter_spec();
  int stages = 0;
  for (const auto& v : spec.variants) {
    if (v.name == "bf16-gemm-tma-mbarrier") {
      CHECK_FALSE(v.on_demand);
      ++stages;
    }
    if (v.name == "bf16-gemm-wgmma" || v.name == "bf16-gemm-cp-async-pipeline") CHECK(v.on_demand);
  }
  CHECK(stages == 1);
  CHECK(tut::hopper::needs_sm90a(chapter_variants(), "bf16-gemm-wgmma"));
  CHECK_FALSE(tut::hopper::needs_sm90a(chapter_variants(), "bf16-gemm-cp-async-pipeline"));
}
