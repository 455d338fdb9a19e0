// GPU tests for chapter 14: the scan against the CPU reference at the adversarial sizes, and the
// part shapes that decide how many blocks run and whether the tile loop stays uniform.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"
#include "scan_testing.cuh"

TUT_SCAN_CHAPTER_TESTS(chapter_spec())

TEST_CASE("14: parts are whole tiles, at least one, and never more than 1024") {
  using namespace scan_two_pass;
  for (std::size_t n : {std::size_t{1}, std::size_t{1023}, std::size_t{1024}, std::size_t{1025},
                        std::size_t{1} << 20, (std::size_t{1} << 20) + 1, std::size_t{1} << 28,
                        (std::size_t{1} << 31) + 1025, std::size_t{1} << 40}) {
    CAPTURE(n);
    const std::size_t size = part_size(n);
    const std::size_t parts = part_count(n);
    CHECK(size % kTileSize == 0);
    CHECK(size >= kTileSize);
    CHECK(parts >= 1);
    CHECK(parts <= kMaxParts);
    CHECK(parts * size >= n);          // the parts cover the input ...
    CHECK((parts - 1) * size < n);     // ... and none is empty
  }
  CHECK(part_count(1u << 20) == 1024);       // exactly 1024 parts of one tile
  CHECK(part_count((1u << 20) + 1) == 513);  // 1025 elements per part round up to two tiles
  CHECK(part_count(1000) == 1);
  CHECK(part_size(1u << 28) == (1u << 28) / 1024);
}
