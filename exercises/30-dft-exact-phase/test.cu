// Test of exercise 30: the direct DFT with its twiddle factor, against the CPU FFT in double at every length
// 8 .. 4096 and on known transforms. The same source tests the exercise and the solution.
#include <dft_exact_phase.cuh>

#include "exercise_testing.cuh"
#include "fft_testing.cuh"

namespace {
tut::fft::FftVariant dft_variant() {
  tut::fft::FftVariant v;
  v.name = "dft-exact-phase";
  v.max_log2n = dft_exact_phase::kMaxLog2n;
  v.launch = dft_exact_phase::forward;
  return v;
}
}  // namespace

TEST_CASE("30: the DFT matches the CPU FFT at N = 8 .. 4096, batches 1, 3, 133 and larger") {
  tut::fft::testing::check_variants({dft_variant()});
}

TEST_CASE("30: impulses, a single tone and constants give their exact transforms") {
  tut::fft::testing::check_variants_known({dft_variant()});
}

TEST_CASE("measure" * doctest::skip()) {
  exercise_testing::print_device();
  const int log2n = 10;
  const long long batch = 1 << 12;
  const std::size_t count = static_cast<std::size_t>(batch) << log2n;
  tut::DeviceBuffer<float2> in(tut::fft::random_signals(count, 1)), out(count);
  std::printf("direct DFT, N = 1024, %lld signals\n", batch);
  exercise_testing::print_row("exact-phase twiddles", exercise_testing::median_ms("30-dft-exact-phase", "dft", [&](cudaStream_t s) {
    dft_exact_phase::forward(in.data(), out.data(), log2n, batch, nullptr, s);
  }), 2.0 * count * sizeof(float2), 8.0 * static_cast<double>(count) * (1 << log2n));
}
