// Test of exercise 05: add_base adds the right base to every part, in place, at sizes up to past
// 2^31 elements, and writes nothing past n. The same source tests the exercise and the solution.
#include <add_base.cuh>

#include "exercise_testing.cuh"

#include <vector>

using namespace exercise_testing;

namespace {

constexpr std::size_t kGuard = 32;  // poisoned ints after the n elements

void check_add_base(std::uint64_t n) {
  const std::size_t parts = add_base::part_count(n);
  // Any values will do: the kernel does not care whether they are really scans.
  std::vector<std::int32_t> data = tut::random_integers<std::int32_t>(n, seed_for(n));
  const std::vector<std::int32_t> sums = tut::random_integers<std::int32_t>(parts, seed_for(n, 1));
  data.resize(n + kGuard, kPoisonInt32);
  tut::DeviceBuffer<std::int32_t> d_data(data), d_sums(sums);
  add_base::add_base(d_data.data(), d_sums.data(), n, 0);
  sync_checked();
  // Expected, in place in `data` (uint32 arithmetic wraps like the kernel's).
  tut::parallel_for(n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const std::size_t part = i / add_base::kPartSize;
      if (part > 0)
        data[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(data[i]) + static_cast<std::uint32_t>(sums[part - 1]));
    }
  });
  const tut::CheckResult r = tut::compare_exact(data, d_data.download());
  REQUIRE_MESSAGE(r.ok, where(n, std::to_string(parts) + " parts") << ": " << r.message()
                            << (r.first_bad >= n && r.bad_count ? " (written past the end of the data)" : ""));
}

}  // namespace

TEST_CASE("05: add_base at adversarial sizes") {
  for (std::uint64_t n : sizes_that_fit(adversarial_sizes({2047, 2048, 2049, 3 * 1024 + 17, 1023 * 1024 + 5, 129 * 1024 + 1}),
                                        sizeof(std::int32_t)))
    check_add_base(n);
}

TEST_CASE("05: add_base past 2^31 elements (64-bit indices)") {
  // 8 GiB on the device, about 24 GiB on the host; skipped with a message where that does not fit.
  for (std::uint64_t n : sizes_that_fit({(1ull << 31) + 1025}, sizeof(std::int32_t))) check_add_base(n);
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  const std::size_t n = std::size_t{1} << 28;
  tut::DeviceBuffer<std::int32_t> data(tut::random_integers<std::int32_t>(n, 1));
  tut::DeviceBuffer<std::int32_t> sums(tut::random_integers<std::int32_t>(add_base::part_count(n), 2));
  tut::DeviceBuffer<std::int32_t> copy(n);
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(std::int32_t);
  std::printf("2^28 int32 (1 GiB), read and written once\n");
  print_row("cudaMemcpyAsync of the same bytes", median_ms("05-add-base-64bit", "memcpy", [&](cudaStream_t s) {
              TUT_CUDA_CHECK(cudaMemcpyAsync(copy.data(), data.data(), n * sizeof(std::int32_t), cudaMemcpyDeviceToDevice, s));
            }), bytes);
  print_row("add_base, 128 blocks of 1024", median_ms("05-add-base-64bit", "add-base", [&](cudaStream_t s) {
              add_base::add_base(data.data(), sums.data(), n, s);
            }), bytes);
}
