// GPU tests for chapter 11: the scan against the CPU reference at the adversarial sizes.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"
#include "scan_testing.cuh"

TUT_SCAN_CHAPTER_TESTS(chapter_spec())
