// GPU tests for chapter 34: the FFT-chapter tests for the stage (every length 8 to 2^20, batches 1, 3, 133 and
// a large one, known transforms, the command line), and the sincospif variant where it differs (N >= 64).
#include <vector>

#include "device.cuh"
#include "fft_chapter.cuh"
#include "fft_testing.cuh"
#include "launch_testing.cuh"

// main.cu, compiled once into the units library: the test launches the kernels only through these variants
// (their setup and forget_setup reach main.cu's twiddle table) and compiles none of them itself.
std::vector<tut::fft::FftVariant> high_radix_variants();  // the stage, then the sincospif variant
tut::ChapterSpec chapter_spec();

TUT_FFT_CHAPTER_TESTS(chapter_spec(), {high_radix_variants().front()})

using tut::fft::testing::variant_batches;  // 1, 3, 133 and about 2^18 / N (common/fft/fft_testing.cuh)

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
