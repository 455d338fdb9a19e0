// GPU tests for chapter 27: the SGEMM ladder's tests, plus the scalar fallback taken for misaligned
// pointers (same bits as the float4 path) and cases specific to this stage.
#include "alignment_testing.cuh"
#include "gemm/gemm_testing.cuh"
#include "tuned_candidates.hpp"  // main.cu, compiled once into the units library

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

// This process plans in a folder of its own (no test reads a plan another run cached).
const tut::testing::ScopedPlanDir kTestPlans;

// Under compute-sanitizer, where every launch is tens of times slower, the candidates that together take
// every code path: the stage, 2 and 4 stages, the 8 x 4 lane grid, 128-thread blocks with 16 x 8 thread
// tiles, the 128 x 256 tile with the banded order, and the two off-switches (chapter 26's two-barrier
// schedule, for racecheck and synccheck; the per-element copies, for memcheck).
const std::set<std::string> kSanitizerSubset = {
    "sgemm-tuned",
    "tuned-128x128x8-w32x64-t8x8-s2",
    "tuned-128x128x16-w64x32-t8x8-s3",
    "tuned-128x128x16-w32x64-t8x8-s4",
    "tuned-128x128x8-w64x64-t16x8-s3",
    "tuned-128x256x16-w64x64-t16x8-s3-g8",
    "tuned-two-barriers",
    "tuned-no-copy-plan",
};

// The variants whose shared memory this GPU can hold (all on sm_80+; sm_75 allows 64 KiB per block, so the
// candidates above 64 KiB are skipped there, with a message: their launcher refuses them with one sentence).
std::vector<tut::gemm::GemmVariant> variants_that_fit() {
  int device = 0, optin = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const bool subset = tut::testing::under_sanitizer();
  if (subset) MESSAGE("under compute-sanitizer: the stage, 5 candidates and 2 off-switch variants that cover every "
                      "code path");
  std::vector<tut::gemm::GemmVariant> out;
  for (auto& c : tuned_candidates()) {
    if (subset && kSanitizerSubset.count(c.variant.name) == 0) continue;
    if (c.shared_bytes <= optin)
      out.push_back(std::move(c.variant));
    else
      MESSAGE(c.variant.name << " skipped: needs " << c.shared_bytes << " bytes of shared memory per block, this GPU allows "
                             << optin);
  }
  return out;
}

TUT_GEMM_CHAPTER_TESTS(chapter_spec(), variants_that_fit())

TEST_CASE("27: slice counts around the pipeline depth (fewer slices than stages, one more, several)") {
  tut::gemm::testing::check_variants_at(variants_that_fit(), {{256, 256, 8}, {256, 256, 16}, {256, 256, 40}, {256, 256, 72}, {257, 255, 33}});
}

TEST_CASE("27: band order with a short last band (tile-rows not a multiple of the band height)") {
  tut::gemm::testing::check_variants_at(variants_that_fit(), {{9 * 128 + 5, 3 * 256 + 4, 32}, {1200, 640, 24}});
}

TEST_CASE("27: misaligned A, B and C take the 4-byte path and give the same bits") {
  sgemm_alignment_testing::check_all_misaligned(variants_that_fit());
}

// The stage's plan (TunedStage): each of its candidates is a variant tested above; here each is what the stage runs
// when a cached plan names it, and a cached plan naming a configuration the stage does not have is ignored with one
// line and measured again. Any shape measures where more than one candidate fits (sm_80 and newer).
TEST_CASE("27: the plan: each candidate a cached plan names is what the stage runs; an unknown one is replanned") {
  tut::require_supported_gpu();
  const std::vector<std::string> fit = stage_candidates_that_fit(tuned_candidates());
  std::optional<tut::gemm::testing::Shape> measured_at;  // none where one candidate fits (sm_75): the model's plan
  if (fit.size() >= 2) measured_at = tut::gemm::testing::Shape{1000, 1100, 300};
  tut::gemm::testing::check_stage_plan(tuned_candidates().front().variant, measured_at, fit,
                                       [](const std::string& choice, const std::string& ran) {
                                         return ran.rfind(choice + ":", 0) == 0;  // "<variant>: <its configuration>"
                                       });
}
