// Chapter 22: the article's register-blocked SGEMM (seed 002 §2) against cuBLAS; its three design claims
// (Csub width, float2 loads of B, Asub depth) as on-demand variants that change one thing each, and
// chapter 21's stage on demand.
#include <cstdio>
#include <ostream>
#include <vector>

#include "../21-sgemm-shared-tiling/sgemm_shared_tiling.cuh"
#include "gemm/gemm_workload.cuh"
#include "sgemm_register_blocking.cuh"

namespace rb = sgemm_register_blocking;

// The article's figures (§2), on a GeForce GTX 285 at 8192 x 8192.
constexpr double kArticleGflops = 393.0;           // its kernel
constexpr double kArticleSharedMadBound = 410.0;   // MADs with one operand in shared memory, the bound it names

std::vector<tut::gemm::GemmVariant> register_blocking_variants() {
  return {{"sgemm-register-blocking",
           "the article's kernel: 128 threads (4 x 32), Csub 16 x 256, 16 float2 accumulators per thread, Asub "
           "16 x 32 in shared memory, B read as one float2 per thread per K step from global memory",
           rb::sgemm_register_blocking, ""},
          {"csub-16x64",
           "claim 1 (global traffic): Csub 16 x 64 as in Volkov and Demmel's kernel (32 threads per block), "
           "A read 4x as often",
           rb::sgemm_csub_16x64, "", true},
          {"b-scalar-loads",
           "claim 2 (bandwidth): B read as two coalesced 32-bit floats per thread per K step (columns t and "
           "t + 128) instead of one float2",
           rb::sgemm_b_scalar_loads, "", true},
          {"asub-16x16", "claim 3 (barriers): Asub 16 x 16, two barriers per 16 K values instead of per 32",
           rb::sgemm_asub_16x16, "", true},
          {"sgemm-shared-tiling", "chapter 21's stage, to compare in one run", sgemm_shared_tiling::sgemm_shared_tiling,
           "", true}};
}

// After the error table: the article's share of its bound next to ours of the FP32 peak.
void print_article_comparison(std::ostream& os, const tut::DeviceInfo& d, const std::vector<tut::Result>& rows) {
  char line[512];
  std::snprintf(line, sizeof line,
                "\nThe article (seed 002 §2, GeForce GTX 285, 8192 x 8192): %.0f GFLOP/s = %.1f%% of the %.0f GFLOP/s "
                "it gives as the bound for MADs with a shared-memory operand.\n",
                kArticleGflops, 100.0 * kArticleGflops / kArticleSharedMadBound, kArticleSharedMadBound);
  os << line;
  for (const auto& r : rows)
    if (r.variant == "sgemm-register-blocking" && r.gflops > 0) {
      std::snprintf(line, sizeof line,
                    "This run (%s, sizes above): %.0f GFLOP/s = %.1f%% of the FP32 peak (%.0f GFLOP/s), %.2fx cuBLAS.\n",
                    d.name.c_str(), r.gflops, r.pct_peak_fp32, d.peak_fp32_gflops, r.speed_vs_ref);
      os << line;
    }
}

tut::ChapterSpec chapter_spec() {
  tut::ChapterSpec spec = tut::gemm::make_gemm_chapter(
      "22-sgemm-register-blocking",
      "the article's SGEMM: 16 x 256 tiles of C, 16 float2 accumulators per thread, B read as float2",
      register_blocking_variants());
  auto gemm_summary = spec.summary;
  spec.summary = [gemm_summary](std::ostream& os, const tut::DeviceInfo& d, const tut::Options& opt,
                                const std::vector<tut::Result>& rows) {
    gemm_summary(os, d, opt, rows);
    print_article_comparison(os, d, rows);
  };
  return spec;
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
