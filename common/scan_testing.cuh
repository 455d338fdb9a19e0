// The tests every scan chapter runs: its variants against the CPU reference at the adversarial sizes.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "device.cuh"
#include "device_buffer.cuh"
#include "gpu_test.cuh"
#include "scan_reference.cuh"

namespace tut::scan {

// 0, 1, 2, warp and part boundaries, 2^20 +- 1 (1024 parts of 1024, +- 1: one and two levels of
// recursion), an odd count of parts, 2^28 (the benchmark size) and 2^30 + 1025 (three levels of
// recursion over 1024-element parts).
inline std::vector<std::uint64_t> scan_test_sizes() {
  return testing::adversarial_sizes({3 * 1024 + 17, 1023 * 1024 + 5, 1u << 28, (1ull << 30) + 1025});
}

// Past 2^31 elements: 32-bit indices overflow here. Skipped with a message where device memory is
// too small (it needs about 17 GiB).
inline std::vector<std::uint64_t> scan_test_sizes_64bit() { return {(1ull << 31) + 1025}; }

// A copy of `v` that scans n + delta elements on buffers of n: a planted size bug in the real stage kernels.
// delta = +1 writes one element past the end of the output (in the last partial tile, or in a tile of its own
// where n is a multiple of the tile); delta = -1 leaves the last element unwritten. Its workspace is sized for
// n + delta, so that the output alone shows the bug.
inline ScanVariant launched_with_size_off_by(const ScanVariant& v, int delta) {
  ScanVariant planted = v;
  planted.name = v.name + (delta > 0 ? "-one-past-the-end" : "-one-short");
  planted.known_defect.clear();
  planted.workspace_bytes = [ws = v.workspace_bytes, delta](std::size_t n) { return ws(n + delta); };
  planted.scan = [scan = v.scan, delta](const std::int32_t* in, std::int32_t* out, std::size_t n, void* workspace,
                                        cudaStream_t stream) { scan(in, out, n + delta, workspace, stream); };
  return planted;
}

// The verdicts a stage launched on n + 1 and on n - 1 elements over buffers of n (run as any variant is:
// poison, run, check, guards) must get: with n + 1 the check fails naming the guard after the n-element
// `element_type` buffer 'output', though the first n outputs are right; with n - 1 it fails at element n - 1
// (the poison left there), with no guard damaged. For stages of any element type (chapter 18).
inline void check_planted_size_verdicts(const CheckResult& past, const CheckResult& short_by_one, std::uint64_t n,
                                        const std::string& element_type) {
  CHECK_FALSE(past.ok);
  CHECK(past.bad_count == 0);
  CHECK_MESSAGE(past.detail.find("past the end of the " + std::to_string(n) + "-element " + element_type +
                                 " buffer 'output'") != std::string::npos,
                past.message());
  CHECK_FALSE(short_by_one.ok);
  CHECK(short_by_one.first_bad == n - 1);
  CHECK_MESSAGE(short_by_one.detail.find("wrote") == std::string::npos, short_by_one.message());
}

// The planted size bugs of an int32 scan stage (check_planted_size_verdicts). sizes: n >= 1.
inline void check_planted_size_bugs(const ScanVariant& v, const std::vector<std::uint64_t>& sizes) {
  const ChapterSpec spec =
      make_scan_chapter("planted-" + v.name, "planted size bugs",
                        {launched_with_size_off_by(v, +1), launched_with_size_off_by(v, -1)});
  for (std::uint64_t n : sizes) {
    CAPTURE(n);
    check_planted_size_verdicts(testing::run_variant(spec, v.name + "-one-past-the-end", n),
                                testing::run_variant(spec, v.name + "-one-short", n), n, "int32");
  }
}

// The set-up contract of a scan with one-time set-up (docs/harness.md), on the current device: before
// variant.setup has run there, variant.scan throws std::logic_error("<stage>: <setup_function>() was not called
// on device N") and writes nothing; after set-up (twice: it must be idempotent) the scan is correct at n. Give
// it a variant whose set-up nothing else in the process has run (a tuning of its own).
inline void check_setup_required(const ScanVariant& variant, const std::string& stage,
                                 const std::string& setup_function, std::uint64_t n) {
  require_supported_gpu();
  REQUIRE_MESSAGE(variant.setup, variant.name << " has no setup");
  int device = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  const std::string message = stage + ": " + setup_function + "() was not called on device " + std::to_string(device);
  const std::vector<std::int32_t> host = random_integers<std::int32_t>(n, testing::test_seed() + n);
  std::vector<std::int32_t> expected(n);
  cpu_inclusive_scan(host.data(), expected.data(), n);
  DeviceBuffer<std::int32_t> in(host);
  DeviceBuffer<std::int32_t> out(n);
  DeviceBuffer<unsigned char> workspace(variant.workspace_bytes(n) + 1);  // + 1: never a null buffer
  out.poison();
  workspace.poison();
  INFO(variant.name << " at n = " << n << " on device " << device);
  CHECK_THROWS_WITH_AS(variant.scan(in.data(), out.data(), n, workspace.data(), 0), message.c_str(), std::logic_error);
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  std::int32_t poison_value;
  std::memset(&poison_value, kPoisonByte, sizeof poison_value);
  bool untouched = true;
  for (std::int32_t x : out.download()) untouched &= x == poison_value;
  CHECK_MESSAGE(untouched, "the scan wrote its output although it threw");
  variant.setup();
  variant.setup();
  variant.scan(in.data(), out.data(), n, workspace.data(), 0);
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  const CheckResult result = compare_exact(expected, out.download());
  CHECK_MESSAGE(result.ok, result.message());
}

}  // namespace tut::scan

// The two test cases of a scan chapter; a chapter test file is `#include "main.cu"` (or, where main.cu is
// compiled once into a library, declarations of its functions: docs/harness.md) plus this.
#define TUT_SCAN_CHAPTER_TESTS(SPEC)                                                              \
  TEST_CASE("every variant matches the CPU reference at adversarial sizes") {                     \
    tut::testing::check_all_variants(SPEC, tut::scan::scan_test_sizes());                         \
  }                                                                                               \
  TEST_CASE("every variant is correct past 2^31 elements (64-bit indexing)") {                    \
    tut::testing::check_all_variants(SPEC, tut::scan::scan_test_sizes_64bit());                   \
  }
