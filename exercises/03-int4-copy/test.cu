// Test of exercise 03: the int4 copy at every length and every pair of pointer offsets, with the
// ints around the destination checked too. The same source tests the exercise and the solution.
#include <copy_int4.cuh>

#include "exercise_testing.cuh"

#include <vector>

using namespace exercise_testing;

namespace {

constexpr std::size_t kGuard = 8;  // poisoned ints on each side of the destination

// Copies n ints from src.data() + src_off to dst.data() + kGuard + dst_off... in a destination buffer
// of n + 2 * kGuard + 3 ints, poisoned first; checks the whole destination buffer.
void check_copy(std::uint64_t n, int src_off, int dst_off, const tut::DeviceBuffer<int>& src,
                const std::vector<int>& host_src) {
  tut::DeviceBuffer<int> dst(n + 2 * kGuard + 3);
  dst.poison();
  const int* s = src.data() + src_off;
  int* d = dst.data() + kGuard + dst_off;
  copy_int4::copy(s, d, static_cast<std::int64_t>(n), 0);
  sync_checked();
  std::vector<int> expected(dst.size(), kPoisonInt32);
  for (std::uint64_t i = 0; i < n; ++i) expected[kGuard + dst_off + i] = host_src[src_off + i];
  const tut::CheckResult r = tut::compare_exact(expected, dst.download());
  // Index the report from the start of the destination (negative: written before dst[0]).
  std::string at;
  if (!r.ok && r.bad_count)
    at = "; index " + std::to_string(r.first_bad) + " of the buffer is dst[" +
         std::to_string(static_cast<long long>(r.first_bad) - static_cast<long long>(kGuard + dst_off)) + "]";
  REQUIRE_MESSAGE(r.ok, where(n, "src offset " + std::to_string(src_off * 4) + " B, dst offset " +
                                     std::to_string(dst_off * 4) + " B from a 16-byte boundary")
                            << ": " << r.message() << at);
}

}  // namespace

TEST_CASE("03: the int4 copy is exact for every length and every alignment of src and dst") {
  for (std::uint64_t n : sizes_that_fit(adversarial_sizes({2, 3, 4, 5, 6, 7, 8, 9}), 2 * sizeof(int))) {
    const std::vector<int> host_src = tut::random_integers<int>(n + 4, seed_for(n));
    const tut::DeviceBuffer<int> src(host_src);
    for (int src_off = 0; src_off < 4; ++src_off)
      for (int dst_off = 0; dst_off < 4; ++dst_off) check_copy(n, src_off, dst_off, src, host_src);
  }
}

TEST_CASE("03: large copies, many grid-stride rounds per thread") {
  for (std::uint64_t n : sizes_that_fit({(1u << 26) + 3}, 2 * sizeof(int))) {
    const std::vector<int> host_src = tut::random_integers<int>(n + 4, seed_for(n));
    const tut::DeviceBuffer<int> src(host_src);
    check_copy(n, 0, 0, src, host_src);
    check_copy(n, 1, 1, src, host_src);
    check_copy(n, 3, 2, src, host_src);
  }
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  const std::int64_t n = std::int64_t{1} << 26;
  tut::DeviceBuffer<int> src(tut::random_integers<int>(static_cast<std::size_t>(n) + 4, 1));
  tut::DeviceBuffer<int> dst(static_cast<std::size_t>(n) + 4);
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(int);
  std::printf("copy of 2^26 ints (256 MiB read + 256 MiB written)\n");
  print_row("cudaMemcpyAsync device to device", median_ms("03-int4-copy", "memcpy", [&](cudaStream_t s) {
              TUT_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), n * sizeof(int), cudaMemcpyDeviceToDevice, s));
            }), bytes);
  print_row("scalar", median_ms("03-int4-copy", "scalar", [&](cudaStream_t s) {
              copy_int4::copy_scalar(src.data(), dst.data(), n, s);
            }), bytes);
  const struct { int src_off, dst_off; const char* name; } cases[] = {
      {0, 0, "int4, both aligned"}, {1, 1, "int4, both 4 bytes past"}, {0, 1, "int4 kernel, offsets differ"}};
  for (const auto& c : cases)
    print_row(c.name, median_ms("03-int4-copy", "int4-" + std::to_string(c.src_off) + std::to_string(c.dst_off),
                                [&](cudaStream_t s) {
                                  copy_int4::copy(src.data() + c.src_off, dst.data() + c.dst_off, n, s);
                                }), bytes);
}
