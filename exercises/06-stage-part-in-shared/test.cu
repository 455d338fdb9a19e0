// Test of exercise 06: the ScanThenFan scan with each part staged in shared memory, against the CPU.
// The same source tests the exercise and the solution.
#include <scan_staged.cuh>

#include "exercise_testing.cuh"

using namespace exercise_testing;

TEST_CASE("06: the staged scan matches the CPU at adversarial sizes") {
  const auto sizes = adversarial_sizes({2047, 2049, 3 * 1024 + 17, 129 * 1024 + 1, 1023 * 1024 + 5, (1u << 22) + 3});
  for (std::uint64_t n : sizes_that_fit(sizes, 9.0))
    check_inclusive_scan(n, scan_staged::workspace_bytes(n),
                         [](const std::int32_t* in, std::int32_t* out, std::size_t m, void* ws, cudaStream_t s) {
                           scan_staged::inclusive_scan(in, out, m, ws, s);
                         });
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  const std::size_t n = std::size_t{1} << 24;
  tut::DeviceBuffer<std::int32_t> in(tut::random_integers<std::int32_t>(n, 1)), out(n);
  tut::DeviceBuffer<unsigned char> ws(scan_staged::workspace_bytes(n));
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(std::int32_t);
  std::printf("inclusive scan of 2^24 int32\n");
  for (bool staged : {false, true})
    print_row(staged ? "stage 06: part staged in shared memory" : "stage 05: serial scan in global memory",
              median_ms("06-stage-part-in-shared", staged ? "staged" : "global", [&](cudaStream_t s) {
                scan_staged::inclusive_scan(in.data(), out.data(), n, ws.data(), s, staged);
              }), bytes);
}
