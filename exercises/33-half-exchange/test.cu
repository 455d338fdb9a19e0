// Test of exercise 33: chapter 33's block FFT with the half exchange under test (a shared buffer of N / 2 values per
// signal), against the CPU FFT in double at every length 32 .. 4096 (two and three radix-16 passes, a last pass of
// radix 2, 4, 8 or 16), batches 1, 3, 133 (partial last blocks: several signals share a block below N = 2048) and
// about 2^22 elements, and on known transforms; racecheck and synccheck run it too (a missing barrier is a race that
// may still give the right values). The same source tests the exercise and the solution.
#include <half_exchange.cuh>

#include "exercise_testing.cuh"
#include "fft_testing.cuh"

namespace {
tut::fft::FftVariant half_variant() {
  tut::fft::FftVariant v;
  v.name = "half-exchange";
  v.min_log2n = half_exchange::kMinLog2n;
  v.max_log2n = half_exchange::kMaxLog2n;
  v.launch = half_exchange::forward;
  return v;
}
}  // namespace

TEST_CASE("33: the block FFT with the half exchange matches the CPU FFT at N = 32 .. 4096") {
  tut::fft::testing::check_variants({half_variant()});
}

TEST_CASE("33: impulses, a single tone and constants give their exact transforms") {
  tut::fft::testing::check_variants_known({half_variant()});
}

TEST_CASE("measure" * doctest::skip()) {
  exercise_testing::print_device();
  const int log2n = 11;
  const long long batch = 1 << 13;
  const std::size_t count = static_cast<std::size_t>(batch) << log2n;
  tut::DeviceBuffer<float2> in(tut::fft::random_signals(count, 1)), out(count);
  std::printf("FFT of N = 2048 in one block, %lld signals (GB/s count one read and one write)\n", batch);
  const double bytes = 2.0 * count * sizeof(float2), flops = 5.0 * static_cast<double>(count) * log2n;
  exercise_testing::print_row("chapter 33's plain exchange (N values of shared memory)",
                              exercise_testing::median_ms("33-half-exchange", "plain", [&](cudaStream_t s) {
                                fft_registers_exchange::fft_registers_exchange(in.data(), out.data(), log2n, batch,
                                                                               nullptr, s);
                              }), bytes, flops);
  exercise_testing::print_row("the half exchange under test (N / 2 values)",
                              exercise_testing::median_ms("33-half-exchange", "half", [&](cudaStream_t s) {
                                half_exchange::forward(in.data(), out.data(), log2n, batch, nullptr, s);
                              }), bytes, flops);
}
