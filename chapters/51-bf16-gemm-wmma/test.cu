// GPU tests for chapter 51: the tensor-core ladder's tests (common/gemm_tc/tc_testing.cuh).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gemm_tc/tc_testing.cuh"

TUT_TC_CHAPTER_TESTS(chapter_spec(), wmma_variants())
