// GPU tests for chapter 09: the race-free scan against the CPU reference at adversarial sizes,
// including past 2^31 elements. The "article" variant has a known defect (an intra-warp data race),
// so check_all_variants() leaves it out; it is only run here to show that it completes.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "scan_testing.cuh"

TUT_SCAN_CHAPTER_TESTS(chapter_spec())

TEST_CASE("09: the default zero-padded scan is exact whichever warp the input ends in") {
  // 7 full parts, then a last part of 32 * w + 1 elements for each w: the zeros staged past n begin
  // one element into warp w, so every warp in turn scans a mix of input and staged zeros.
  const auto spec = chapter_spec();
  for (std::uint64_t w = 0; w < 32; ++w) {
    const std::uint64_t n = 1024 * 7 + 32 * w + 1;
    CAPTURE(n);
    const tut::CheckResult r = tut::testing::run_variant(spec, "scan-zero-padding", n);
    CHECK_MESSAGE(r.ok, r.message());
  }
}

TEST_CASE("09: the article variant runs to completion (its output is not checked: known defect)") {
  const auto spec = chapter_spec();
  bool article_has_known_defect = false;
  for (const auto& v : spec.variants)
    if (v.name == "article") article_has_known_defect = !v.known_defect.empty();
  REQUIRE(article_has_known_defect);  // so check_all_variants() skips it
  if (tut::testing::under_sanitizer()) {
    // Its race is the point: racecheck would (rightly) fail this test. See the README for the
    // racecheck command that shows it.
    MESSAGE("article variant not run under compute-sanitizer: it has a known data race");
    return;
  }
  // A CUDA error would throw here; a wrong scan is possible by design and is only reported.
  const tut::CheckResult r = tut::testing::run_variant(spec, "article", 1u << 20);
  MESSAGE("article variant at 2^20: " << r.message());
}
