// Test of exercise 15: the single-pass decoupled look-back scan at adversarial sizes, and many
// repeated runs (the order in which blocks publish changes from run to run). The same source tests
// the exercise and the solution.
#include <scan_lookback.cuh>

#include "exercise_testing.cuh"

#include <algorithm>

using namespace exercise_testing;
namespace slb = scan_lookback;

namespace {

void check(std::uint64_t n, int repeats) {
  check_inclusive_scan(n, slb::workspace_bytes(n),
                       [](const std::int32_t* in, std::int32_t* out, std::size_t m, void* ws, cudaStream_t s) {
                         slb::inclusive_scan(in, out, m, ws, s);
                       },
                       repeats);
}

}  // namespace

TEST_CASE("15: the single-pass scan at adversarial sizes") {
  // 33 * 1024 + 1: a look-back window of 32 tiles is not enough for the last tile.
  const auto sizes = adversarial_sizes({2047, 2049, 3 * 1024 + 17, 33 * 1024 + 1, 129 * 1024 + 1, 1023 * 1024 + 5,
                                        (1u << 24) + 3, 1u << 28});
  for (std::uint64_t n : sizes_that_fit(sizes, 8.5)) check(n, 1);
}

TEST_CASE("15: the single-pass scan, run after run (publication order varies)") {
  for (std::uint64_t n : sizes_that_fit({(1u << 20) + 1, (1u << 22) + 7}, 8.5)) check(n, 20);
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  const std::size_t n = std::size_t{1} << 28;
  tut::DeviceBuffer<std::int32_t> in(tut::random_integers<std::int32_t>(n, 1)), out(n);
  tut::DeviceBuffer<unsigned char> ws(std::max(slb::workspace_bytes(n), tut::scan::cub_workspace_bytes(n)));
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(std::int32_t);
  std::printf("inclusive scan of 2^28 int32 (1 GiB); GB/s counts one read and one write per element\n");
  print_row("cudaMemcpyAsync of the same bytes", median_ms("15-lookback", "memcpy", [&](cudaStream_t s) {
              TUT_CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), n * sizeof(std::int32_t), cudaMemcpyDeviceToDevice, s));
            }), bytes);
  print_row("single pass, decoupled look-back", median_ms("15-lookback", "lookback", [&](cudaStream_t s) {
              slb::inclusive_scan(in.data(), out.data(), n, ws.data(), s);
            }), bytes);
  print_row("cub::DeviceScan::InclusiveSum", median_ms("15-lookback", "cub", [&](cudaStream_t s) {
              tut::scan::cub_inclusive_sum(in.data(), out.data(), n, ws.data(), ws.size(), s);
            }), bytes);
}
