// Chapter 30: the direct DFT, the baseline of the batched FFT ladder (seed 002 section 3 starts from cuFFT and
// an FFT; this chapter shows what the FFT saves). The stage against cuFFT and cudaMemcpy.
#include <vector>

#include "fft_chapter.cuh"
#include "fft_dft.cuh"

std::vector<tut::fft::FftVariant> dft_variants() {
  tut::fft::FftVariant dft;
  dft.name = "fft-dft";
  dft.description = "direct O(N^2) DFT, one thread per output, twiddles by sincospif on the exact phase (j*k mod N)";
  dft.max_log2n = fft_dft::kMaxLog2n;
  dft.launch = fft_dft::forward;
  return {dft};
}

tut::ChapterSpec chapter_spec() {
  return tut::fft::make_fft_chapter("30-fft-dft", "batched 1-D FFT: the direct O(N^2) DFT as the baseline",
                                    dft_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
