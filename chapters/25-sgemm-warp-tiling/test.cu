// GPU tests for chapter 25: the SGEMM ladder's tests, plus the scalar fallback taken for misaligned
// pointers (same bits as the float4 path) and cases specific to this stage.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "alignment_testing.cuh"
#include "gemm/gemm_testing.cuh"

TUT_GEMM_CHAPTER_TESTS(chapter_spec(), warp_tiling_variants())

TEST_CASE("25: warp-tile and quad boundaries: rows and columns ending inside a warp tile or a lane quad") {
  tut::gemm::testing::check_variants_at(warp_tiling_variants(), {{31, 63, 16}, {33, 65, 16}, {97, 36, 12}, {130, 132, 132}});
}

TEST_CASE("25: misaligned A, B and C take the scalar path and give the same bits") {
  sgemm_alignment_testing::check_all_misaligned(warp_tiling_variants());
}
