// Chapter 50: BF16 GEMM on the FP32 lanes, the tensor-core ladder's baseline, against cuBLAS (cublasGemmEx).
#include <vector>

#include "gemm_fp32_lanes.cuh"
#include "gemm_tc/tc_workload.cuh"

std::vector<tut::gemm_tc::TcVariant> fp32_lanes_variants() {
  return {{"bf16-fp32-lanes",
           "the SGEMM ladder's 2-D register tile (128 x 128 block, 8 x 8 per thread) on BF16 inputs converted "
           "to FP32: every multiply-add on the FP32 lanes",
           gemm_fp32_lanes::gemm, 75}};
}

tut::ChapterSpec chapter_spec() {
  return tut::gemm_tc::make_tc_chapter("50-bf16-gemm-fp32-lanes",
                                       "BF16 GEMM on the FP32 lanes: the ceiling tensor cores remove",
                                       fp32_lanes_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
