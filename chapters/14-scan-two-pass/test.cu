// GPU tests for chapter 14: the stage and the tuned scan against the CPU reference at the adversarial sizes
// (the tuned scan's other shapes below 2^28), buffers that are not 16-byte aligned, and the part shapes that
// decide how many blocks run and whether the tile loops stay uniform.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "device.cuh"
#include "device_buffer.cuh"
#include "scan_testing.cuh"

#include <vector>

namespace {

// The scan chapters' sizes (scan_testing.cuh), split at 2^28: every variant below, the stage and the tuned
// scan's default shape above (2^28, 2^30 + 1025 and 2^31 + 1025: seconds of CPU checking each; the other
// shapes run the same index arithmetic).
std::vector<std::uint64_t> sizes_where(bool large) {
  std::vector<std::uint64_t> sizes = tut::scan::scan_test_sizes();
  for (std::uint64_t n : tut::scan::scan_test_sizes_64bit()) sizes.push_back(n);
  std::vector<std::uint64_t> chosen;
  for (std::uint64_t n : sizes)
    if ((n >= (std::uint64_t{1} << 28)) == large) chosen.push_back(n);
  return chosen;
}

}  // namespace

TEST_CASE("every variant matches the CPU reference at adversarial sizes below 2^28") {
  tut::testing::check_all_variants(chapter_spec(), sizes_where(false));
}

TEST_CASE("the stage and the tuned scan at 2^28, 2^30 + 1025 and 2^31 + 1025 (64-bit indexing)") {
  tut::testing::check_all_variants(
      tut::testing::only_variants(chapter_spec(), {"scan-two-pass", "scan-two-pass-tuned"}), sizes_where(true));
}

TEST_CASE("14: the tuned scan at its segment and part boundaries") {
  // 1024-element warp segments: one segment +- 1, and sizes whose last part is one segment or a ragged one
  // (on an H200 there are 4224 parts: from about 4.3 million elements on, parts hold several segments).
  constexpr std::uint64_t kSegment = 1024;
  tut::testing::check_all_variants(
      tut::testing::only_variants(chapter_spec(), {"scan-two-pass-tuned"}),
      {kSegment - 1, kSegment, kSegment + 1, 2 * kSegment + 5, 5000 * kSegment + 1, 9000 * kSegment + kSegment / 2,
       40000 * kSegment + 3});
}

TEST_CASE("14: buffers that are not 16-byte aligned (the tuned scan's element-by-element path)") {
  tut::require_supported_gpu();
  const std::uint64_t n = tut::testing::under_sanitizer() ? 30 * 8192 + 77 : 300 * 8192 + 77;
  scan_two_pass_tuned::setup_inclusive_scan();
  const std::vector<std::int32_t> host = tut::random_integers<std::int32_t>(n + 4, tut::testing::test_seed() + 14);
  for (std::size_t offset : {1u, 2u, 3u, 4u}) {
    CAPTURE(offset);
    std::vector<std::int32_t> expected(n);
    tut::scan::cpu_inclusive_scan(host.data() + offset, expected.data(), n);
    tut::DeviceBuffer<std::int32_t> in(host);
    tut::DeviceBuffer<std::int32_t> out(n + 4);
    tut::DeviceBuffer<unsigned char> workspace(scan_two_pass_tuned::workspace_bytes(n));
    out.poison();
    workspace.poison();
    scan_two_pass_tuned::inclusive_scan(in.data() + offset, out.data() + offset, n, workspace.data(), 0);
    TUT_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<std::int32_t> all = out.download();
    const std::vector<std::int32_t> got(all.begin() + static_cast<std::ptrdiff_t>(offset),
                                        all.begin() + static_cast<std::ptrdiff_t>(offset + n));
    const tut::CheckResult result = tut::compare_exact(expected, got);
    CHECK_MESSAGE(result.ok, result.message());
  }
}

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

TEST_CASE("14: the tuned scan's parts cover the segments, none empty, at most one per resident warp") {
  using namespace scan_two_pass_tuned;
  using T = DefaultTuning;
  for (unsigned max_parts : {1u, 7u, 4224u, 6336u, static_cast<unsigned>(kMaxParts)})
    for (std::size_t n : {std::size_t{1}, std::size_t{1023}, std::size_t{1025}, std::size_t{1} << 20,
                          std::size_t{1} << 28, (std::size_t{1} << 31) + 1025, std::size_t{1} << 36}) {
      CAPTURE(max_parts);
      CAPTURE(n);
      const auto segments = static_cast<std::int64_t>((n + T::kWarpItems - 1) / T::kWarpItems);
      const PartShape s = part_shape<T>(n, max_parts);
      CHECK(s.parts >= 1);
      CHECK(s.parts <= max_parts);
      CHECK(s.part_segments * s.parts >= segments);       // the parts cover the segments ...
      CHECK(s.part_segments * (s.parts - 1) < segments);  // ... and none is empty
    }
}

TEST_CASE("14: the tuned scan's launch before its set-up throws; after set-up it is correct") {
  using Fresh = scan_two_pass_tuned::Tuning<128, 8>;  // a tuning of its own, which no other test sets up
  tut::scan::check_setup_required(tuned_shape<Fresh>("fresh-t128-i8", "test-only tuning"), "scan_two_pass_tuned",
                                  "setup_inclusive_scan_with<Tuning>", 5000 * 1024 + 3);
}
