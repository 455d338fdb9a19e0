// Chapter 53: BF16 GEMM with a 4-stage cp.async pipeline feeding mma.sync, against cuBLAS (cublasGemmEx).
#include <vector>

#include "gemm_multistage.cuh"
#include "gemm_mma_sync.cuh"  // the previous stage (chapter 52)
#include "gemm_tc/tc_workload.cuh"

std::vector<tut::gemm_tc::TcVariant> multistage_variants() {
  return {gemm_multistage::as_variant(
      "bf16-cp-async-pipeline",
      "chapter 52's mma.sync kernel fed by a 4-stage cp.async pipeline (cp.async.wait_group, one barrier per "
      "32-deep slice; 128 x 128 x 32 block, 8 warps of 64 x 32; sm_80+)",
      false)};
}

// The stage and the previous one, so that one run measures both beside cuBLAS.
std::vector<tut::gemm_tc::TcVariant> chapter_variants() {
  std::vector<tut::gemm_tc::TcVariant> v = multistage_variants();
  v.push_back({"bf16-mma-ldmatrix", "the previous stage, chapter 52's mma.sync kernel (synchronous copies), for the same-run comparison", gemm_mma_sync::gemm, 80});
  return v;
}

tut::ChapterSpec chapter_spec() {
  return tut::gemm_tc::make_tc_chapter("53-bf16-gemm-cp-async-pipeline",
                                       "BF16 GEMM: a multi-stage cp.async pipeline feeding mma.sync",
                                       chapter_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
