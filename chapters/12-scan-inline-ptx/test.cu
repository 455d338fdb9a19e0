// GPU tests for chapter 12: the scan against the CPU reference at the adversarial sizes. The claim
// about the generated code (no branch in the warp scan) is checked without a GPU by the host tests
// 12-scan-inline-ptx-ptx and -sass (check_warp_scan_code.py).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"
#include "scan_testing.cuh"

TUT_SCAN_CHAPTER_TESTS(chapter_spec())
