// Test of exercise 38: pass 1 of chapter 38's two-pass FFT with the twiddle under test, then chapter 38's own pass 2,
// against the CPU FFT in double (common/fft) at every length 4096 .. 2^20 (2^16 below sm_80, as chapter 38), random
// signals at batches 1, 3 and more, and known transforms. The same source tests the exercise and the solution.
#include <four_step_twiddle.cuh>

#include "exercise_testing.cuh"
#include "fft_testing.cuh"

namespace {
tut::fft::FftVariant two_pass_variant() {
  tut::fft::FftVariant v;
  v.name = "four-step-twiddle";
  v.min_log2n = four_step_twiddle::kMinLog2n;
  v.max_log2n = four_step_twiddle::max_log2n_here();
  v.workspace_bytes = four_step_twiddle::workspace_bytes;
  v.setup = [] { four_step_twiddle::setup(); };
  v.launch = four_step_twiddle::forward;
  if (v.max_log2n < four_step_twiddle::kMaxLog2n)
    MESSAGE("lengths past 2^" << v.max_log2n << " skipped: chapter 38 runs them from compute capability 8.0 "
            "(and where both passes' blocks fit in the shared memory a block may opt in to)");
  return v;
}
}  // namespace

TEST_CASE("38: the two passes with your twiddle match the CPU FFT at N = 4096 .. 2^20") {
  tut::fft::testing::check_variants({two_pass_variant()});
}

TEST_CASE("38: impulses, a single tone and constants give their exact transforms") {
  tut::fft::testing::check_variants_known({two_pass_variant()});
}

TEST_CASE("measure" * doctest::skip()) {
  exercise_testing::print_device();
  const int log2n = 20;
  const long long batch = 16;
  const std::size_t count = static_cast<std::size_t>(batch) << log2n;
  four_step_twiddle::setup();
  fft_two_pass::setup_fft_two_pass();
  tut::DeviceBuffer<float2> in(tut::fft::random_signals(count, 1)), out(count);
  tut::DeviceBuffer<unsigned char> ws(four_step_twiddle::workspace_bytes(log2n, batch));
  std::printf("two-pass FFT, N = 2^20, %lld signals (GB/s count one read and one write)\n", batch);
  const double bytes = 2.0 * count * sizeof(float2), flops = 5.0 * static_cast<double>(count) * log2n;
  exercise_testing::print_row("chapter 38's stage", exercise_testing::median_ms("38-four-step-twiddle", "stage",
                                                                                [&](cudaStream_t s) {
                                fft_two_pass::fft_two_pass(in.data(), out.data(), log2n, batch, ws.data(), s);
                              }), bytes, flops);
  exercise_testing::print_row("pass 1 with your twiddle, chapter 38's pass 2",
                              exercise_testing::median_ms("38-four-step-twiddle", "twiddle", [&](cudaStream_t s) {
                                four_step_twiddle::forward(in.data(), out.data(), log2n, batch, ws.data(), s);
                              }), bytes, flops);
}
