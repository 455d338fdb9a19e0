// Test of exercise 11: the shuffle warp scan, on its own and inside the block scan. The same source
// tests the exercise and the solution.
#include <warp_shuffle.cuh>

#include "exercise_testing.cuh"

#include <vector>

using namespace exercise_testing;

namespace {

// The functions under test, for run_tiles: scan_warp scans runs of 32, scan_block tiles of blockDim.x.
struct ScanWarp {
  __device__ std::int32_t operator()(std::int32_t v) const { return warp_shuffle::scan_warp(v); }
};
struct ScanBlock {
  __device__ std::int32_t operator()(std::int32_t v) const { return warp_shuffle::scan_block(v); }
};

}  // namespace

TEST_CASE("11: scan_warp scans each warp, and scan_block built on it scans each tile") {
  check_warp_and_block_scan<ScanWarp, ScanBlock>();
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  measure_warp_and_block_scan<ScanWarp, ScanBlock>("11-shfl-up-scan");
}
