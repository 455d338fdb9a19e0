// Test of exercise 08: the shared-memory Kogge-Stone warp scan leaves every warp's slots scanned and
// returns the scan, also when it is run twice in a row on the same slots. The same source tests the
// exercise and the solution.
#include <kogge_stone.cuh>

#include "exercise_testing.cuh"

#include <vector>

using namespace exercise_testing;

namespace {

constexpr int kBlock = 256;

// One element per thread; warp w of a block scans slots [32w, 32w + 32) of the block's array.
// out_returned: what scan_warp returned; out_slots: the slot afterwards; out_twice: the return value
// of a second scan of the same slots (the scan of the scan).
__global__ void warp_scan_kernel(const std::int32_t* in, std::int32_t* out_returned, std::int32_t* out_slots,
                                 std::int32_t* out_twice, std::int64_t n) {
  __shared__ std::int32_t slots[kBlock];
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = static_cast<int>(threadIdx.x) % kogge_stone::kWarpSize;
  std::int32_t* warp_slots = slots + (threadIdx.x / kogge_stone::kWarpSize) * kogge_stone::kWarpSize;
  slots[threadIdx.x] = i < n ? in[i] : 0;
  __syncwarp();
  const std::int32_t returned = kogge_stone::scan_warp(warp_slots, lane);
  __syncwarp();
  const std::int32_t slot = slots[threadIdx.x];
  __syncwarp();
  const std::int32_t twice = kogge_stone::scan_warp(warp_slots, lane);
  if (i < n) {
    out_returned[i] = returned;
    out_slots[i] = slot;
    out_twice[i] = twice;
  }
}

}  // namespace

TEST_CASE("08: scan_warp scans each warp's 32 slots in shared memory") {
  for (std::uint64_t n : sizes_that_fit(adversarial_sizes({(1u << 22) + 5}), 4 * sizeof(std::int32_t))) {
    const std::vector<std::int32_t> in = tut::random_integers<std::int32_t>(n, seed_for(n));
    const std::vector<std::int32_t> once = scan_by_segment(in, 32);
    check_three_outputs(warp_scan_kernel, kBlock, in,
                        {{{once, "value returned by scan_warp"},
                          {once, "shared slot after scan_warp"},
                          {scan_by_segment(once, 32), "second scan_warp of the same slots"}}});
  }
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  std::printf("2^26 int32, every warp scans its 32 values twice in shared memory\n");
  measure_three_outputs(warp_scan_kernel, kBlock, "08-kogge-stone-smem", "warp-scan", "warp scans (4 int32 moved per element)");
}
