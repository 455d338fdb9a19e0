// GPU tests for chapter 36: the FFT-chapter tests for the stage (every length 8 to 2^20 through the dispatcher:
// chapter 35's stage, the one-block kernel at 8192 and 16384, the four-step above; batches 1, 3, 133 and about
// 2^22 elements; known transforms; the command line), every launch-shape candidate at N = 8192 and 16384, and
// the lengths the one-block kernel must refuse.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include <vector>

#include "device.cuh"
#include "device_buffer.cuh"
#include "fft_testing.cuh"

// large_variants_set_up() runs the one-time set-up (the shared-memory opt-in) before the tests launch directly.
TUT_FFT_CHAPTER_TESTS(chapter_spec(), {large_variants_set_up().front()})

TEST_CASE("36: every candidate matches the CPU double FFT at N = 8192 and 16384, batches 1, 3, 133 and larger") {
  tut::require_supported_gpu();
  const auto variants = large_variants_set_up();
  for (std::size_t i = 1; i < variants.size(); ++i)
    for (int log2n : {fft_one_block_large::kFirstLog2n, fft_one_block_large::kLastLog2n}) {
      // 1, 3, 133 and ~2^22 elements (odd counts: partial last blocks of 2 and 3 signals); capped under a sanitizer
      for (long long batch : tut::fft::testing::test_batches(log2n))
        tut::fft::testing::check_random(variants[i], log2n, batch);
      tut::fft::testing::check_known_transforms(variants[i], log2n);
    }
}

TEST_CASE("36: the one-block kernel refuses lengths other than 8192 and 16384, the stage those outside 8 .. 2^20") {
  tut::require_supported_gpu();
  fft_one_block_large::setup_fft_one_block_large();
  tut::DeviceBuffer<float2> in(1 << 15), out(1 << 15);
  for (int log2n : {3, 12, 15})
    CHECK_THROWS_AS(fft_one_block_large::Stage::launch(in.data(), out.data(), log2n, 1, nullptr, 0),
                    std::invalid_argument);
  for (int log2n : {2, 21})
    CHECK_THROWS_AS(fft_one_block_large::fft_one_block_large(in.data(), out.data(), log2n, 1, nullptr, 0),
                    std::invalid_argument);
}
