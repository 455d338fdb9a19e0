// GPU tests for chapter 54: the tensor-core ladder's tests (common/gemm_tc/tc_testing.cuh) for the stage and its
// tile-shape candidates, plus the pipeline's slice counts, the K tails a 64-deep slice adds, and the set-up
// contract. sm_90a only: elsewhere the program skips (exit 77) with one line.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gemm_tc/tc_testing.cuh"
#include "hopper/hopper_testing.cuh"

#include <stdexcept>

// First in the file (doctest runs the cases in file order): no GPU, or no sm_90a code for this one, ends the
// program with meson's SKIP status before any case; chapter 53's kernel is tested by chapter 53.
TEST_CASE("54: sm_90a code runs here (otherwise the whole program skips)") {
  tut::require_supported_gpu();
  tut::hopper::testing::skip_unless_sm90a();
}

// Before any case has set the kernel up.
TEST_CASE("54: a launch before setup_gemm_wgmma() throws instead of setting up inside a timed run") {
  tut::gemm_tc::testing::check_launch_before_setup_throws(
      [] { gemm_wgmma::setup_done<128, 3>.require("54", "setup_gemm_wgmma"); },
      [] { gemm_wgmma::gemm<128, 3>(128, 128, 64, 1.0f, nullptr, nullptr, 0.0f, nullptr, 0); }, "setup_gemm_wgmma");
}

TUT_TC_CHAPTER_TESTS(chapter_spec(), wgmma_variants())

TEST_CASE("54: slice counts 1 to 6 (prologue only, every stage reused) and a ragged last slice") {
  tut::gemm_tc::testing::check_variants_at(
      wgmma_variants(), {{128, 256, 64}, {128, 256, 128}, {128, 256, 192}, {128, 256, 256}, {128, 256, 320},
                         {128, 256, 384}, {129, 257, 321}});
}

TEST_CASE("54: K tails of a 64-deep slice (K = 1, 7, 8, 9, 15, 17, 63, 65, 127) and tiles one over and under") {
  tut::gemm_tc::testing::check_variants_at(
      wgmma_variants(), {{130, 260, 1},  {127, 255, 7},   {129, 257, 8},  {64, 128, 9},   {65, 129, 15},
                         {200, 300, 17}, {128, 256, 63},  {255, 129, 65}, {257, 511, 127}, {31, 33, 32},
                         {33, 31, 96},   {1, 1, 64},      {1, 513, 65}});
}

TEST_CASE("54: the stage's candidates are its tile shapes, the previous stage is on demand") {
  const tut::ChapterSpec spec = chapter_spec();
  int stages = 0;
  for (const auto& v : spec.variants) {
    if (v.name == "bf16-gemm-wgmma") {
      CHECK_FALSE(v.on_demand);
      ++stages;
    }
    if (v.name == "bf16-gemm-cp-async-pipeline") CHECK(v.on_demand);
  }
  CHECK(stages == 1);
  CHECK(tut::hopper::needs_sm90a(chapter_variants(), "wgmma-128x256-4-stages"));
  CHECK_FALSE(tut::hopper::needs_sm90a(chapter_variants(), "bf16-gemm-cp-async-pipeline"));
}
