// Chapter 53: BF16 GEMM with a multi-stage cp.async pipeline feeding mma.sync, against cuBLAS (cublasGemmEx).
#include <string>
#include <vector>

#include "gemm_multistage.cuh"
#include "gemm_mma_sync.cuh"  // the previous stage (chapter 52)
#include "gemm_tc/tc_workload.cuh"

// A tiling's shape in words, for --list: "128 x 256 x 32 block, 8 warps of 64 x 64, 4 stages (96 KiB), ...".
template <class T>
std::string tiling_words() {
  using std::to_string;
  return to_string(T::kBlockM) + " x " + to_string(T::kBlockN) + " x " + to_string(T::kBlockK) + " block, " +
         to_string(T::kThreads / 32) + " warps of " + to_string(T::kWarpM) + " x " + to_string(T::kWarpN) + ", " +
         to_string(T::kStages) + " stages (" + to_string(T::kSharedBytes / 1024) + " KiB), " +
         to_string(T::kBlocksPerSm) + (T::kBlocksPerSm == 1 ? " block" : " blocks") + " per SM" +
         (T::kPrefetchFragments ? ", next k16 step's fragments loaded before this step's mma" : "");
}
template <class T>
tut::gemm_tc::TcVariant tiling_variant(const std::string& name) {
  return gemm_multistage::as_variant<T>(name, "another tiling of the stage's kernel: " + tiling_words<T>(), true);
}

// The stage and the other tilings its README measured (on demand: --variant NAME or all); each needs at most 96 KiB of
// shared memory, which sm_86 and sm_89 GPUs allow a block too (99 KiB).
std::vector<tut::gemm_tc::TcVariant> multistage_variants() {
  using gemm_multistage::Tiling;
  // Tiling<block M, N, K, warps M, N, stages, blocks per SM, prefetch>
  return {
      gemm_multistage::as_variant(
          "bf16-cp-async-pipeline",
          "chapter 52's mma.sync kernel fed by a multi-stage cp.async pipeline (cp.async.wait_group, one barrier per "
          "slice; " + tiling_words<gemm_multistage::Stage>() + "; sm_80+)",
          false),
      // The chapter's first tiling: chapter 52's block and warp tiles, 2 blocks per SM.
      tiling_variant<Tiling<128, 128, 32, 2, 4, 4, 2, false>>("bf16-cp-async-128x128x32-w64x32-s4"),
      tiling_variant<Tiling<128, 128, 32, 2, 4, 6, 2, false>>("bf16-cp-async-128x128x32-w64x32-s6"),
      tiling_variant<Tiling<128, 128, 32, 2, 2, 4, 2, true>>("bf16-cp-async-128x128x32-w64x64-s4"),
      tiling_variant<Tiling<128, 256, 32, 2, 4, 3, 1, true>>("bf16-cp-async-128x256x32-w64x64-s3"),
      tiling_variant<Tiling<128, 256, 32, 2, 4, 4, 1, false>>("bf16-cp-async-128x256x32-w64x64-s4-no-prefetch"),
      tiling_variant<Tiling<256, 128, 32, 4, 2, 4, 1, true>>("bf16-cp-async-256x128x32-w64x64-s4"),
  };
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
