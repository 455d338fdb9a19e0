// GPU tests for chapter 23: the SGEMM ladder's tests (adversarial shapes, alpha/beta, large problems, the
// program's workload).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gemm/gemm_testing.cuh"

TUT_GEMM_CHAPTER_TESTS(chapter_spec(), register_tile_variants())

TEST_CASE("23: k not a multiple of the 8-deep slice, and several slices with a ragged last one") {
  tut::gemm::testing::check_variants_at(register_tile_variants(), {{128, 128, 7}, {128, 128, 9}, {130, 126, 23}});
}
