// GPU tests for chapter 24: the SGEMM ladder's tests, plus the scalar fallback taken for misaligned
// pointers (same bits as the float4 path).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "alignment_testing.cuh"
#include "gemm/gemm_testing.cuh"

TUT_GEMM_CHAPTER_TESTS(chapter_spec(), vectorized_variants())

TEST_CASE("24: k and n that are not multiples of 4 (scalar path) next to ones that are (float4 path)") {
  tut::gemm::testing::check_variants_at(vectorized_variants(),
                                        {{128, 128, 6}, {128, 126, 8}, {130, 130, 130}, {132, 132, 132}});
}

TEST_CASE("24: misaligned A, B and C take the scalar path and give the same bits") {
  sgemm_alignment_testing::check_all_misaligned(vectorized_variants());
}
