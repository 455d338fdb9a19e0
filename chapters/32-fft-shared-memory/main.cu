// Chapter 32: the radix-2 Stockham passes of chapter 31 inside one kernel, on a copy of each signal in shared
// memory (before the design of seed 002 section 3). The stage against cuFFT and cudaMemcpy, and chapter 31's
// stage on demand.
#include <vector>

#include "../31-fft-stockham-global/fft_stockham_global.cuh"
#include "fft_chapter.cuh"
#include "fft_shared_memory.cuh"

std::vector<tut::fft::FftVariant> shared_memory_variants() {
  tut::fft::FftVariant stage;
  stage.name = "fft-shared-memory";
  stage.description = "N <= 4096: each signal in one block's shared memory, all radix-2 passes in one kernel with "
                      "two barriers per pass (short signals share a 256-thread block); N > 4096: chapter 31's "
                      "one launch per pass";
  stage.workspace_bytes = fft_shared_memory::workspace_bytes;
  stage.launch = fft_shared_memory::forward;

  // Configurations measured to choose the stage's block (on demand: --variant NAME or all). For N > 4096 they
  // all run the same fallback as the stage.
  tut::fft::FftVariant t128 = stage;
  t128.name = "shared-128-threads";
  t128.description = "the stage with 128-thread blocks (twice the butterflies per thread, twice the signals per "
                     "block below N = 256)";
  t128.launch = fft_shared_memory::forward_with<128>;
  t128.on_demand = true;
  tut::fft::FftVariant t512 = stage;
  t512.name = "shared-512-threads";
  t512.description = "the stage with 512-thread blocks (half the butterflies per thread)";
  t512.launch = fft_shared_memory::forward_with<512>;
  t512.on_demand = true;
  tut::fft::FftVariant one = stage;
  one.name = "one-signal-per-block";
  one.description = "one signal per block, literally: min(256, N/2) threads, so N = 8 runs blocks of 4 threads";
  one.launch = fft_shared_memory::forward_with<256, true>;
  one.on_demand = true;
  return {stage, t128, t512, one};
}

// Chapter 31's stage, to compare in one run (on demand; chapter 31's tests check it, so test.cu leaves it out).
tut::fft::FftVariant previous_stage() {
  tut::fft::FftVariant v;
  v.name = "fft-stockham-global";
  v.description = "chapter 31's stage, to compare in one run (radix-2 Stockham, one launch per pass)";
  v.workspace_bytes = fft_stockham_global::workspace_bytes;
  v.launch = fft_stockham_global::forward;
  v.on_demand = true;
  return v;
}

tut::ChapterSpec chapter_spec() {
  std::vector<tut::fft::FftVariant> variants = shared_memory_variants();
  variants.push_back(previous_stage());
  return tut::fft::make_fft_chapter("32-fft-shared-memory",
                                    "batched 1-D FFT: every radix-2 pass of a signal in shared memory, one kernel",
                                    variants);
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
