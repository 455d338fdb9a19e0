// Chapter 20: the naive SGEMM, one thread per element of C, with threadIdx.x along N (coalesced) as the
// stage and along M (uncoalesced) on demand, against cuBLAS.
#include <vector>

#include "gemm/gemm_workload.cuh"
#include "sgemm_naive.cuh"

std::vector<tut::gemm::GemmVariant> naive_variants() {
  return {{"sgemm-naive",
           "one thread per element of C, threadIdx.x along N: a warp reads one 128-byte line of B and one "
           "broadcast float of A per step",
           sgemm_naive::sgemm_naive, ""},
          {"naive-uncoalesced",
           "the same kernel with threadIdx.x along M: a warp reads 32 floats of A that are K floats apart "
           "(32 lines) per step",
           sgemm_naive::sgemm_naive_uncoalesced, "", true}};
}

tut::ChapterSpec chapter_spec() {
  return tut::gemm::make_gemm_chapter("20-sgemm-naive", "naive SGEMM: one thread per element of C",
                                      naive_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
