// Test of exercise 53: the pipeline's schedule. On the host, with the schedule itself: at every iteration the slice
// read, the slices in flight and the slice whose copy starts have kStages different stages, and the wait depth is the
// largest after which slice s has surely landed. On the GPU: chapter 53's kernel with the schedule against cuBLAS and
// the FP64 CPU reference at the tensor-core ladder's shapes (common/gemm_tc/tc_testing.cuh) and at 1 to 7 slices of
// K. A wait that lets slice s's own group stay in flight is a race, which a GPU run may or may not show: the host
// check always does. The GPU part needs compute capability 8.0+ (else exit 77, meson's SKIP). The same source tests
// the exercise and the solution.
#include <cp_async_wait_depth.cuh>

#include <string>

#include "tc_exercise_testing.cuh"

namespace {

using Schedule = cp_async_wait_depth::Schedule;
constexpr int kStages = gemm_multistage::kStages;

// What slice s + j is at iteration s: j = 0 is read by the tensor cores, 1 ... kStages - 2 are in flight (or
// landed, unread), kStages - 1 is the one whose copy this iteration starts.
std::string role(int s, int j) {
  const std::string slice = "slice " + std::to_string(s + j);
  if (j == 0) return slice + " (the one the warps read in this iteration)";
  if (j == kStages - 1) return slice + " (whose copy this iteration starts)";
  return slice + " (still in flight, read at iteration " + std::to_string(s + j) + ")";
}

tut::gemm_tc::TcVariant with_your_schedule() {
  return tc_exercise::variant_under_test("53-cp-async-wait-depth", "cp-async-wait-depth",
                                         gemm_multistage::gemm_multistage_kernel<cp_async_wait_depth::Schedule>,
                                         cp_async_wait_depth::gemm, [](int, int, int) { cp_async_wait_depth::setup(); });
}

}  // namespace

TEST_CASE("53: at every iteration, the slice read, the slices in flight and the one being copied have their own stages") {
  for (int s = 0; s < 64; ++s)
    for (int j = 0; j < kStages; ++j) {
      const int stage = Schedule::stage_of(s + j);
      REQUIRE_MESSAGE((stage >= 0 && stage < kStages), "MISMATCH: stage_of(" << s + j << ") = " << stage
                                                           << ": the stages are 0 ... " << kStages - 1);
      for (int i = 0; i < j; ++i)
        REQUIRE_MESSAGE(Schedule::stage_of(s + i) != stage,
                        "MISMATCH: at iteration " << s << ", " << role(s, i) << " and " << role(s, j)
                                                  << " are both in stage " << stage
                                                  << ": one's copy overwrites the other while it is still needed");
    }
}

TEST_CASE("53: the wait leaves kStages - 2 slices in flight, and slice s has landed when it is read") {
  // At iteration s, kStages - 1 + s groups are committed (the prologue's kStages - 1 and one per earlier iteration,
  // empty ones included); group g holds slice g. After cp.async.wait_group D, all but the newest D have landed.
  const int depth = Schedule::kWaitDepth;
  const int in_flight_after_s = kStages - 2;  // groups newer than slice s's at its wait: s + 1 ... s + kStages - 2
  REQUIRE_MESSAGE(depth <= in_flight_after_s,
                  "MISMATCH: wait_group " << depth << ": when iteration s waits, slice s's group has only "
                      << in_flight_after_s << " newer groups, so with " << depth << " groups allowed in flight "
                      << "slice s's copies may not have landed when ldmatrix reads its stage (a race: wrong values "
                      "on some runs, right ones on others)");
  CHECK_MESSAGE(depth == in_flight_after_s,
                "MISMATCH: wait_group " << depth << " is safe but also waits for slices s + 1 ... s + "
                    << in_flight_after_s - depth << ", which are not read yet: their copies no longer overlap the "
                    "tensor cores' work on slice s. The largest safe depth keeps " << in_flight_after_s
                    << " slices in flight");
}

TEST_CASE("53: the pipelined kernel with your schedule matches cuBLAS and the CPU reference at every shape") {
  // 1 to 7 slices (the prologue alone, every stage reused, a ragged last slice).
  tc_exercise::check_kernel(with_your_schedule(), {{128, 128, 32}, {128, 128, 64}, {128, 128, 96}, {128, 128, 128},
                                                   {128, 128, 160}, {129, 131, 165}, {96, 200, 224}});
}

TEST_CASE("measure" * doctest::skip()) {
  tc_exercise::measure("53-cp-async-wait-depth",
                       {"bf16-cp-async-pipeline", "chapter 53's stage", gemm_multistage::gemm, 80, false,
                        [](int, int, int) { gemm_multistage::setup_gemm_multistage(); }},
                       with_your_schedule());
}
