// GPU tests for chapter 10: the recursive scan against the CPU reference at the adversarial sizes
// (which include one, two, three and four levels of recursion), and the workspace it needs.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"
#include "scan_testing.cuh"

TUT_SCAN_CHAPTER_TESTS(chapter_spec())

TEST_CASE("10: the workspace holds one total per part at every recursion level") {
  using scan_recursion::workspace_bytes;
  CHECK(workspace_bytes(0) == 0);
  CHECK(workspace_bytes(1) == 1 * 4);                         // one part: its total, no recursion
  CHECK(workspace_bytes(1024) == 1 * 4);
  CHECK(workspace_bytes(1025) == (2 + 1) * 4);                // two parts, then one
  CHECK(workspace_bytes(1u << 20) == (1024 + 1) * 4);         // 1024 parts, then one
  CHECK(workspace_bytes((1u << 20) + 1) == (1025 + 2 + 1) * 4);
  CHECK(workspace_bytes(1u << 28) == ((1u << 18) + (1u << 8) + 1) * 4);
}
