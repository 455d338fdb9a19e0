// The tests every scan chapter runs: its variants against the CPU reference at the adversarial sizes.
#pragma once

#include <cstdint>
#include <vector>

#include "gpu_test.cuh"

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

}  // namespace tut::scan

// The two test cases of a scan chapter; a chapter test file is `#include "main.cu"` plus this.
#define TUT_SCAN_CHAPTER_TESTS(SPEC)                                                              \
  TEST_CASE("every variant matches the CPU reference at adversarial sizes") {                     \
    tut::testing::check_all_variants(SPEC, tut::scan::scan_test_sizes());                         \
  }                                                                                               \
  TEST_CASE("every variant is correct past 2^31 elements (64-bit indexing)") {                    \
    tut::testing::check_all_variants(SPEC, tut::scan::scan_test_sizes_64bit());                   \
  }
