// Chapter 31: the radix-2 Stockham autosort FFT with one launch per pass through global memory (before the
// design of seed 002 section 3). The stage against cuFFT and cudaMemcpy, and chapter 30's stage on demand.
#include <vector>

#include "../30-fft-dft/fft_dft.cuh"
#include "fft_chapter.cuh"
#include "fft_stockham_global.cuh"

std::vector<tut::fft::FftVariant> stockham_global_variants() {
  tut::fft::FftVariant stage;
  stage.name = "fft-stockham-global";
  stage.description = "radix-2 Stockham autosort, one launch per pass (log2 N passes), ping-pong through a "
                      "global workspace; twiddles by sincospif on the exact phase";
  stage.workspace_bytes = fft_stockham_global::workspace_bytes;
  stage.launch = fft_stockham_global::forward;
  return {stage};
}

// Chapter 30's stage, to compare in one run (on demand; chapter 30's tests check it, so test.cu leaves it out).
tut::fft::FftVariant previous_stage() {
  tut::fft::FftVariant dft;
  dft.name = "fft-dft";
  dft.description = "chapter 30's stage, to compare in one run (direct O(N^2) DFT, N <= 2^14)";
  dft.max_log2n = fft_dft::kMaxLog2n;
  dft.launch = fft_dft::forward;
  dft.on_demand = true;
  return dft;
}

tut::ChapterSpec chapter_spec() {
  std::vector<tut::fft::FftVariant> variants = stockham_global_variants();
  variants.push_back(previous_stage());
  return tut::fft::make_fft_chapter("31-fft-stockham-global",
                                    "batched 1-D FFT: radix-2 Stockham, one launch per pass in global memory",
                                    variants);
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
