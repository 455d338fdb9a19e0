// Test of exercise 31: the radix-2 Stockham FFT built from your pass, against the CPU FFT in double at every
// length 8 .. 2^16 and on known transforms. The same source tests the exercise and the solution.
#include <stockham_pass.cuh>

#include "exercise_testing.cuh"
#include "fft_testing.cuh"

namespace {
tut::fft::FftVariant stockham_variant() {
  tut::fft::FftVariant v;
  v.name = "stockham-pass";
  v.max_log2n = stockham_pass::kMaxLog2n;
  v.workspace_bytes = stockham_pass::workspace_bytes;
  v.launch = stockham_pass::forward;
  return v;
}
}  // namespace

TEST_CASE("31: the Stockham FFT matches the CPU FFT at N = 8 .. 2^16, batches 1, 3, 133 and larger") {
  tut::fft::testing::check_variants({stockham_variant()});
}

TEST_CASE("31: impulses, a single tone and constants give their exact transforms") {
  tut::fft::testing::check_variants_known({stockham_variant()});
}

TEST_CASE("measure" * doctest::skip()) {
  exercise_testing::print_device();
  const int log2n = 10;
  const long long batch = 1 << 14;
  const std::size_t count = static_cast<std::size_t>(batch) << log2n;
  tut::DeviceBuffer<float2> in(tut::fft::random_signals(count, 1)), out(count);
  tut::DeviceBuffer<unsigned char> ws(stockham_pass::workspace_bytes(log2n, batch));
  std::printf("radix-2 Stockham FFT, N = 1024, %lld signals (GB/s count one read and one write)\n", batch);
  exercise_testing::print_row("10 passes through global memory",
                              exercise_testing::median_ms("31-stockham-pass", "stockham", [&](cudaStream_t s) {
                                stockham_pass::forward(in.data(), out.data(), log2n, batch, ws.data(), s);
                              }), 2.0 * count * sizeof(float2), 5.0 * static_cast<double>(count) * log2n);
}
