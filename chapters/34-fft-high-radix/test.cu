// GPU tests for chapter 34: the FFT-chapter tests for the stage (every length 8 to 2^20, batches 1, 3, 133 and
// a large one, known transforms, the command line), and the sincospif variant where it differs (N >= 64).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include <algorithm>
#include <vector>

#include "device.cuh"
#include "fft_testing.cuh"
#include "launch_testing.cuh"

TUT_FFT_CHAPTER_TESTS(chapter_spec(), {high_radix_variants().front()})

// Batches for an on-demand variant: 1, 3, 133 (a partial last block) and about 2^18 elements (odd), fewer than the
// stage's ~2^22 to keep the suite quick; under a sanitizer 1, 3 and 133 if within its 2^16 elements.
std::vector<long long> variant_batches(int log2n) {
  const long long n = 1ll << log2n;
  std::vector<long long> b = {1, 3};
  if (!tut::testing::under_sanitizer() || 133 * n <= (1ll << 16)) b.push_back(133);
  if (!tut::testing::under_sanitizer()) b.push_back(std::max(1ll, (1ll << 18) / n) + 1);
  return b;
}

TEST_CASE("34: sincospif twiddles match the CPU double FFT for N = 64..2^14") {
  tut::require_supported_gpu();
  const auto sincos = high_radix_variants().back();
  for (int log2n = 6; log2n <= 14; ++log2n) {
    for (long long batch : variant_batches(log2n)) tut::fft::testing::check_random(sincos, log2n, batch);
    tut::fft::testing::check_known_transforms(sincos, log2n);
  }
}

TEST_CASE("34: a launch that needs the twiddle table throws until its setup has filled it on this device") {
  tut::require_supported_gpu();
  tut::fft::testing::check_launch_needs_setup(high_radix_variants().front(), 6);
  tut::fft::testing::check_launch_needs_setup(high_radix_variants().front(), 13);  // the four-step kernels read it too
}
