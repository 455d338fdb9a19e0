// Chapter 51: BF16 GEMM on the tensor cores through nvcuda::wmma fragments, against cuBLAS (cublasGemmEx).
#include <vector>

#include "gemm_tc/tc_workload.cuh"
#include "gemm_wmma.cuh"
#include "gemm_fp32_lanes.cuh"  // the previous stage (chapter 50)

std::vector<tut::gemm_tc::TcVariant> wmma_variants() {
  return {{"bf16-wmma",
           "wmma 16 x 16 x 16 BF16 fragments from padded shared tiles, FP32 accumulation (128 x 128 x 32 block, "
           "8 warps of 64 x 32; sm_80+)",
           gemm_wmma::gemm, 80}};
}

// The stage and the previous one, so that one run measures both beside cuBLAS.
std::vector<tut::gemm_tc::TcVariant> chapter_variants() {
  std::vector<tut::gemm_tc::TcVariant> v = wmma_variants();
  v.push_back({"bf16-fp32-lanes", "the previous stage, chapter 50's FP32-lane kernel, for the same-run comparison", gemm_fp32_lanes::gemm, 75});
  return v;
}

tut::ChapterSpec chapter_spec() {
  return tut::gemm_tc::make_tc_chapter("51-bf16-gemm-wmma", "BF16 GEMM: tensor cores through wmma fragments",
                                       chapter_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
