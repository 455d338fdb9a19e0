// GPU tests for chapter 06: the scan against the CPU reference at adversarial sizes, including past
// 2^31 elements (64-bit indexing).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "scan_testing.cuh"

TUT_SCAN_CHAPTER_TESTS(chapter_spec())
