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

void run(const std::int32_t* in, std::int32_t* a, std::int32_t* b, std::int32_t* c, std::int64_t n, cudaStream_t s) {
  if (n == 0) return;
  warp_scan_kernel<<<static_cast<unsigned>((n + kBlock - 1) / kBlock), kBlock, 0, s>>>(in, a, b, c, n);
  TUT_CHECK_LAUNCH();
}

// Inclusive scan of each run of 32 (wrapping).
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

TEST_CASE("08: scan_warp scans each warp's 32 slots in shared memory") {
  for (std::uint64_t n : sizes_that_fit(adversarial_sizes({(1u << 22) + 5}), 4 * sizeof(std::int32_t))) {
    const std::vector<std::int32_t> in = tut::random_integers<std::int32_t>(n, seed_for(n));
    tut::DeviceBuffer<std::int32_t> d_in(in), returned(n), slots(n), twice(n);
    returned.poison();
    slots.poison();
    twice.poison();
    run(d_in.data(), returned.data(), slots.data(), twice.data(), static_cast<std::int64_t>(n), 0);
    sync_checked();
    const std::vector<std::int32_t> once = scan_by_warp(in);
    tut::CheckResult r = tut::compare_exact(once, returned.download());
    REQUIRE_MESSAGE(r.ok, where(n, "value returned by scan_warp") << ": " << r.message());
    r = tut::compare_exact(once, slots.download());
    REQUIRE_MESSAGE(r.ok, where(n, "shared slot after scan_warp") << ": " << r.message());
    r = tut::compare_exact(scan_by_warp(once), twice.download());
    REQUIRE_MESSAGE(r.ok, where(n, "second scan_warp of the same slots") << ": " << r.message());
  }
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  const std::int64_t n = std::int64_t{1} << 26;
  tut::DeviceBuffer<std::int32_t> in(tut::random_integers<std::int32_t>(static_cast<std::size_t>(n), 1));
  tut::DeviceBuffer<std::int32_t> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n)), c(static_cast<std::size_t>(n));
  std::printf("2^26 int32, every warp scans its 32 values twice in shared memory\n");
  print_row("warp scans (4 int32 moved per element)", median_ms("08-kogge-stone-smem", "warp-scan", [&](cudaStream_t s) {
              run(in.data(), a.data(), b.data(), c.data(), n, s);
            }), 4.0 * static_cast<double>(n) * sizeof(std::int32_t));
}
