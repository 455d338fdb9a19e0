// Test of exercise 02: the FMA chains give the CPU's result (and the measurement: GFLOP/s against
// chains per thread and threads per SM). The same source tests the exercise and the solution.
#include <fma_peak.cuh>

#include "exercise_testing.cuh"

#include <cmath>
#include <vector>

using namespace exercise_testing;

namespace {

template <int Chains>
std::vector<float> cpu_chains(const std::vector<float>& seeds, int iterations) {
  std::vector<float> out(seeds.size());
  tut::parallel_for(seeds.size(), [&](std::size_t b, std::size_t e) {
    for (std::size_t t = b; t < e; ++t) {
      float x[Chains];
      for (int k = 0; k < Chains; ++k) x[k] = fma_peak::chain_start(seeds[t], k);
      for (int it = 0; it < iterations; ++it)
        for (int k = 0; k < Chains; ++k) x[k] = std::fma(x[k], fma_peak::kMultiplier, fma_peak::chain_addend(k));
      float sum = 0.0f;
      for (int k = 0; k < Chains; ++k) sum += x[k];
      out[t] = sum;
    }
  }, 64);
  return out;
}

template <int Chains>
void check_chains(std::uint64_t n, int iterations, int block) {
  const std::vector<float> seeds = tut::random_floats(n, seed_for(n, Chains));
  tut::DeviceBuffer<float> d_seeds(seeds), d_out(n);
  d_out.poison();
  fma_peak::fma_chains<Chains>(d_seeds.data(), d_out.data(), static_cast<std::int64_t>(n), iterations, block, 0);
  sync_checked();
  const std::vector<float> expected = cpu_chains<Chains>(seeds, iterations);
  // Relative, not exact: a different but valid order of the final sum changes the last bits.
  const tut::CheckResult r = tut::compare_relative(expected.data(), d_out.download().data(), n, 1e-5);
  REQUIRE_MESSAGE(r.ok, where(n, std::to_string(Chains) + " chains, " + std::to_string(iterations) +
                                     " iterations, block " + std::to_string(block)) << ": " << r.message());
}

}  // namespace

TEST_CASE("02: the FMA chains match the CPU at adversarial sizes") {
  for (std::uint64_t n : sizes_that_fit(adversarial_sizes(), 2 * sizeof(float))) {
    check_chains<8>(n, 100, 256);
    check_chains<1>(n, 37, 96);
  }
  for (int iterations : {1, 2, 1000}) {
    check_chains<8>(4097, iterations, 128);
    check_chains<3>(4097, iterations, 1024);
  }
}

namespace {

template <int Chains>
void measure_row(int sm_count, double peak_gflops) {
  const int iterations = 1024;
  for (int threads_per_sm : {128, 256, 512, 1024, 2048}) {
    const std::int64_t n = static_cast<std::int64_t>(sm_count) * threads_per_sm;
    tut::DeviceBuffer<float> seeds(tut::random_floats(static_cast<std::size_t>(n), 1)), out(static_cast<std::size_t>(n));
    const double flops = 2.0 * static_cast<double>(n) * Chains * iterations;
    const std::string name = std::to_string(Chains) + " chains, " + std::to_string(threads_per_sm) + " threads/SM";
    const double ms = median_ms("02-fma-peak", std::to_string(Chains) + "x" + std::to_string(threads_per_sm),
                                [&](cudaStream_t s) {
                                  fma_peak::fma_chains<Chains>(seeds.data(), out.data(), n, iterations, 128, s);
                                });
    print_row(name, ms, 0.0, flops);
    if (peak_gflops > 0) std::printf("  %40s %.0f%% of the theoretical peak\n", "", 100.0 * flops / (ms * 1e6) / peak_gflops);
  }
}

}  // namespace

TEST_CASE("measure" * doctest::skip()) {
  const tut::DeviceInfo d = print_device();
  // FP32 lanes per SM: 64 on compute capability 7.5 and 8.0, 128 on 8.6 and newer.
  const int cc = d.cc_major * 10 + d.cc_minor;
  const int lanes = (cc == 75 || cc == 80) ? 64 : 128;
  const double peak = 2.0 * d.sm_count * lanes * d.sm_clock_khz * 1e-6;
  std::printf("theoretical FP32 peak: %d SMs x %d lanes x 2 FLOP x %.0f MHz = %.0f GFLOP/s\n", d.sm_count, lanes,
              d.sm_clock_khz * 1e-3, peak);
  std::printf("1024 iterations per chain, blocks of 128 threads\n");
  measure_row<1>(d.sm_count, peak);
  measure_row<2>(d.sm_count, peak);
  measure_row<4>(d.sm_count, peak);
  measure_row<8>(d.sm_count, peak);
}
