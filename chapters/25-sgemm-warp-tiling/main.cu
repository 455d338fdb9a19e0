// Chapter 25: SGEMM with a warp tile between the block tile and the thread tile: each warp owns a
// 32 x 64 tile of C, each lane four 4 x 4 quads of it. The stage against cuBLAS, and chapter 24's stage
// on demand.
#include <vector>

#include "../24-sgemm-vectorized-transposed/sgemm_vectorized_transposed.cuh"
#include "gemm/gemm_workload.cuh"
#include "sgemm_warp_tiling.cuh"

std::vector<tut::gemm::GemmVariant> warp_tiling_variants() {
  return {{"sgemm-warp-tiling",
           "128 x 128 x 8 block tile = 4 x 2 warp tiles of 32 x 64; each lane 2 x 2 quads of 4 x 4 (8 x 8 "
           "results): conflict-free 128-bit shared loads",
           sgemm_warp_tiling::sgemm, ""},
          {"sgemm-vectorized-transposed", "chapter 24's stage, to compare in one run",
           sgemm_vectorized_transposed::sgemm, "", /*on_demand=*/true}};
}

tut::ChapterSpec chapter_spec() {
  return tut::gemm::make_gemm_chapter("25-sgemm-warp-tiling", "SGEMM: warp tiles of 4 x 4 lane quads",
                                      warp_tiling_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
