// Test of exercise 12: the predicated PTX warp scan, on its own and inside the block scan. The same source
// tests the exercise and the solution.
#include <scan_ptx.cuh>

#include "exercise_testing.cuh"

#include <vector>

using namespace exercise_testing;

namespace {

// The functions under test, for run_tiles: scan_warp scans runs of 32, scan_block tiles of blockDim.x.
struct ScanWarp {
  __device__ std::int32_t operator()(std::int32_t v) const { return scan_ptx::scan_warp(v); }
};
struct ScanBlock {
  __device__ std::int32_t operator()(std::int32_t v) const { return scan_ptx::scan_block(v); }
};

// One step per call: out[i] = shfl_up_add(in[i], offset).
__global__ void step_kernel(const std::int32_t* in, std::int32_t* out, std::int64_t n, int offset) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int32_t stepped = scan_ptx::shfl_up_add(i < n ? in[i] : 0, offset);
  if (i < n) out[i] = stepped;
}

}  // namespace

TEST_CASE("12: shfl_up_add adds the value of the lane `offset` below, when there is one") {
  const std::uint64_t n = 4096;
  const std::vector<std::int32_t> in = tut::random_integers<std::int32_t>(n, seed_for(n));
  tut::DeviceBuffer<std::int32_t> d_in(in), d_out(n);
  for (int offset : {1, 2, 4, 8, 16, 31}) {
    d_out.poison();
    step_kernel<<<static_cast<unsigned>(n / 256), 256, 0, 0>>>(d_in.data(), d_out.data(), static_cast<std::int64_t>(n), offset);
    TUT_CHECK_LAUNCH();
    sync_checked();
    std::vector<std::int32_t> expected(in);
    for (std::size_t i = 0; i < n; ++i)
      if (static_cast<int>(i % 32) >= offset)
        expected[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(in[i]) + static_cast<std::uint32_t>(in[i - offset]));
    const tut::CheckResult r = tut::compare_exact(expected, d_out.download());
    REQUIRE_MESSAGE(r.ok, "shfl_up_add(value, " << offset << "), lane = index % 32: " << r.message());
  }
}

TEST_CASE("12: scan_warp scans each warp, and scan_block built on it scans each tile") {
  check_warp_and_block_scan<ScanWarp, ScanBlock>();
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  measure_warp_and_block_scan<ScanWarp, ScanBlock>("12-ptx-predicated-scan");
}
