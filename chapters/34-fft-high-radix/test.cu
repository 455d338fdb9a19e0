// GPU tests for chapter 34: the FFT-chapter tests for the stage (every length 8 to 2^20, batches 1, 3, 133 and
// a large one, known transforms, the command line), and the sincospif variant where it differs (N >= 64).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "device.cuh"
#include "fft_testing.cuh"

TUT_FFT_CHAPTER_TESTS(chapter_spec(), {high_radix_variants().front()})

TEST_CASE("34: sincospif twiddles match the CPU double FFT for N = 64..2^14") {
  tut::require_supported_gpu();
  const auto sincos = high_radix_variants().back();
  for (int log2n = 6; log2n <= 14; ++log2n) {
    for (long long batch : tut::fft::testing::test_batches(log2n)) tut::fft::testing::check_random(sincos, log2n, batch);
    tut::fft::testing::check_known_transforms(sincos, log2n);
  }
}
