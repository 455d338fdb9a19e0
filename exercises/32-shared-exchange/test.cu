// Test of exercise 32: the shared-memory FFT with your exchange between passes, against the CPU FFT in double
// at every length 8 .. 4096 and on known transforms (racecheck and synccheck run it too). The same source tests
// the exercise and the solution.
#include <shared_exchange.cuh>

#include "exercise_testing.cuh"
#include "fft_testing.cuh"

namespace {
tut::fft::FftVariant shared_variant() {
  tut::fft::FftVariant v;
  v.name = "shared-exchange";
  v.max_log2n = shared_exchange::kMaxLog2n;
  v.launch = shared_exchange::forward;
  return v;
}
}  // namespace

TEST_CASE("32: the shared-memory FFT matches the CPU FFT at N = 8 .. 4096, batches 1, 3, 133 and larger") {
  tut::fft::testing::check_variants({shared_variant()});
}

TEST_CASE("32: impulses, a single tone and constants give their exact transforms") {
  tut::fft::testing::check_variants_known({shared_variant()});
}

TEST_CASE("measure" * doctest::skip()) {
  exercise_testing::print_device();
  const int log2n = 10;
  const long long batch = 1 << 14;
  const std::size_t count = static_cast<std::size_t>(batch) << log2n;
  tut::DeviceBuffer<float2> in(tut::fft::random_signals(count, 1)), out(count);
  std::printf("radix-2 FFT in shared memory, N = 1024, %lld signals (GB/s count one read and one write)\n", batch);
  exercise_testing::print_row("all passes in shared memory",
                              exercise_testing::median_ms("32-shared-exchange", "shared", [&](cudaStream_t s) {
                                shared_exchange::forward(in.data(), out.data(), log2n, batch, nullptr, s);
                              }), 2.0 * count * sizeof(float2), 5.0 * static_cast<double>(count) * log2n);
}
