// GPU tests for chapter 38: the FFT-chapter tests for the stage as its plan for this GPU runs it (every length 8 to
// 2^22 through the dispatcher: chapter 36's stage up to 16384, chapter 37's clusters or two passes at 32768 and
// 65536, two passes above) and for the two-pass path at every length it has, 4096 to 2^22 (batches 1, 3, and to
// 2^16 also 133 and about 2^22 elements; known transforms; guards; the command line; planted batch + 1 and
// batch - 1); every candidate the stage's plan may choose; a stale plan file ignored; the two-pass path and every
// candidate at 2^17 .. 2^20 with the largest odd batch of at most 2^24 elements; a launch before set-up; the
// stage's candidates and workspace.
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "device.cuh"
#include "device_buffer.cuh"
#include "fft_chapter.cuh"
#include "fft_testing.cuh"
#include "two_pass_limits.hpp"  // fft_two_pass::kFirstLog2n, kLastLog2n, kMaxLog2n, kSharedBudget
#include "two_pass_units.hpp"   // main.cu, compiled once into the units library: the test compiles no kernel itself

namespace {
// The stage and the two-pass path, set up on the current device.
std::vector<tut::fft::FftVariant> stage_and_two_pass() {
  const auto v = two_pass_variants_set_up();
  return {v[0], v[1]};
}
}  // namespace

TUT_FFT_CHAPTER_TESTS(chapter_spec(), stage_and_two_pass())

TEST_CASE("38: the two-pass path and every candidate at 2^17 .. 2^20 with the largest odd batch of <= 2^24 elements") {
  tut::require_supported_gpu();
  if (tut::testing::under_sanitizer()) {
    MESSAGE("under compute-sanitizer: the two-pass kernels are checked at 2^12 and 2^13 by the cases above");
    return;
  }
  const auto variants = two_pass_variants_set_up();
  for (const auto& v : variants) {
    if (v.name == "fft-thread-block-cluster") continue;  // chapter 37's tests cover it
    for (int log2n = 17; log2n <= 20; ++log2n) {
      if (!tut::fft::supports(v, log2n)) continue;
      const long long largest = ((1ll << 24) >> log2n) - 1;  // 127 .. 15 signals: no multiple of a block count
      tut::fft::testing::check_random(v, log2n, largest);
      if (v.name == "fft-two-pass" || v.name == "two-pass") continue;  // batches 1, 3 and known transforms above
      for (long long batch : {1ll, 3ll}) tut::fft::testing::check_random(v, log2n, batch);
      tut::fft::testing::check_known_transforms(v, log2n);
    }
  }
}

TEST_CASE("38: a two-pass launch before its set-up on this device throws; after it, it runs and is right") {
  tut::require_supported_gpu();
  // A configuration of its own (TwoPass<Shape<16>, 12, 13>, main.cu): its per-device record is empty whatever the
  // other cases set up.
  const tut::fft::FftVariant fresh = two_pass_units::fresh_two_pass_variant();
  tut::DeviceBuffer<float2> in(1 << 13), out(1 << 13);
  tut::DeviceBuffer<unsigned char> ws(fresh.workspace_bytes(13, 1));
  CHECK_THROWS_WITH_AS(fresh.launch(in.data(), out.data(), 13, 1, ws.data(), 0),
                       doctest::Contains("setup_fft_two_pass() was not called"), std::logic_error);
  for (int log2n : {12, 13}) {
    tut::fft::testing::check_random(fresh, log2n, 3);  // check_random runs the variant's set-up first
    tut::fft::testing::check_known_transforms(fresh, log2n);
  }
}

TEST_CASE("38: the stage's plan: every candidate it may choose matches the CPU double FFT (N = 2048 .. 2^19)") {
  tut::fft::testing::check_plan_candidates(two_pass_variants_set_up().front());
}

TEST_CASE("38: a plan file naming no candidate of the stage, or cut short, is ignored with one line; it plans again") {
  tut::fft::testing::check_stale_plan_ignored(chapter_spec(), two_pass_variants_set_up().front(), {17, 15, 11});
}

