// Test of exercise 01: the thread-to-element map keeps every warp on one side of the branch, and the
// output still matches the CPU. The same source tests the exercise and the solution (see
// exercise_testing.cuh): the file under test comes from the include path, hence the angle brackets.
#include <uniform_branch.cuh>

#include "exercise_testing.cuh"

#include <vector>

using namespace exercise_testing;
namespace ub = uniform_branch;

TEST_CASE("01: each group of 64 threads covers its 64 elements once, and every warp has one parity") {
  const std::int64_t threads = ub::threads_for((1 << 20) + 1);
  std::vector<int> seen(static_cast<std::size_t>(threads), 0);
  for (std::int64_t warp = 0; warp < threads / ub::kWarpSize; ++warp) {
    const std::int64_t first = ub::element_for_thread(warp * ub::kWarpSize);
    for (std::int64_t lane = 0; lane < ub::kWarpSize; ++lane) {
      const std::int64_t t = warp * ub::kWarpSize + lane;
      const std::int64_t i = ub::element_for_thread(t);
      const std::int64_t group = t / ub::kGroup;
      REQUIRE_MESSAGE((i >= group * ub::kGroup && i < (group + 1) * ub::kGroup),
                      "thread " << t << " maps to element " << i << ", outside its group [" << group * ub::kGroup
                                << ", " << (group + 1) * ub::kGroup << ")");
      REQUIRE_MESSAGE(++seen[static_cast<std::size_t>(i)] == 1, "element " << i << " is computed twice (thread " << t << ")");
      REQUIRE_MESSAGE(i % 2 == first % 2, "warp " << warp << " diverges: lane 0 computes element " << first
                                                  << " but lane " << lane << " computes element " << i);
    }
  }
}

TEST_CASE("01: the output matches the CPU at adversarial sizes") {
  for (std::uint64_t n : sizes_that_fit(adversarial_sizes({(1u << 24) + 7}), sizeof(std::uint32_t))) {
    tut::DeviceBuffer<std::uint32_t> out(n);
    out.poison();
    ub::compute(out.data(), static_cast<std::int64_t>(n), false, 0);
    sync_checked();
    std::vector<std::uint32_t> expected(n);
    tut::parallel_for(n, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) expected[i] = i % 2 == 0 ? ub::even_side(i) : ub::odd_side(i);
    });
    const tut::CheckResult r = tut::compare_exact(expected, out.download());
    REQUIRE_MESSAGE(r.ok, where(n) << ": " << r.message());
  }
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  const std::int64_t n = std::int64_t{1} << 26;
  tut::DeviceBuffer<std::uint32_t> out(static_cast<std::size_t>(n));
  const double bytes = static_cast<double>(n) * sizeof(std::uint32_t);
  std::printf("n = 2^26 elements, %d rounds per side\n", ub::kRounds);
  print_row("divergent (one thread per element)", median_ms("01-warp-uniform-branch", "divergent", [&](cudaStream_t s) {
              ub::compute(out.data(), n, true, s);
            }), bytes);
  print_row("warp-uniform (element_for_thread)", median_ms("01-warp-uniform-branch", "uniform", [&](cudaStream_t s) {
              ub::compute(out.data(), n, false, s);
            }), bytes);
}
