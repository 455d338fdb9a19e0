// GPU tests for chapter 16: the scan-chapter tests for every configuration, plus sizes at each
// configuration's tile boundaries, repeated runs on one workspace and buffers that are not 16-byte aligned
// (the element-by-element fallback).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "lookback_testing.cuh"  // chapter 15's helpers (the include path is set in meson.build)
#include "scan_testing.cuh"

#include <string>
#include <vector>

// The scan chapters' sizes (scan_testing.cuh), split: below 2^28 for every variant; 2^28, 2^30 + 1025 and
// 2^31 + 1025 (seconds of CPU checking each) for one shape of each kernel and tile order, because a
// kernel's index arithmetic is the same code for all its shapes (64-bit from the tile id on).
std::vector<std::uint64_t> sizes_where(bool large) {
  std::vector<std::uint64_t> sizes = tut::scan::scan_test_sizes();
  for (std::uint64_t n : tut::scan::scan_test_sizes_64bit()) sizes.push_back(n);
  std::vector<std::uint64_t> chosen;
  for (std::uint64_t n : sizes)
    if ((n >= (std::uint64_t{1} << 28)) == large) chosen.push_back(n);
  return chosen;
}

const std::vector<std::string> kOneShapePerKernel = {
    "scan-decoupled-lookback-tuned",
    "lookback-t256-i16-blockidx",
    "lookback-persistent-prefetch-t256-i16",
    "lookback-bulkcopy-t256-i16-s4",
    "lookback-staged-cpasync-t128-i48",
    "lookback-staged-bulk-t128-i48",
    "lookback-staged-cpasync-t128-i48-blockidx",
    "lookback-hybrid-cpasync-t128-s48-r16",
    "lookback-rescan-hybrid-cpasync-t128-s48-r32",
    "lookback-rescan-hybrid-bulk-t128-s48-r32",
    "lookback-rescan-hybrid-cpasync-t128-s48-r32-blockidx",
    "lookback-rescan-hybrid-cpasync-t192-s48-r32",
    "lookback-rescan-hybrid-cpasync-t128-s48-r32-pdl",
    "lookback-rescan-hybrid-cpasync-t128-s48-r32-blockidx-pdl",
    "cub"};

TEST_CASE("every variant matches the CPU reference at adversarial sizes below 2^28") {
  tut::testing::check_all_variants(chapter_spec(), sizes_where(false));
}

TEST_CASE("one shape of each kernel at 2^28, 2^30 + 1025 and 2^31 + 1025 (64-bit indexing)") {
  tut::testing::check_all_variants(tut::testing::only_variants(chapter_spec(), kOneShapePerKernel),
                                   sizes_where(true));
}

TEST_CASE("16: sizes at the tile boundaries of every configuration") {
  // The tile sizes of the variants in main.cu: 2048 (128x16, 256x8), 3072 (128x24, 256x12), 4096 (256x16,
  // 512x8, 128x32, 32x128), 6144 (256x24, 512x12, 192x32, 128x48, 64x96), 7168 (128x(48+8)),
  // 8192 (512x16, 1024x8, 256x32, 128x(48+16), 128x(40+24)), 9216 (384x24, 128x(48+24)), 10240 (128x(48+32)),
  // 11264 (128x(48+40)), and 5120, 7680, 12800, 15360, 17920, 20480
  // (64, 96, 160, 192, 224 and 256 x (48+32)).
  for (std::uint64_t tile : {2048u, 3072u, 4096u, 5120u, 6144u, 7168u, 7680u, 8192u, 9216u, 10240u, 11264u, 12800u,
                              15360u, 17920u, 20480u}) {
    CAPTURE(tile);
    tut::testing::check_all_variants(chapter_spec(), lookback_testing::tile_boundary_sizes(tile));
  }
}

TEST_CASE("16: repeated runs on one workspace give the same, correct result") {
  for (const auto& variant : lookback_variants())
    for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{4097}, std::uint64_t{100 * 8192 + 17},
                            (std::uint64_t{1} << 22) + 3})
      lookback_testing::check_repeated_runs(variant, n);
}

TEST_CASE("16: buffers that are not 16-byte aligned take the element-by-element path") {
  for (const auto& variant : lookback_variants()) lookback_testing::check_repeated_runs(variant, 5 * 8192 + 3, 1);
  const auto stage = lookback_variants().front();
  for (std::size_t offset : {2u, 3u, 4u}) lookback_testing::check_repeated_runs(stage, 70 * 4096 + 1, offset);
}

TEST_CASE("16: buffers 16 bytes past a 256-byte boundary keep the int4 and bulk-copy paths") {
  // 4 elements = 16 bytes: aligned enough for int4 and cp.async.bulk, but not for a whole 128-byte line.
  for (const auto& variant : lookback_variants())
    lookback_testing::check_repeated_runs(variant, 300 * 8192 + 4 * 1024 + 12, 4);
}

TEST_CASE("16: n = 0 enqueues nothing") {
  for (const auto& variant : lookback_variants()) {
    variant.scan(nullptr, nullptr, 0, nullptr, 0);
    TUT_CUDA_CHECK(cudaDeviceSynchronize());
  }
}
