// GPU tests for chapter 15: the scan-chapter tests, plus repeated runs on one workspace and sizes at tile
// boundaries.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "lookback_testing.cuh"
#include "scan_testing.cuh"

TUT_SCAN_CHAPTER_TESTS(chapter_spec())

TEST_CASE("15: sizes at tile boundaries and look-back windows") {
  tut::testing::check_all_variants(chapter_spec(),
                                   lookback_testing::tile_boundary_sizes(scan_decoupled_lookback::kTileSize));
}

TEST_CASE("15: repeated runs on one workspace give the same, correct result") {
  for (const auto& variant : lookback_variants())
    for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{scan_decoupled_lookback::kTileSize + 1},
                            std::uint64_t{100 * scan_decoupled_lookback::kTileSize + 17}, std::uint64_t{1} << 22})
      lookback_testing::check_repeated_runs(variant, n);
}

TEST_CASE("15: buffers that are not 16-byte aligned") {
  for (const auto& variant : lookback_variants()) lookback_testing::check_repeated_runs(variant, 5 * 1024 + 3, 1);
}

// The real kernels launched one element too long (the guard after the output must be named) and one too short
// (the poison at the last element): in the last partial tile, and in a tile of its own where n is a multiple.
TEST_CASE("15: planted size bugs: n + 1 overruns the output's guard, n - 1 leaves the last element") {
  constexpr std::uint64_t kTile = scan_decoupled_lookback::kTileSize;
  for (const auto& variant : lookback_variants())
    tut::scan::check_planted_size_bugs(variant, {1, 33, 1025, kTile, kTile + 1, 3 * kTile, 100 * kTile + 17});
}

TEST_CASE("15: n = 0 enqueues nothing and touches nothing") {
  for (const auto& variant : lookback_variants()) {
    variant.scan(nullptr, nullptr, 0, nullptr, 0);
    TUT_CUDA_CHECK(cudaDeviceSynchronize());
  }
}
