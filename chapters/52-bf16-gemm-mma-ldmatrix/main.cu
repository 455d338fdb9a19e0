// Chapter 52: BF16 GEMM with mma.sync and ldmatrix on swizzled shared tiles, against cuBLAS (cublasGemmEx).
#include <vector>

#include "gemm_mma_sync.cuh"
#include "gemm_wmma.cuh"  // the previous stage (chapter 51)
#include "gemm_tc/tc_workload.cuh"

std::vector<tut::gemm_tc::TcVariant> mma_sync_variants() {
  return {{"bf16-mma-ldmatrix",
           "mma.sync m16n8k16 BF16 on ldmatrix.x4 fragments from XOR-swizzled shared tiles, FP32 accumulation "
           "(128 x 128 x 32 block, 8 warps of 64 x 32; sm_80+)",
           gemm_mma_sync::gemm, 80}};
}

// The stage and the previous one, so that one run measures both beside cuBLAS.
std::vector<tut::gemm_tc::TcVariant> chapter_variants() {
  std::vector<tut::gemm_tc::TcVariant> v = mma_sync_variants();
  v.push_back({"bf16-wmma", "the previous stage, chapter 51's wmma kernel, for the same-run comparison", gemm_wmma::gemm, 80});
  return v;
}

tut::ChapterSpec chapter_spec() {
  return tut::gemm_tc::make_tc_chapter("52-bf16-gemm-mma-ldmatrix",
                                       "BF16 GEMM: mma.sync on ldmatrix fragments, swizzled shared tiles",
                                       chapter_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
