// Chapter 55: BF16 GEMM with TMA loads into 128-byte-swizzled shared memory and an mbarrier pipeline feeding
// chapter 54's wgmma warpgroups, against cuBLAS (cublasGemmEx). sm_90a only.
#include <string>
#include <vector>

#include "gemm_multistage.cuh"  // chapter 53's stage: the fallback off sm_90a
#include "gemm_tc/tc_workload.cuh"
#include "gemm_tma.cuh"
#include "gemm_wgmma.cuh"  // the previous stage (chapter 54)
#include "hopper/sm90a_fallback.cuh"

// The stage and its tile-shape candidates (on demand: --variant NAME or --variant all).
std::vector<tut::gemm_tc::TcVariant> tma_variants() {
  return {
      gemm_tma::as_variant<128, 3>(
          "bf16-gemm-tma-mbarrier",
          "chapter 54's wgmma kernel fed by TMA: one thread loads each slice's A and B boxes, full and empty mbarriers "
          "per stage instead of cp.async and a block barrier (128 x 128 x 64, 3 stages, 97 KiB, two blocks per SM; "
          "sm_90a; K % 8 != 0 or misaligned rows: chapter 54's kernel)",
          false),
      gemm_tma::as_variant<256, 3>(
          "tma-128x256-3-stages",
          "the stage's kernel with a 128 x 256 x 64 block (m64n256k16) and 3 stages (145 KiB, one block per SM)",
          true),
      gemm_tma::as_variant<256, 4>("tma-128x256-4-stages", "the 128 x 256 x 64 block with 4 stages (193 KiB)", true),
  };
}

// The stage, its candidates, the previous stage (on demand, under the name tools/results gives it) and chapter
// 53's stage (the fallback where sm_90a code cannot run).
std::vector<tut::gemm_tc::TcVariant> chapter_variants() {
  std::vector<tut::gemm_tc::TcVariant> v = tma_variants();
  v.push_back(gemm_wgmma::as_variant<128, 3>("bf16-gemm-wgmma",
                                             "the previous stage, chapter 54's kernel (cp.async pipeline and block "
                                             "barriers feeding wgmma), for the same-run comparison",
                                             true));
  v.push_back(gemm_multistage::as_fallback_variant(tut::hopper::kSm90aFallbackStage));
  return v;
}

// As chapter 54: below sm_80 refused (one line, exit 2); where this program's sm_90a code cannot run, one line says
// so and chapter 53's stage takes the stage's place in a plain run; naming an sm_90a variant is refused.
tut::ChapterSpec chapter_spec() {
  return tut::hopper::sm90a_tc_chapter("55-bf16-gemm-tma-mbarrier",
                                       "BF16 GEMM: TMA and an mbarrier pipeline feeding wgmma", "bf16-gemm-tma-mbarrier",
                                       chapter_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
