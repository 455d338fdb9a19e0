// Chapter 59: BF16 GEMM that picks, per shape and GPU, the fastest of four kernels of the ladder (chapter 58's
// persistent split-K kernel, chapter 55's two-blocks-per-SM kernel, chapter 57's ping-pong kernel and its
// epilogue-prefetch candidate) by timing them at set-up and caching the choice, against cuBLAS (cublasGemmEx).
// sm_90a only.
#include <memory>
#include <string>
#include <vector>

#include "gemm_by_shape.cuh"
#include "gemm_multistage.cuh"  // chapter 53's stage: the fallback off sm_90a
#include "gemm_persistent.cuh"   // chapter 57's kernel with the epilogue candidates' epilogue, a candidate
#include "gemm_pingpong.cuh"     // chapter 57's ping-pong kernel, a candidate
#include "gemm_split_k.cuh"     // the previous stage (chapter 58), a candidate
#include "gemm_tc/tc_workload.cuh"
#include "gemm_tma.cuh"  // chapter 55's stage, a candidate
#include "hopper/sm90a_fallback.cuh"

// The candidates the stage chooses between, chapter 58's (the default where no plan saw the shape) first. Each is
// also a variant of its own, under its chapter's stage name (on demand).
std::vector<tut::gemm_tc::TcVariant> by_shape_candidates() {
  return {
      gemm_split_k::as_variant<256, 4>(
          "bf16-gemm-split-k",
          "chapter 58's stage: one 128 x 256 tile per SM, persistent, K split where C has fewer tiles than SMs", true),
      gemm_tma::as_variant<128, 3>(
          "bf16-gemm-tma-mbarrier",
          "chapter 55's stage: 128 x 128 x 64, 3 stages, two blocks per SM that cover each other's epilogues", true),
      gemm_pingpong::as_variant(
          "ping-pong",
          "chapter 57's ping-pong kernel: one block per SM whose two consumer warpgroups take whole 128 x 128 tiles "
          "in turns, so one stores its tile while the other multiplies",
          true),
      gemm_persistent::as_variant<256, 4, gemm_persistent::kStageBandRows,
                                  gemm_persistent::CEpilogue::kBatchedPrefetch>(
          "epilogue-prefetch",
          "chapter 57's epilogue candidate: the stage's persistent 128 x 256 kernel whose epilogue loads C in batches "
          "(one memory round trip per 16 fragments, not per float2), C prefetched into L2 by the producer",
          true),
  };
}

// The planned stage, with the plan it made last (the tests read its choice).
struct ByShapeStage {
  std::shared_ptr<gemm_by_shape::PlannedTcGemm> planned =
      std::make_shared<gemm_by_shape::PlannedTcGemm>(by_shape_candidates());
  tut::gemm_tc::TcVariant variant = gemm_by_shape::as_variant(
      "bf16-gemm-by-shape",
      "per shape and GPU the fastest of chapter 58's and chapter 55's stages and chapter 57's ping-pong and "
      "epilogue-prefetch kernels, "
      "timed at set-up on the problem's operands and cached per GPU and shape class (plan line; --replan measures "
      "again); K not a multiple of 8: on copies of A and B padded to one; sm_90a",
      planned);
};

// The stage, its candidates (on demand) and chapter 53's stage (the fallback where sm_90a code cannot run).
std::vector<tut::gemm_tc::TcVariant> chapter_variants() {
  std::vector<tut::gemm_tc::TcVariant> v = {ByShapeStage{}.variant};
  for (tut::gemm_tc::TcVariant& c : by_shape_candidates()) v.push_back(std::move(c));
  v.push_back(gemm_multistage::as_fallback_variant(tut::hopper::kSm90aFallbackStage));
  return v;
}

// As chapter 54: below sm_80 refused (one line, exit 2); where this program's sm_90a code cannot run, one line says
// so and chapter 53's stage takes the stage's place in a plain run; naming an sm_90a variant is refused.
tut::ChapterSpec chapter_spec() {
  return tut::hopper::sm90a_tc_chapter("59-bf16-gemm-by-shape", "BF16 GEMM: the kernel chosen per shape, by measuring",
                                       "bf16-gemm-by-shape", chapter_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
