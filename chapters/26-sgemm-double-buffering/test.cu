// GPU tests for chapter 26: the SGEMM ladder's tests, plus the scalar fallback taken for misaligned
// pointers (same bits as the float4 path) and cases specific to this stage.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "alignment_testing.cuh"
#include "gemm/gemm_testing.cuh"

TUT_GEMM_CHAPTER_TESTS(chapter_spec(), double_buffering_variants())

TEST_CASE("26: slice counts 1, 2 and 3 (prologue only, one refill, buffers reused) and a ragged last slice") {
  tut::gemm::testing::check_variants_at(double_buffering_variants(), {{128, 128, 8}, {128, 128, 16}, {128, 128, 24}, {129, 131, 21}});
}

TEST_CASE("26: misaligned A, B and C take the 4-byte path and give the same bits") {
  sgemm_alignment_testing::check_all_misaligned(double_buffering_variants());
}
