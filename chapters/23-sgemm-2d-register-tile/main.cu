// Chapter 23: SGEMM where each thread computes an 8 x 8 tile of C from outer products of register
// fragments, both operands staged in shared memory. The stage against cuBLAS, and chapter 22's stage on demand.
#include <vector>

#include "../22-sgemm-register-blocking/sgemm_register_blocking.cuh"
#include "gemm/gemm_workload.cuh"
#include "sgemm_2d_register_tile.cuh"

std::vector<tut::gemm::GemmVariant> register_tile_variants() {
  return {{"sgemm-2d-register-tile",
           "128 x 128 x 8 block tile, 256 threads, each an 8 x 8 tile of C: 8 + 8 shared loads feed 64 FFMAs",
           sgemm_2d_register_tile::sgemm, ""},
          {"sgemm-register-blocking", "chapter 22's stage, to compare in one run",
           sgemm_register_blocking::sgemm_register_blocking, "", /*on_demand=*/true}};
}

tut::ChapterSpec chapter_spec() {
  return tut::gemm::make_gemm_chapter("23-sgemm-2d-register-tile",
                                      "SGEMM: 8 x 8 register tile per thread, A and B staged in shared memory",
                                      register_tile_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
