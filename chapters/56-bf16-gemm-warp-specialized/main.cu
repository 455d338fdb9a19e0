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

namespace {

// One tile shape as a variant: the launch and its set-up (the sm_90a check and the shared-memory opt-ins).
template <int kBlockN, int kStages, bool kMoveRegisters = true>
tut::gemm_tc::TcVariant warp_specialized_variant(const std::string& name, const std::string& description,
                                                 bool on_demand) {
  return {name, description, gemm_warp_specialized::gemm<kBlockN, kStages, kMoveRegisters>, 90, on_demand,
          [name](int, int, int) {
            gemm_warp_specialized::setup_gemm_warp_specialized<kBlockN, kStages, kMoveRegisters>(name);
          }};
}

}  // namespace

// The stage and its tile-shape candidates (on demand: --variant NAME or --variant all).
std::vector<tut::gemm_tc::TcVariant> warp_specialized_variants() {
  return {
      warp_specialized_variant<256, 4>(
          "bf16-gemm-warp-specialized",
          "a producer warpgroup issues the TMA loads and gives its registers (setmaxnreg) to two consumer warpgroups "
          "that only issue wgmma, one group in flight across slices (128 x 256 x 64, 4 stages, 193 KiB, 384 "
          "threads; sm_90a; K % 8 != 0 or misaligned rows: chapter 54's kernel)",
          false),
      warp_specialized_variant<256, 3>("ws-128x256-3-stages", "the stage's kernel with 3 stages (145 KiB)", true),
      warp_specialized_variant<128, 6>("ws-128x128-6-stages",
                                       "the stage's kernel with a 128 x 128 x 64 block (m64n128k16) and 6 stages "
                                       "(193 KiB)",
                                       true),
      warp_specialized_variant<256, 4, false>("ws-without-setmaxnreg",
                                              "the stage's kernel with no register reallocation: every warpgroup "
                                              "keeps the count ptxas gives the kernel",
                                              true),
  };
}

// The stage, its candidates, the previous stage (on demand, under the name tools/results gives it) and chapter
// 53's stage (the fallback where sm_90a code cannot run).
std::vector<tut::gemm_tc::TcVariant> chapter_variants() {
  std::vector<tut::gemm_tc::TcVariant> v = warp_specialized_variants();
  v.push_back({"bf16-gemm-tma-mbarrier",
               "the previous stage, chapter 55's kernel (thread 0 loads and multiplies, wgmma.wait_group 0 every "
               "slice), for the same-run comparison",
               gemm_tma::gemm<128, 3>, 90, true,
               [](int, int, int) { gemm_tma::setup_gemm_tma<128, 3>("bf16-gemm-tma-mbarrier"); }});
  v.push_back({"bf16-gemm-cp-async-pipeline",
               "chapter 53's stage (cp.async pipeline feeding ldmatrix + mma.sync): the fallback off sm_90a",
               gemm_multistage::gemm, 80, true, [](int, int, int) { gemm_multistage::setup_gemm_multistage(); }});
  return v;
}

tut::ChapterSpec chapter_spec() {
  tut::ChapterSpec spec = tut::gemm_tc::make_tc_chapter("56-bf16-gemm-warp-specialized",
                                                        "BF16 GEMM: warp specialisation with register reallocation",
                                                        chapter_variants());
  // As chapter 54: below sm_80 refused (one line, exit 2); where this program's sm_90a code cannot run, one line
  // says so and chapter 53's stage takes the stage's place in a plain run; naming an sm_90a variant is refused.
  spec.resolve =
      tut::hopper::sm90a_or_fallback("bf16-gemm-warp-specialized", chapter_variants(), "bf16-gemm-cp-async-pipeline");
  return spec;
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
