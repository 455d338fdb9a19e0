// GPU tests for chapter 22: the SGEMM ladder's tests for the article's kernel and its three claim
// variants (the scaffolding covers B and C that are not 8-byte aligned), plus odd N and N-edge blocks.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gemm/gemm_testing.cuh"

TUT_GEMM_CHAPTER_TESTS(chapter_spec(), register_blocking_variants())

TEST_CASE("22: odd N takes the two-float path in every block, and the N edge in the last one") {
  // N odd: no float2 anywhere; N = 256 j + 2: the last block of columns has one active thread.
  tut::gemm::testing::check_variants_at(register_blocking_variants(),
                                        {{16, 255, 32}, {17, 257, 33}, {32, 514, 64}, {16, 1, 32}, {3, 2, 1}});
}
