// Test of exercise 09: the guard-free warp scan over zero-padded slots: the scan is right, a second
// scan of the same slots is right, and the padding is still zero afterwards. The same source tests
// the exercise and the solution.
#include <zero_padding.cuh>

#include "exercise_testing.cuh"

#include <vector>

using namespace exercise_testing;
namespace zp = zero_padding;

namespace {

constexpr int kBlock = 256;
constexpr int kWarps = kBlock / zp::kWarpSize;

// One element per thread. out_pad: lanes below kPad report their padding slot after both scans
// (expected 0); the other lanes report 0.
__global__ void padded_scan_kernel(const std::int32_t* in, std::int32_t* out_returned, std::int32_t* out_twice,
                                   std::int32_t* out_pad, std::int64_t n) {
  __shared__ std::int32_t padded[kWarps * zp::kWarpStride];
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = static_cast<int>(threadIdx.x) % zp::kWarpSize;
  std::int32_t* s = zp::warp_slots(padded, static_cast<int>(threadIdx.x) / zp::kWarpSize);
  if (lane < zp::kPad) s[lane - zp::kPad] = 0;
  s[lane] = i < n ? in[i] : 0;
  __syncwarp();
  const std::int32_t returned = zp::scan_warp(s, lane);
  __syncwarp();
  const std::int32_t twice = zp::scan_warp(s, lane);
  __syncwarp();
  const std::int32_t pad = lane < zp::kPad ? s[lane - zp::kPad] : 0;
  if (i < n) {
    out_returned[i] = returned;
    out_twice[i] = twice;
    out_pad[i] = pad;
  }
}

}  // namespace

TEST_CASE("09: the padded warp scan is right and leaves the padding zero") {
  for (std::uint64_t n : sizes_that_fit(adversarial_sizes({(1u << 22) + 5}), 4 * sizeof(std::int32_t))) {
    const std::vector<std::int32_t> in = tut::random_integers<std::int32_t>(n, seed_for(n));
    const std::vector<std::int32_t> once = scan_by_segment(in, 32);
    check_three_outputs(padded_scan_kernel, kBlock, in,
                        {{{once, "value returned by scan_warp"},
                          {scan_by_segment(once, 32), "second scan_warp of the same slots"},
                          {std::vector<std::int32_t>(n, 0),
                           "the padding after both scans (index i: padding slot i % 32 of its warp)"}}});
  }
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  std::printf("2^26 int32, every warp scans its 32 padded slots twice in shared memory\n");
  measure_three_outputs(padded_scan_kernel, kBlock, "09-zero-padding", "padded-scan",
                        "padded warp scans (4 int32 moved per element)");
}
