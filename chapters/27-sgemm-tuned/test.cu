// GPU tests for chapter 27: the SGEMM ladder's tests, plus the scalar fallback taken for misaligned
// pointers (same bits as the float4 path) and cases specific to this stage.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "alignment_testing.cuh"
#include "gemm/gemm_testing.cuh"

TUT_GEMM_CHAPTER_TESTS(chapter_spec(), tuned_variants())

TEST_CASE("27: slice counts around the pipeline depth (fewer slices than stages, one more, several)") {
  tut::gemm::testing::check_variants_at(tuned_variants(), {{256, 256, 8}, {256, 256, 16}, {256, 256, 40}, {256, 256, 72}, {257, 255, 33}});
}

TEST_CASE("27: band order with a short last band (tile-rows not a multiple of the band height)") {
  tut::gemm::testing::check_variants_at(tuned_variants(), {{9 * 128 + 5, 3 * 256 + 4, 32}, {1200, 640, 24}});
}

TEST_CASE("27: misaligned A, B and C take the 4-byte path and give the same bits") {
  sgemm_alignment_testing::check_all_misaligned(tuned_variants());
}
