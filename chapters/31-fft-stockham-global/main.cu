// Chapter 31: the radix-2 Stockham autosort FFT with one launch per pass through global memory (before the
// design of seed 002 section 3). The stage against cuFFT and cudaMemcpy.
#include <vector>

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

tut::ChapterSpec chapter_spec() {
  return tut::fft::make_fft_chapter("31-fft-stockham-global",
                                    "batched 1-D FFT: radix-2 Stockham, one launch per pass in global memory",
                                    stockham_global_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
