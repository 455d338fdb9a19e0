// Test of exercise 10: the recursive ScanThenFan at sizes that need zero, one, two and three levels
// of recursion. The same source tests the exercise and the solution.
#include <scan_recursion.cuh>

#include "exercise_testing.cuh"

#include <algorithm>

using namespace exercise_testing;
namespace sr = scan_recursion;

namespace {

void check(std::uint64_t n) {
  check_inclusive_scan(n, sr::workspace_bytes(n), [](const std::int32_t* in, std::int32_t* out, std::size_t m,
                                                     void* ws, cudaStream_t s) { sr::inclusive_scan(in, out, m, ws, s); });
}

}  // namespace

TEST_CASE("10: the recursive scan at adversarial sizes (up to two levels of recursion)") {
  // 1024 * 1024 elements: 1024 part sums, one part at the next level; + 1: 1025 sums, two levels.
  const auto sizes = adversarial_sizes({2047, 2048, 2049, 3 * 1024 + 17, 129 * 1024 + 1, 1023 * 1024 + 5,
                                        1024 * 1024, (1u << 24) + 3});
  for (std::uint64_t n : sizes_that_fit(sizes, 8.5)) check(n);
}

TEST_CASE("10: three levels of recursion (2^30 + 1025 elements)") {
  // 8 GiB of device memory; skipped with a message where that does not fit.
  for (std::uint64_t n : sizes_that_fit({(1ull << 30) + 1025}, 8.5)) check(n);
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  const std::size_t n = std::size_t{1} << 28;
  tut::DeviceBuffer<std::int32_t> in(tut::random_integers<std::int32_t>(n, 1)), out(n);
  tut::DeviceBuffer<unsigned char> ws(std::max(sr::workspace_bytes(n), tut::scan::cub_workspace_bytes(n)));
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(std::int32_t);
  std::printf("inclusive scan of 2^28 int32 (1 GiB)\n");
  print_row("part sums scanned by one thread", median_ms("10-recursive-part-sums", "serial-sums", [&](cudaStream_t s) {
              sr::inclusive_scan_serial_sums(in.data(), out.data(), n, ws.data(), s);
            }), bytes);
  print_row("part sums scanned recursively", median_ms("10-recursive-part-sums", "recursive", [&](cudaStream_t s) {
              sr::inclusive_scan(in.data(), out.data(), n, ws.data(), s);
            }), bytes);
  print_row("cub::DeviceScan::InclusiveSum", median_ms("10-recursive-part-sums", "cub", [&](cudaStream_t s) {
              tut::scan::cub_inclusive_sum(in.data(), out.data(), n, ws.data(), ws.size(), s);
            }), bytes);
}
