// Chapter 56: BF16 GEMM with warp specialisation: a producer warpgroup that only issues TMA and gives its registers
// to two consumer warpgroups (setmaxnreg) that only issue wgmma, one group in flight across slices, against cuBLAS
// (cublasGemmEx). sm_90a only.
#include <string>
#include <vector>

#include "gemm_multistage.cuh"  // chapter 53's stage: the fallback off sm_90a
#include "gemm_tc/tc_workload.cuh"
#include "gemm_tma.cuh"  // the previous stage (chapter 55)
#include "gemm_warp_specialized.cuh"
#include "hopper/sm90a_fallback.cuh"

// The stage and its tile-shape candidates (on demand: --variant NAME or --variant all).
std::vector<tut::gemm_tc::TcVariant> warp_specialized_variants() {
  return {
      gemm_warp_specialized::as_variant<256, 4>(
          "bf16-gemm-warp-specialized",
          "a producer warpgroup issues the TMA loads and gives its registers (setmaxnreg) to two consumer warpgroups "
          "that only issue wgmma, one group in flight across slices (128 x 256 x 64, 4 stages, 193 KiB, 384 threads; "
          "sm_90a; K % 8 != 0 or misaligned rows: chapter 54's kernel)",
          false),
      gemm_warp_specialized::as_variant<256, 3>(
          "ws-128x256-3-stages",
          "the stage's kernel with 3 stages (145 KiB)",
          true),
      gemm_warp_specialized::as_variant<128, 6>(
          "ws-128x128-6-stages",
          "the stage's kernel with a 128 x 128 x 64 block (m64n128k16) and 6 stages (193 KiB)",
          true),
      gemm_warp_specialized::as_variant<256, 4, false>(
          "ws-without-setmaxnreg",
          "the stage's kernel with no register reallocation: every warpgroup keeps the count ptxas gives the kernel",
          true),
  };
}

// The stage, its candidates, the previous stage (on demand, under the name tools/results gives it) and chapter
// 53's stage (the fallback where sm_90a code cannot run).
std::vector<tut::gemm_tc::TcVariant> chapter_variants() {
  std::vector<tut::gemm_tc::TcVariant> v = warp_specialized_variants();
  v.push_back(gemm_tma::as_variant<128, 3>("bf16-gemm-tma-mbarrier",
                                           "the previous stage, chapter 55's kernel (thread 0 loads and multiplies, "
                                           "wgmma.wait_group 0 every slice), for the same-run comparison",
                                           true));
  v.push_back(gemm_multistage::as_fallback_variant(tut::hopper::kSm90aFallbackStage));
  return v;
}

// As chapter 54: below sm_80 refused (one line, exit 2); where this program's sm_90a code cannot run, one line says
// so and chapter 53's stage takes the stage's place in a plain run; naming an sm_90a variant is refused.
tut::ChapterSpec chapter_spec() {
  return tut::hopper::sm90a_tc_chapter("56-bf16-gemm-warp-specialized",
                                       "BF16 GEMM: warp specialisation with register reallocation",
                                       "bf16-gemm-warp-specialized", chapter_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
