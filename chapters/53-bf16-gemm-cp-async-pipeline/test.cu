// GPU tests for chapter 53: the tensor-core ladder's tests (common/gemm_tc/tc_testing.cuh), plus the
// pipeline's own edges.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gemm_tc/tc_testing.cuh"

TUT_TC_CHAPTER_TESTS(chapter_spec(), multistage_variants())

TEST_CASE("53: slice counts 1 to 6 (prologue only, every stage reused) and a ragged last slice") {
  tut::gemm_tc::testing::check_variants_at(
      multistage_variants(),
      {{128, 128, 32}, {128, 128, 64}, {128, 128, 96}, {128, 128, 128}, {128, 128, 160}, {128, 128, 192}, {129, 131, 165}});
}
