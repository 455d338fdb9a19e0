// Host test for chapter 38 (no GPU needed): every variant throws for a length it has no kernel for, before it
// touches the GPU, instead of launching nothing.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN  // its own main: no GPU check, it needs none
#include "fft_chapter.cuh"
#include "report.hpp"

// main.cu's, from the chapter's library (its meson.build: main.cu compiles once).
std::vector<tut::fft::FftVariant> two_pass_variants();
std::vector<tut::fft::FftVariant> two_pass_variants_set_up();
tut::ChapterSpec chapter_spec();

#include "launch_testing.cuh"

TEST_CASE("38: every variant throws std::invalid_argument for a length it has no kernel for") {
  tut::fft::testing::check_unsupported_lengths_throw(two_pass_variants());
}
