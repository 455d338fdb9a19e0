// Test of exercise 14: the two-pass scan (its scan pass carries the running base) at adversarial
// sizes, including empty parts, short last parts and more than 2^31 elements. The same source tests
// the exercise and the solution.
#include <scan_two_pass.cuh>

#include "exercise_testing.cuh"

#include <algorithm>

using namespace exercise_testing;
namespace stp = scan_two_pass;

namespace {

void check(std::uint64_t n) {
  check_inclusive_scan(n, stp::workspace_bytes(n), [](const std::int32_t* in, std::int32_t* out, std::size_t m,
                                                      void* ws, cudaStream_t s) { stp::inclusive_scan(in, out, m, ws, s); });
}

}  // namespace

TEST_CASE("14: the two-pass scan at adversarial sizes") {
  // Below 2^20 most of the 1024 parts are empty; 2^20: every part one tile; 2^20 + 1: parts of two
  // tiles, the last part short; 2^24 + 3 and 3 * 2^20 + 17: many tiles per part, a partial tile.
  const auto sizes = adversarial_sizes({2047, 2049, 3 * 1024 + 17, 1023 * 1024 + 5, 1024 * 1024, 3 * 1024 * 1024 + 17,
                                        (1u << 24) + 3});
  for (std::uint64_t n : sizes_that_fit(sizes, 8.5)) check(n);
}

TEST_CASE("14: the two-pass scan past 2^31 elements (64-bit indices)") {
  // 16 GiB of device memory (the check runs on the GPU: check_inclusive_scan); skipped with a message where
  // that does not fit.
  for (std::uint64_t n : sizes_that_fit({(1ull << 31) + 1025}, 8.5)) check(n);
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  const std::size_t n = std::size_t{1} << 28;
  tut::DeviceBuffer<std::int32_t> in(tut::random_integers<std::int32_t>(n, 1)), out(n);
  tut::DeviceBuffer<unsigned char> ws(std::max(stp::workspace_bytes(n), tut::scan::cub_workspace_bytes(n)));
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(std::int32_t);
  std::printf("inclusive scan of 2^28 int32 (1 GiB); GB/s counts one read and one write per element\n");
  print_row("cudaMemcpyAsync of the same bytes", median_ms("14-two-pass-base", "memcpy", [&](cudaStream_t s) {
              TUT_CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), n * sizeof(std::int32_t), cudaMemcpyDeviceToDevice, s));
            }), bytes);
  print_row("two-pass scan", median_ms("14-two-pass-base", "two-pass", [&](cudaStream_t s) {
              stp::inclusive_scan(in.data(), out.data(), n, ws.data(), s);
            }), bytes);
  print_row("cub::DeviceScan::InclusiveSum", median_ms("14-two-pass-base", "cub", [&](cudaStream_t s) {
              tut::scan::cub_inclusive_sum(in.data(), out.data(), n, ws.data(), ws.size(), s);
            }), bytes);
}
