// Chapter 26: SGEMM with cp.async double buffering: the next k-slice is copied into shared memory while
// the current one is multiplied. The stage against cuBLAS, and chapter 25's stage on demand.
#include <vector>

#include "../25-sgemm-warp-tiling/sgemm_warp_tiling.cuh"
#include "gemm/gemm_workload.cuh"
#include "sgemm_double_buffering.cuh"

std::vector<tut::gemm::GemmVariant> double_buffering_variants() {
  return {{"sgemm-double-buffering",
           "chapter 25's warp-tiled kernel with two shared-memory buffers filled by cp.async (sm_80+; "
           "synchronous copies on sm_75)",
           sgemm_double_buffering::sgemm, ""},
          {"sgemm-warp-tiling", "chapter 25's stage, to compare in one run", sgemm_warp_tiling::sgemm, "",
           /*on_demand=*/true}};
}

tut::ChapterSpec chapter_spec() {
  return tut::gemm::make_gemm_chapter("26-sgemm-double-buffering",
                                      "SGEMM: cp.async double buffering of the shared-memory slices",
                                      double_buffering_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
