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

void run(const std::int32_t* in, std::int32_t* a, std::int32_t* b, std::int32_t* c, std::int64_t n, cudaStream_t s) {
  if (n == 0) return;
  padded_scan_kernel<<<static_cast<unsigned>((n + kBlock - 1) / kBlock), kBlock, 0, s>>>(in, a, b, c, n);
  TUT_CHECK_LAUNCH();
}

std::vector<std::int32_t> scan_by_warp(const std::vector<std::int32_t>& v) {
  std::vector<std::int32_t> out(v.size());
  std::uint32_t running = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i % 32 == 0) running = 0;
    running += static_cast<std::uint32_t>(v[i]);
    out[i] = static_cast<std::int32_t>(running);
  }
  return out;
}

}  // namespace

TEST_CASE("09: the padded warp scan is right and leaves the padding zero") {
  for (std::uint64_t n : sizes_that_fit(adversarial_sizes({(1u << 22) + 5}), 4 * sizeof(std::int32_t))) {
    const std::vector<std::int32_t> in = tut::random_integers<std::int32_t>(n, seed_for(n));
    tut::DeviceBuffer<std::int32_t> d_in(in), returned(n), twice(n), pad(n);
    returned.poison();
    twice.poison();
    pad.poison();
    run(d_in.data(), returned.data(), twice.data(), pad.data(), static_cast<std::int64_t>(n), 0);
    sync_checked();
    const std::vector<std::int32_t> once = scan_by_warp(in);
    tut::CheckResult r = tut::compare_exact(once, returned.download());
    REQUIRE_MESSAGE(r.ok, where(n, "value returned by scan_warp") << ": " << r.message());
    r = tut::compare_exact(scan_by_warp(once), twice.download());
    REQUIRE_MESSAGE(r.ok, where(n, "second scan_warp of the same slots") << ": " << r.message());
    r = tut::compare_exact(std::vector<std::int32_t>(n, 0), pad.download());
    REQUIRE_MESSAGE(r.ok, where(n, "the padding after both scans (index i: padding slot i % 32 of its warp)")
                              << ": " << r.message());
  }
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  const std::int64_t n = std::int64_t{1} << 26;
  tut::DeviceBuffer<std::int32_t> in(tut::random_integers<std::int32_t>(static_cast<std::size_t>(n), 1));
  tut::DeviceBuffer<std::int32_t> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n)), c(static_cast<std::size_t>(n));
  std::printf("2^26 int32, every warp scans its 32 padded slots twice in shared memory\n");
  print_row("padded warp scans (4 int32 moved per element)", median_ms("09-zero-padding", "padded-scan", [&](cudaStream_t s) {
              run(in.data(), a.data(), b.data(), c.data(), n, s);
            }), 4.0 * static_cast<double>(n) * sizeof(std::int32_t));
}
