// Chapter 21: SGEMM with 32 x 32 shared-memory tiles, one element of C per thread, against the naive
// kernel of chapter 20 (on demand) and cuBLAS.
#include <vector>

#include "../20-sgemm-naive/sgemm_naive.cuh"
#include "gemm/gemm_workload.cuh"
#include "sgemm_shared_tiling.cuh"

std::vector<tut::gemm::GemmVariant> shared_tiling_variants() {
  return {{"sgemm-shared-tiling",
           "32 x 32 threads, 32 x 32 tiles of A and B staged in shared memory per K step: 2 global loads per "
           "32 FMAs instead of per FMA",
           sgemm_shared_tiling::sgemm_shared_tiling, ""},
          {"sgemm-naive", "chapter 20's stage, to compare in one run (--variant sgemm-shared-tiling,sgemm-naive)",
           sgemm_naive::sgemm_naive, "", true}};
}

tut::ChapterSpec chapter_spec() {
  return tut::gemm::make_gemm_chapter("21-sgemm-shared-tiling",
                                      "SGEMM with 32 x 32 shared-memory tiles, one element of C per thread",
                                      shared_tiling_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
