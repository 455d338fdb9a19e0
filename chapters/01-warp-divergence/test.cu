// GPU tests for chapter 01: every kernel's output against the expected 100/200 pattern.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gpu_test.cuh"

using tut::testing::adversarial_sizes;
using tut::testing::check_all_variants;

TEST_CASE("01: every kernel writes the expected pattern at adversarial sizes") {
  // 64 is the article's block; 33 leaves a partial warp in every block; 1024 is the largest block.
  for (long long block : {64LL, 33LL, 1024LL}) {
    CAPTURE(block);
    check_all_variants(chapter_spec(), adversarial_sizes({1u << 26}), {{"block", block}});
  }
}

TEST_CASE("01: the article's mathKernel4 writes 200 everywhere (precedence defect)") {
  tut::CheckResult r = tut::testing::run_variant(chapter_spec(), "kernel4-article", 4096);
  REQUIRE_FALSE(r.ok);
  CHECK(r.first_bad == 0);      // warp 0 should take the if-branch (100) ...
  CHECK(r.actual == "200");     // ... but the constant-false condition sends it to the else-branch
  CHECK(r.bad_count == 2048);   // exactly the even warps are wrong
}

TEST_CASE("01: the command line on a GPU") {
  const auto spec = chapter_spec();
  using tut::testing::run_chapter_with;
  CHECK(run_chapter_with(spec, {"--size", "2^45"}) == 2);  // 128 TiB does not fit in device memory
  CHECK(run_chapter_with(spec, {"--variant", "nope"}) == 2);
  CHECK(run_chapter_with(spec, {"--size", "64", "--block", "64", "--reps", "3"}) == 0);  // the article's config
  CHECK(run_chapter_with(spec, {"--size", "1M", "--reps", "2", "--format", "json"}) == 0);
  CHECK(run_chapter_with(spec, {"--size", "1M", "--profile", "--variant", "kernel1-even-odd"}) == 0);
}