TEST_CASE("38: the stage's plan chooses clusters or two passes at 32768 and 65536, among widths from 131072") {
  tut::require_supported_gpu();
  two_pass_units::setup_fft_two_pass();
  const bool clusters = two_pass_units::clusters_supported() && two_pass_units::cluster_fits(15) &&
                        two_pass_units::cluster_fits(16);
  for (int log2n : {15, 16}) {
    INFO("N = 2^" << log2n);
    // The plan's candidates: chapter 37's clusters first (the default), then the two passes; without clusters
    // the two passes alone.
    const tut::fft::FftChoice choice = two_pass_units::stage_choice(log2n);
    REQUIRE(!choice.candidates.empty());
    CHECK(choice.candidates.front().name == (clusters ? "c8" : "two-pass"));
    CHECK(choice.candidates.back().name == "two-pass");
    CHECK(choice.candidates.size() == (clusters ? 3u : 1u));  // c8, c4 or c8-split, two-pass
  }
  // The workspace holds the two passes' intermediate wherever the stage may run them: from 32768 (the plan may
  // choose them over the clusters at 32768 and 65536).
  for (int log2n = 15; log2n <= fft_two_pass::kMaxLog2n; ++log2n)
    CHECK(two_pass_units::stage_workspace_bytes(log2n, 3) == (std::size_t{3} << log2n) * sizeof(float2));
  // The stage's own widths are never a second candidate: 2^17 and 2^18 add w8, 2^19 w8 and w16, 2^20 on none.
  if (two_pass_units::opt_in_shared_bytes() >= fft_two_pass::kSharedBudget) {
    const std::vector<std::size_t> expected = {2, 2, 3, 1, 1, 1};  // 2^17 .. 2^22
    for (int log2n = 17; log2n <= 22; ++log2n)
      CHECK(two_pass_units::stage_choice(log2n).candidates.size() == expected[static_cast<std::size_t>(log2n - 17)]);
  }
  // What set-up found for every two-pass length: on sm_90 (227 KiB per block) every block fits.
  if (two_pass_units::opt_in_shared_bytes() >= fft_two_pass::kSharedBudget) {
    for (int log2n = fft_two_pass::kFirstLog2n; log2n <= fft_two_pass::kLastLog2n; ++log2n)
      CHECK(two_pass_units::stage_two_pass_shared_bytes(log2n) <=
            static_cast<std::size_t>(fft_two_pass::kSharedBudget));
    // And the stage's two-pass configuration runs, right, on seeded signals (an uninitialised input here was
    // what initcheck found in this case at f043cbe).
    const tut::fft::FftVariant stage = two_pass_units::stage_two_pass_variant();  // StageTwoPass
    tut::fft::testing::check_random(stage, 12, 3);
  }
}

TEST_CASE("38: the two-pass path refuses lengths outside 4096 .. 2^22, the stage those outside 8 .. 2^22") {
  tut::require_supported_gpu();
  two_pass_units::setup_fft_two_pass();
  const tut::fft::FftLaunch two_pass = two_pass_units::stage_two_pass_variant().launch;  // StageTwoPass::launch
  const tut::fft::FftLaunch stage = two_pass_variants().front().launch;                   // fft_two_pass::fft_two_pass
  tut::DeviceBuffer<float2> in(1 << 12), out(1 << 12);
  for (int log2n : {3, 11, 23})
    CHECK_THROWS_AS(two_pass(in.data(), out.data(), log2n, 1, nullptr, 0), std::invalid_argument);
  for (int log2n : {2, 23}) CHECK_THROWS_AS(stage(in.data(), out.data(), log2n, 1, nullptr, 0), std::invalid_argument);
  // A two-pass launch without its workspace is refused, not run on a null intermediate.
  CHECK_THROWS_AS(two_pass(in.data(), out.data(), 12, 1, nullptr, 0), std::invalid_argument);
}
