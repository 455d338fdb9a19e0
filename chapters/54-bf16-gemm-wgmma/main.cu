// Chapter 54: BF16 GEMM with wgmma (a warpgroup multiplying straight from 128-byte-swizzled shared memory),
// fed by chapter 53's multi-stage cp.async pipeline, against cuBLAS (cublasGemmEx). sm_90a only.
#include <string>
#include <vector>

#include "gemm_multistage.cuh"  // the previous stage (chapter 53)
#include "gemm_tc/tc_workload.cuh"
#include "gemm_wgmma.cuh"
#include "hopper/sm90a_fallback.cuh"

// The stage and its tile-shape candidates (on demand: --variant NAME or --variant all).
std::vector<tut::gemm_tc::TcVariant> wgmma_variants() {
  return {
      gemm_wgmma::as_variant<128, 3>(
          "bf16-gemm-wgmma",
          "2 warpgroups, each a 64 x 128 wgmma.m64n128k16 tile read from 128-byte-swizzled shared memory, fed by a "
          "3-stage cp.async pipeline (128 x 128 x 64 block, 97 KiB: two blocks per SM, registers capped at 128; "
          "sm_90a)",
          false),
      gemm_wgmma::as_variant<256, 3>(
          "wgmma-128x256-3-stages",
          "the stage's kernel with a 128 x 256 x 64 block (m64n256k16) and 3 stages (145 KiB, one block per SM)",
          true),
      gemm_wgmma::as_variant<256, 4>("wgmma-128x256-4-stages",
                                     "the 128 x 256 x 64 block with 4 stages (193 KiB, one block per SM)", true),
  };
}

// The stage, its candidates and the previous stage (on demand, under the name tools/results gives it), so that
// one run measures them beside cuBLAS.
std::vector<tut::gemm_tc::TcVariant> chapter_variants() {
  std::vector<tut::gemm_tc::TcVariant> v = wgmma_variants();
  v.push_back(gemm_multistage::as_variant(tut::hopper::kSm90aFallbackStage,
                                         "the previous stage, chapter 53's kernel (4-stage cp.async pipeline feeding "
                                         "ldmatrix + mma.sync), for the same-run comparison",
                                         true));
  return v;
}

// After the GPU check, instead of the ladder's "every variant's compute capability": below sm_80 the program is
// refused as chapter 53's is (one line, exit 2). Where this program's sm_90a code cannot run (not an sm_90 GPU, or a
// build without arch 90), one line says so and chapter 53's stage, the fallback on those GPUs, takes the stage's
// place in a plain run; naming a wgmma variant there is refused (one line, exit 2).
tut::ChapterSpec chapter_spec() {
  return tut::hopper::sm90a_tc_chapter("54-bf16-gemm-wgmma", "BF16 GEMM: wgmma from swizzled shared memory",
                                       "bf16-gemm-wgmma", chapter_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
