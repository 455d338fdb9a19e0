// GPU tests for chapter 36: the FFT-chapter tests for the stage as its plan for this GPU runs it (every length 8
// to 2^20 through the dispatcher: chapter 35's stage, the one-block kernel at 8192 and 16384, the four-step above;
// batches 1, 3, 133 and about 2^22 elements; known transforms; the command line), every candidate its plan may
// choose, a stale plan file ignored, every launch-shape candidate at N = 8192 and 16384, and the lengths the
// one-block kernel must refuse.
#include <stdexcept>
#include <vector>

#include "device.cuh"
#include "device_buffer.cuh"
#include "fft_testing.cuh"

// From main.cu, compiled once into the chapter's library: the test launches the kernels through these variants
// and compiles none of them itself.
tut::ChapterSpec chapter_spec();
std::vector<tut::fft::FftVariant> large_variants_set_up();  // the stage, chapter 35's stage, the candidates

namespace {
constexpr int kFirstLog2n = 13, kLastLog2n = 14;  // the lengths the one-block kernel handles (8192, 16384)

const tut::fft::FftVariant& variant_named(const std::vector<tut::fft::FftVariant>& variants, const char* name) {
  for (const auto& v : variants)
    if (v.name == name) return v;
  throw std::logic_error(std::string("36: no variant named ") + name);
}
}  // namespace

// large_variants_set_up() runs the one-time set-up (the shared-memory opt-in) before the tests launch directly.
TUT_FFT_CHAPTER_TESTS(chapter_spec(), {large_variants_set_up().front()})

TEST_CASE("36: every candidate matches the CPU double FFT at N = 8192 and 16384, batches 1, 3, 133 and larger") {
  tut::require_supported_gpu();
  const auto variants = large_variants_set_up();
  for (std::size_t i = 1; i < variants.size(); ++i)
    for (int log2n : {kFirstLog2n, kLastLog2n}) {
      // 1, 3, 133 and ~2^22 elements (odd counts: partial last blocks of 2 and 3 signals); capped under a sanitizer
      for (long long batch : tut::fft::testing::test_batches(log2n))
        tut::fft::testing::check_random(variants[i], log2n, batch);
      tut::fft::testing::check_known_transforms(variants[i], log2n);
    }
}

TEST_CASE("36: the stage's plan: every candidate it may choose matches the CPU double FFT (N = 2048 .. 16384)") {
  tut::fft::testing::check_plan_candidates(large_variants_set_up().front());
}

TEST_CASE("36: a plan file naming no candidate of the stage, or cut short, is ignored with one line; it plans again") {
  tut::fft::testing::check_stale_plan_ignored(chapter_spec(), large_variants_set_up().front(), {13, 11});
}

TEST_CASE("36: the one-block kernel refuses lengths other than 8192 and 16384, the stage those outside 8 .. 2^20") {
  tut::require_supported_gpu();
  const auto variants = large_variants_set_up();
  CHECK(variants.front().min_log2n == 3);
  CHECK(variants.front().max_log2n == 20);
  for (const auto& v : variants)
    if (v.name != "fft-one-block-large" && v.name != "fft-tuned") {  // the candidates: one-block kernels only
      CHECK(v.min_log2n == kFirstLog2n);
      CHECK(v.max_log2n == kLastLog2n);
    }
  tut::DeviceBuffer<float2> in(1 << 15), out(1 << 15);
  // Every candidate is the one-block launch of another shape: each must refuse what it was not built for.
  for (const char* name : {"e16", "e32-s2", "e32-staged"})
    for (int log2n : {3, 12, 15}) {
      INFO(name << " at N = 2^" << log2n);
      CHECK_THROWS_AS(variant_named(variants, name).launch(in.data(), out.data(), log2n, 1, nullptr, 0),
                      std::invalid_argument);
    }
  for (int log2n : {2, 21})
    CHECK_THROWS_AS(variants.front().launch(in.data(), out.data(), log2n, 1, nullptr, 0), std::invalid_argument);
}
