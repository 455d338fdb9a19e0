// Chapter 24: SGEMM with float4 global loads and stores and A transposed in shared memory, so that both
// fragments are read with 128-bit shared loads. The stage against cuBLAS; on demand, the same kernel
// with scalar global accesses (the path taken when k or n is not a multiple of 4), and the same kernel with
// A kept as it lies in shared memory (chapter 23's layout and multiply_tile) but float4 global accesses,
// and chapter 23's stage itself.
#include <vector>

#include "gemm/gemm_workload.cuh"
#include "sgemm_vectorized_transposed.cuh"

std::vector<tut::gemm::GemmVariant> vectorized_variants() {
  return {{"sgemm-vectorized-transposed",
           "chapter 23's 8 x 8 thread tile; float4 global loads and stores, A transposed in shared memory, "
           "fragments read as float4",
           sgemm_vectorized_transposed::sgemm, ""},
          {"vectorized-transposed-scalar-global",
           "the same kernel with scalar global loads and stores (its fallback when k or n % 4 != 0): "
           "what the float4 global accesses alone buy",
           sgemm_vectorized_transposed::sgemm_scalar_global, "", /*on_demand=*/true},
          {"vectorized-untransposed-a",
           "the same kernel with A kept as it lies in shared memory (chapter 23's layout and multiply_tile), "
           "float4 global accesses kept: what the transposed A buys",
           sgemm_vectorized_transposed::sgemm_untransposed_a, "", /*on_demand=*/true},
          {"sgemm-2d-register-tile", "chapter 23's stage, to compare in one run", sgemm_2d_register_tile::sgemm, "",
           /*on_demand=*/true}};
}

tut::ChapterSpec chapter_spec() {
  return tut::gemm::make_gemm_chapter("24-sgemm-vectorized-transposed",
                                      "SGEMM: float4 loads, A transposed in shared memory", vectorized_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
