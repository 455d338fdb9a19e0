// GPU tests for chapter 21: the SGEMM ladder's tests for the tiled kernel (and chapter 20's, which the
// program runs beside it).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gemm/gemm_testing.cuh"

TUT_GEMM_CHAPTER_TESTS(chapter_spec(), shared_tiling_variants())
