// GPU tests for chapter 16: the scan-chapter tests for the stage and every on-demand shape, plus sizes at
// each shape's tile boundaries, repeated runs on one workspace and buffers that are not 16-byte aligned
// (the element-by-element fallback).
#include "scan_reference.cuh"

// main.cu's, from the chapter's library (its meson.build: main.cu compiles once).
std::vector<tut::scan::ScanVariant> lookback_variants();
tut::ChapterSpec chapter_spec();

#include "lookback_testing.cuh"  // chapter 15's helpers (the include path is set in meson.build)
#include "scan_testing.cuh"

#include <string>
#include <vector>

namespace {

// The sizes of 2^28 and more (lookback_testing::scan_sizes_where(true)) run for one shape per tile order only:
// every shape runs the same kernel code, whose index arithmetic is 64-bit from the tile id on.
// (CUB is left out: chapters 05-13 and 15 check it past 2^31 already.)
const std::vector<std::string> kOneShapePerTileOrder = {"scan-decoupled-lookback-tuned", "lookback-t256-i16-blockidx"};

// Every variant's tile (threads x items), to test the sizes around it for the variants that have it.
using lookback_testing::TileOf;
const std::vector<TileOf> kTiles = {
    {2048, {"lookback-t128-i16", "lookback-t256-i8"}},
    {3072, {"lookback-t128-i24", "lookback-t256-i12"}},
    {4096,
     {"lookback-t256-i16", "lookback-t512-i8", "lookback-t128-i32", "lookback-t256-i16-stream",
      "lookback-t256-i16-spin", "lookback-t256-i16-blockidx"}},
    {6144, {"lookback-t256-i24", "lookback-t512-i12", "lookback-t192-i32"}},
    {8192, {"scan-decoupled-lookback-tuned", "lookback-t512-i16", "lookback-t1024-i8"}},
    {9216, {"lookback-t384-i24"}},
};

// Sizes for the repeated-run tests: smaller under a sanitizer, which runs kernels tens of times slower.
std::vector<std::uint64_t> repeated_run_sizes() {
  if (tut::testing::under_sanitizer()) return {1, 4097, 20 * 8192 + 17};
  return {1, 4097, 100 * 8192 + 17, (std::uint64_t{1} << 22) + 3};
}

}  // namespace

TEST_CASE("every variant matches the CPU reference at adversarial sizes below 2^28") {
  tut::testing::check_all_variants(chapter_spec(), lookback_testing::scan_sizes_where(false));
}

TEST_CASE("one shape per tile order at 2^28, 2^30 + 1025 and 2^31 + 1025 (64-bit indexing)") {
  tut::testing::check_all_variants(tut::testing::only_variants(chapter_spec(), kOneShapePerTileOrder),
                                   lookback_testing::scan_sizes_where(true));
}

TEST_CASE("16: sizes at the tile boundaries of every shape") {
  lookback_testing::check_tile_boundaries(chapter_spec(), kTiles, lookback_variants().size());
}

TEST_CASE("16: repeated runs on one workspace give the same, correct result") {
  lookback_testing::check_repeated_runs_all(lookback_variants(), repeated_run_sizes());
}

TEST_CASE("16: buffers that are not 16-byte aligned take the element-by-element path") {
  for (const auto& variant : lookback_variants()) lookback_testing::check_repeated_runs(variant, 5 * 8192 + 3, 1);
  const auto stage = lookback_variants().front();
  for (std::size_t offset : {2u, 3u, 4u}) lookback_testing::check_repeated_runs(stage, 70 * 4096 + 1, offset);
}

TEST_CASE("16: buffers 16 bytes past a 256-byte boundary keep the int4 path") {
  // 4 elements = 16 bytes: aligned enough for int4, but not for a whole 128-byte line.
  const std::uint64_t n = tut::testing::under_sanitizer() ? 20 * 8192 + 4 * 1024 + 12 : 300 * 8192 + 4 * 1024 + 12;
  for (const auto& variant : lookback_variants()) lookback_testing::check_repeated_runs(variant, n, 4);
}

TEST_CASE("16: n = 0 enqueues nothing") {
  lookback_testing::check_empty_scans(lookback_variants());
}
