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
  constexpr std::size_t kGuard = 8;  // poisoned elements after the output that the scan must not touch
  const std::vector<std::int32_t> host =
      tut::random_integers<std::int32_t>(offset + n, tut::testing::test_seed() + n + offset);
  std::vector<std::int32_t> expected(n);
  tut::scan::cpu_inclusive_scan(host.data() + offset, expected.data(), n);

  tut::DeviceBuffer<std::int32_t> in(host);
  tut::DeviceBuffer<std::int32_t> out(offset + n + kGuard);
  tut::DeviceBuffer<unsigned char> workspace(variant.workspace_bytes(n) + 1);  // + 1: never a null buffer
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

}  // namespace lookback_testing
