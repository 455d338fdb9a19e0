// Host test for chapter 34 (no GPU needed): every variant throws for a length it has no kernel for, before it
// touches the GPU, instead of launching nothing.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN  // its own main: no GPU check, it needs none
#include "fft_chapter.cuh"

// main.cu's, from the chapter's library (its meson.build: main.cu compiles once).
std::vector<tut::fft::FftVariant> high_radix_variants();
tut::ChapterSpec chapter_spec();

#include "launch_testing.cuh"

TEST_CASE("34: every variant throws std::invalid_argument for a length it has no kernel for") {
  tut::fft::testing::check_unsupported_lengths_throw(high_radix_variants());
}
