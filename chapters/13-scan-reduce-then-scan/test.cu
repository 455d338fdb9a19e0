// GPU tests for chapter 13: the scan against the CPU reference at the adversarial sizes.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"
#include "scan_testing.cuh"

TUT_SCAN_CHAPTER_TESTS(chapter_spec())

TEST_CASE("13: the workspace holds one int per part at every recursion level") {
  using scan_reduce_then_scan::workspace_bytes;
  CHECK(workspace_bytes(0) == 0);
  CHECK(workspace_bytes(1024) == 0);                          // one part: nothing to scan
  CHECK(workspace_bytes(1025) == 2 * 4);                      // two parts, then one
  CHECK(workspace_bytes(1u << 20) == 1024 * 4);               // 1024 parts, then one
  CHECK(workspace_bytes((1u << 20) + 1) == (1025 + 2) * 4);   // 1025 parts, 2, then one
}
