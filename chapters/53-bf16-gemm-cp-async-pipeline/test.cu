// GPU tests for chapter 53: the tensor-core ladder's tests (common/gemm_tc/tc_testing.cuh), plus the
// pipeline's own edges and its set-up contract.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gemm_tc/tc_testing.cuh"

#include <stdexcept>

// First in the file (doctest runs the cases in file order), before any case has set the kernel up.
TEST_CASE("53: a launch before setup_gemm_multistage() throws instead of setting up inside a timed run") {
  tut::gemm_tc::testing::check_launch_before_setup_throws(
      [] { gemm_multistage::setup_done.require("53", "setup_gemm_multistage"); },
      [] { gemm_multistage::gemm(128, 128, 32, 1.0f, nullptr, nullptr, 0.0f, nullptr, 0); }, "setup_gemm_multistage");
}

TUT_TC_CHAPTER_TESTS(chapter_spec(), multistage_variants())

TEST_CASE("53: slice counts 1 to 6 (prologue only, every stage reused) and a ragged last slice") {
  tut::gemm_tc::testing::check_variants_at(
      multistage_variants(),
      {{128, 128, 32}, {128, 128, 64}, {128, 128, 96}, {128, 128, 128}, {128, 128, 160}, {128, 128, 192}, {129, 131, 165}});
}
