// GPU tests for chapter 20: the SGEMM ladder's tests for both mappings.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gemm/gemm_testing.cuh"

TUT_GEMM_CHAPTER_TESTS(chapter_spec(), naive_variants())
