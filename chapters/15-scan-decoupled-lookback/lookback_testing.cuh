// GPU test helpers for the look-back scans (chapters 15, 16 and 17), beyond TUT_SCAN_CHAPTER_TESTS:
// a single-pass scan keeps state in its workspace (the tile counter and status words), so it is also
// tested run after run on the same workspace, and on buffers that are not 16-byte aligned.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "device.cuh"
#include "device_buffer.cuh"
#include "gpu_test.cuh"
#include "scan_reference.cuh"
#include "scan_testing.cuh"

namespace lookback_testing {

// Runs `variant` on one seeded input of n elements, placed `offset` elements into its buffers (offset 1
// makes both pointers 4 bytes past a 16-byte boundary):
//   1. on a poisoned workspace;
//   2. again on the workspace the first run left behind (status words all P, counter = tile count);
//   3. twice back to back in the stream, with no synchronisation between the two runs;
//   4. on a re-poisoned workspace.
// The output is poisoned before each step and compared with the CPU reference after it, so every step
// must produce the whole result by itself; the elements around the output range must stay poisoned.
inline void check_repeated_runs(const tut::scan::ScanVariant& variant, std::uint64_t n, std::size_t offset = 0) {
  tut::require_supported_gpu();
  if (variant.setup) variant.setup();  // the one-time set-up (what Workload::setup does), outside the runs
  constexpr std::size_t kGuard = 8;  // poisoned elements after the output that the scan must not touch
  const std::vector<std::int32_t> host =
      tut::random_integers<std::int32_t>(offset + n, tut::testing::test_seed() + n + offset);
  std::vector<std::int32_t> expected(n);
  tut::scan::cpu_inclusive_scan(host.data() + offset, expected.data(), n);

  tut::DeviceBuffer<std::int32_t> in(host);
  tut::DeviceBuffer<std::int32_t> out(offset + n + kGuard);
  tut::DeviceBuffer<unsigned char> workspace(variant.workspace_bytes(n) + 1);  // + 1: never a null buffer
  in.label("input").watch();
  out.label("output");
  workspace.label("workspace");
  const auto run = [&] { variant.scan(in.data() + offset, out.data() + offset, n, workspace.data(), 0); };

  std::int32_t poison_value;
  std::memset(&poison_value, tut::kPoisonByte, sizeof poison_value);
  const auto check = [&](const std::string& step) {
    TUT_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<std::int32_t> all = out.download();
    const std::vector<std::int32_t> got(all.begin() + static_cast<std::ptrdiff_t>(offset),
                                        all.begin() + static_cast<std::ptrdiff_t>(offset + n));
    const tut::CheckResult result = tut::compare_exact(expected, got);
    INFO(variant.name << " at n = " << n << ", offset " << offset << ": " << step);
    CHECK_MESSAGE(result.ok, result.message());
    bool guards_intact = true;
    for (std::size_t i = 0; i < offset; ++i) guards_intact &= all[i] == poison_value;
    for (std::size_t i = offset + n; i < all.size(); ++i) guards_intact &= all[i] == poison_value;
    CHECK_MESSAGE(guards_intact, "the scan wrote outside its output range");
    const tut::CheckResult buffers = tut::with_buffer_checks(tut::CheckResult{});  // workspace guards, input
    CHECK_MESSAGE(buffers.ok, buffers.message());
  };

  workspace.poison();
  out.poison();
  run();
  check("first run, poisoned workspace");

  out.poison();
  run();
  check("second run on the workspace the first run left");

  out.poison();
  run();
  run();
  check("two runs back to back");

  workspace.poison();
  out.poison();
  run();
  check("run on a re-poisoned workspace");
}

// Sizes at and around tile boundaries: one tile less one element, one tile, one tile and one element,
// one and two look-back windows of 32 tiles (+-1), and many tiles with a ragged end.
inline std::vector<std::uint64_t> tile_boundary_sizes(std::uint64_t tile) {
  return {tile - 1,      tile,           tile + 1,           2 * tile,          32 * tile,
          33 * tile - 1, 33 * tile + 1,  64 * tile + 1,      65 * tile,         1000 * tile + tile / 2 + 3};
}

// The scan chapters' sizes (scan_testing.cuh), split at 2^28: below it (large = false) every variant of a
// chapter with many configurations of one kernel is tested; at and above it (2^28, 2^30 + 1025, 2^31 + 1025:
// seconds of CPU checking each) one configuration per code path, since the index arithmetic is the same code
// for every shape.
inline std::vector<std::uint64_t> scan_sizes_where(bool large) {
  std::vector<std::uint64_t> sizes = tut::scan::scan_test_sizes();
  for (std::uint64_t n : tut::scan::scan_test_sizes_64bit()) sizes.push_back(n);
  std::vector<std::uint64_t> chosen;
  for (std::uint64_t n : sizes)
    if ((n >= (std::uint64_t{1} << 28)) == large) chosen.push_back(n);
  return chosen;
}

// A tile size (elements per block) and the variants that have it.
struct TileOf {
  std::uint64_t tile;
  std::vector<std::string> variants;
};

// Every variant of `spec` at the sizes around its tile; `tiles` must name each of the `variant_count` variants.
inline void check_tile_boundaries(const tut::ChapterSpec& spec, const std::vector<TileOf>& tiles,
                                  std::size_t variant_count) {
  std::size_t covered = 0;
  for (const TileOf& t : tiles) {
    CAPTURE(t.tile);
    covered += t.variants.size();
    tut::testing::check_all_variants(tut::testing::only_variants(spec, t.variants), tile_boundary_sizes(t.tile));
  }
  CHECK(covered == variant_count);  // every variant's tile is in the list
}

// check_repeated_runs for every variant at every size.
inline void check_repeated_runs_all(const std::vector<tut::scan::ScanVariant>& variants,
                                    const std::vector<std::uint64_t>& sizes) {
  for (const auto& variant : variants)
    for (std::uint64_t n : sizes) check_repeated_runs(variant, n);
}

// n = 0 enqueues nothing and touches nothing (null buffers); it needs no set-up either.
inline void check_empty_scans(const std::vector<tut::scan::ScanVariant>& variants) {
  for (const auto& variant : variants) {
    variant.scan(nullptr, nullptr, 0, nullptr, 0);
    TUT_CUDA_CHECK(cudaDeviceSynchronize());
  }
}

}  // namespace lookback_testing
