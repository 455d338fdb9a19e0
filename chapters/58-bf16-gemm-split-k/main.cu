// Chapter 58: BF16 GEMM with chapter 57's persistent kernel, its work planned at run time for the GPU and the
// problem: the band of tile-rows from the SMs in use, and K split into ranges where C has too few tiles to fill
// the SMs (partial sums into a workspace, chapter 29's reduction into C), against cuBLAS (cublasGemmEx). sm_90a only.
#include <string>
#include <vector>

#include "gemm_multistage.cuh"  // chapter 53's stage: the fallback off sm_90a
#include "gemm_persistent.cuh"  // the previous stage (chapter 57)
#include "gemm_split_k.cuh"
#include "gemm_tc/tc_workload.cuh"
#include "gemm_tma.cuh"  // chapter 55's stage, for the same-run comparison
#include "hopper/sm90a_fallback.cuh"

// The stage and its candidate (on demand: --variant NAME or --variant all). grid_blocks > 0: at most that many
// blocks (the tests' grids, smaller than the units); 0: one per SM in use.
std::vector<tut::gemm_tc::TcVariant> split_k_variants(int grid_blocks = 0) {
  return {
      gemm_split_k::as_variant<256, 4>(
          "bf16-gemm-split-k",
          "chapter 57's persistent kernel with its work planned for the GPU and the shape: bands of tile-rows for the "
          "SMs in use, and K split into ranges where C has fewer tiles than SMs (partial sums into an FP32 "
          "workspace, chapter 29's reduction into C); 128 x 256 x 64, 4 stages, one block per SM (sm_90a; "
          "K % 8 != 0 or misaligned rows: chapter 54's kernel)",
          false, 0, grid_blocks),
      gemm_split_k::as_variant<256, 4>("split-k-never",
                                       "the stage's kernel and band with K never split (one range per tile)", true,
                                       1, grid_blocks),
  };
}

// The stage, its candidate, the previous stage (on demand, under the name tools/results gives it), chapter 55's
// stage (on demand) and chapter 53's stage (the fallback where sm_90a code cannot run).
std::vector<tut::gemm_tc::TcVariant> chapter_variants() {
  std::vector<tut::gemm_tc::TcVariant> v = split_k_variants();
  v.push_back(gemm_persistent::as_variant<256, 4>(
      "bf16-gemm-persistent",
      "the previous stage, chapter 57's kernel (whole tiles, bands of 16 tile-rows fixed for 132 SMs), for the "
      "same-run comparison",
      true));
  v.push_back(gemm_tma::as_variant<128, 3>(
      "bf16-gemm-tma-mbarrier",
      "chapter 55's stage (128 x 128 x 64, 3 stages, two blocks per SM), for the same-run comparison", true));
  v.push_back(gemm_multistage::as_fallback_variant(tut::hopper::kSm90aFallbackStage));
  return v;
}

// As chapter 54: below sm_80 refused (one line, exit 2); where this program's sm_90a code cannot run, one line says
// so and chapter 53's stage takes the stage's place in a plain run; naming an sm_90a variant is refused.
tut::ChapterSpec chapter_spec() {
  return tut::hopper::sm90a_tc_chapter("58-bf16-gemm-split-k", "BF16 GEMM: split K where the tiles cannot fill the GPU",
                                       "bf16-gemm-split-k", chapter_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
