// GPU test of chapter 17's lab: every persistent design against the CPU reference at the adversarial sizes
// below 2^28, at one tile's boundaries, run after run on one workspace and on buffers that are not 16-byte
// aligned (the register fallback of the bulk-copy kernel). Its 64-bit indexing is chapter 16's code.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "lookback_testing.cuh"  // chapter 15's helpers
#include "scan_testing.cuh"

#include <vector>

TEST_CASE("lab: every design matches the CPU reference at adversarial sizes below 2^28") {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t n : tut::scan::scan_test_sizes())
    if (n < (std::uint64_t{1} << 28)) sizes.push_back(n);
  tut::testing::check_all_variants(lab_spec(), sizes);
}

TEST_CASE("lab: sizes at a tile boundary (4096: 256 x 16)") {
  tut::testing::check_all_variants(lab_spec(), lookback_testing::tile_boundary_sizes(4096));
}

TEST_CASE("lab: repeated runs, and buffers that are not 16-byte aligned") {
  const std::uint64_t n = tut::testing::under_sanitizer() ? 20 * 8192 + 17 : 100 * 8192 + 17;
  for (const auto& variant : lab_variants()) {
    lookback_testing::check_repeated_runs(variant, n);
    lookback_testing::check_repeated_runs(variant, 5 * 8192 + 3, 1);
  }
}

TEST_CASE("lab: a launch before its set-up throws; after set-up it is correct") {
  // Tunings of their own, which no other test sets up.
  const tut::scan::ScanVariant prefetch = prefetch_variant<lab::Tuning<128, 8>>("fresh-prefetch", "test-only");
  tut::scan::check_setup_required(prefetch, "scan_lookback_lab", "setup_inclusive_scan_prefetch<Tuning>", 77 * 1024 + 5);
  const tut::scan::ScanVariant bulk = bulk_copy_variant<lab::BulkCopyTuning<128, 16, 2>>("fresh-bulk", "test-only");
  tut::scan::check_setup_required(bulk, "scan_lookback_lab", "setup_inclusive_scan_bulk_copy<Tuning>", 77 * 2048 + 5);
}
