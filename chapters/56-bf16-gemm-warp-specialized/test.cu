// GPU tests for chapter 56: the tensor-core ladder's tests (common/gemm_tc/tc_testing.cuh) for the stage and its
// tile-shape candidates, the slice counts and stage reuse of the producer's ring, K multiples of 8 (the TMA path)
// beside K that are not (chapter 54's kernel), the register split the kernels were compiled for, and the set-up
// contract. sm_90a only: elsewhere the program skips (exit 77) with one line.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gemm_tc/tc_testing.cuh"
#include "hopper/hopper_testing.cuh"

#include <stdexcept>

// First in the file (doctest runs the cases in file order): no GPU, or no sm_90a code for this one, ends the
// program with meson's SKIP status before any case.
TEST_CASE("56: sm_90a code runs here (otherwise the whole program skips)") {
  tut::require_supported_gpu();
  tut::hopper::testing::skip_unless_sm90a();
}

// Before any case has set the kernel up.
TEST_CASE("56: a launch before setup_gemm_warp_specialized() throws instead of setting up inside a timed run") {
  tut::gemm_tc::testing::check_launch_before_setup_throws(
      [] { gemm_warp_specialized::setup_done<256, 4>.require("56", "setup_gemm_warp_specialized"); },
      [] { gemm_warp_specialized::gemm<256, 4>(128, 256, 64, 1.0f, nullptr, nullptr, 0.0f, nullptr, 0); }, "setup_gemm_warp_specialized");
}

TUT_TC_CHAPTER_TESTS(chapter_spec(), warp_specialized_variants())

TEST_CASE("56: slice counts 1 to 9, 13 and 25 (the prologue only, every stage reused) and a ragged last slice") {
  tut::gemm_tc::testing::check_variants_at(
      warp_specialized_variants(),
      {{128, 256, 64},  {128, 256, 128}, {128, 256, 192}, {128, 256, 256}, {128, 256, 320}, {128, 256, 384},
       {128, 256, 448}, {128, 256, 512}, {128, 256, 576}, {128, 256, 832}, {129, 257, 1544}, {256, 512, 1024}});
}

TEST_CASE("56: K multiples of 8 take TMA (zeros past K, M and N from the copy engine), others chapter 54's kernel") {
  // TMA: K = 8, 16, 56, 72, 136 with M and N one over and under a tile; then K = 1, 7, 9, 65, 127 (cp.async).
  tut::gemm_tc::testing::check_variants_at(
      warp_specialized_variants(),
      {{130, 260, 8},  {127, 255, 16}, {129, 257, 56}, {1, 1, 72},     {255, 129, 136}, {1, 513, 64},
       {130, 260, 1},  {127, 255, 7},  {64, 128, 9},   {255, 129, 65}, {257, 511, 127}});
}

// The kernel as compiled against its register split (common/hopper/hopper_testing.cuh).
template <int kBlockN, int kStages, bool kMoveRegisters = true>
void check_register_split(const std::string& variant) {
  gemm_warp_specialized::setup_gemm_warp_specialized<kBlockN, kStages, kMoveRegisters>(variant);
  tut::hopper::testing::check_register_split<gemm_warp_specialized::Tile<kBlockN, kStages>>(
      variant, gemm_warp_specialized::gemm_warp_specialized_kernel<kBlockN, kStages, kMoveRegisters>, kMoveRegisters);
}

TEST_CASE("56: each kernel launches with the registers its split assumes, spills nothing, fits its blocks per SM") {
  tut::require_supported_gpu();
  check_register_split<256, 4>("bf16-gemm-warp-specialized");
  check_register_split<256, 3>("ws-128x256-3-stages");
  check_register_split<128, 6>("ws-128x128-6-stages");
  check_register_split<256, 4, false>("ws-without-setmaxnreg");
}

TEST_CASE("56: the stage is the one default variant, the previous stages are on demand") {
  const tut::ChapterSpec spec = chapter_spec();
  int stages = 0;
  for (const auto& v : spec.variants) {
    if (v.name == "bf16-gemm-warp-specialized") {
      CHECK_FALSE(v.on_demand);
      ++stages;
    }
    if (v.name == "bf16-gemm-tma-mbarrier" || v.name == "bf16-gemm-cp-async-pipeline") CHECK(v.on_demand);
  }
  CHECK(stages == 1);
  CHECK(tut::hopper::needs_sm90a(chapter_variants(), "bf16-gemm-tma-mbarrier"));
  CHECK_FALSE(tut::hopper::needs_sm90a(chapter_variants(), "bf16-gemm-cp-async-pipeline"));
}
