// GPU tests for chapter 50: the tensor-core ladder's tests (common/gemm_tc/tc_testing.cuh).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gemm_tc/tc_testing.cuh"

TUT_TC_CHAPTER_TESTS(chapter_spec(), fp32_lanes_variants())
