// Host test for chapter 38 (no GPU needed): every variant throws for a length it has no kernel for, before it
// touches the GPU, instead of launching nothing.
#define TUT_CHAPTER_NO_MAIN
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN  // its own main: no GPU check, it needs none
#include "main.cu"

#include "launch_testing.cuh"

TEST_CASE("38: every variant throws std::invalid_argument for a length it has no kernel for") {
  tut::fft::testing::check_unsupported_lengths_throw(two_pass_variants());
}
