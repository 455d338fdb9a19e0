// Chapter 34: higher radices (every N <= 4096 in two passes, one shared-memory exchange; N = 32 in one thread)
// and twiddle factors from a table computed once, against chapter 33's sincospif per value and pass (kept as
// an on-demand variant). Against cuFFT and cudaMemcpy; chapter 33's stage on demand.
#include <vector>

#include "../33-fft-registers-exchange/fft_registers_exchange.cuh"
#include "fft_chapter.cuh"
#include "fft_high_radix.cuh"

std::vector<tut::fft::FftVariant> high_radix_variants() {
  namespace k = fft_high_radix;
  tut::fft::FftVariant stage;
  stage.name = "fft-high-radix";
  stage.description =
      "N=8,16,32: a thread per signal; N=64..4096: N/E threads per signal (blocks of 128 threads where the "
      "buffers fit), two passes N = E x N/E, E = 8..64 values per thread (N=4096: 64x64), one shared-memory "
      "exchange; twiddles from a 4096-entry table; N>=8192: four-step, two kernels";
  stage.min_log2n = k::kMinLog2n;
  stage.max_log2n = k::kMaxLog2n;
  stage.workspace_bytes = k::workspace_bytes;
  stage.setup = tut::fft::setup_twiddle_table;  // once per device, before any run (the launch only checks)
  stage.forget_setup = tut::fft::discard_twiddle_table;  // this file's table (the test of the launch's refusal)
  stage.launch = k::fft_high_radix;

  tut::fft::FftVariant sincos = stage;
  sincos.name = "sincospif-twiddles";
  sincos.description = "the stage with every in-block twiddle computed by sincospif, as in chapter 33";
  sincos.setup = nullptr;  // no table to fill
  sincos.forget_setup = nullptr;
  sincos.launch = k::fft_sincospif;
  sincos.on_demand = true;
  return {stage, sincos};
}

// Chapter 33's stage, to compare in one run (on demand; chapter 33's tests check it, so neither test here has it).
tut::fft::FftVariant previous_stage() {
  namespace k = fft_registers_exchange;
  tut::fft::FftVariant v;
  v.name = "fft-registers-exchange";
  v.description = "chapter 33's stage, to compare in one run (radix-16 passes in registers, sincospif twiddles)";
  v.min_log2n = k::kMinLog2n;
  v.max_log2n = k::kMaxLog2n;
  v.workspace_bytes = k::workspace_bytes;
  v.launch = k::fft_registers_exchange;
  v.on_demand = true;
  return v;
}

tut::ChapterSpec chapter_spec() {
  std::vector<tut::fft::FftVariant> variants = high_radix_variants();
  variants.push_back(previous_stage());
  return tut::fft::make_fft_chapter("34-fft-high-radix",
                                    "batched 1-D FFT: higher radices (one exchange up to N=4096), twiddle table",
                                    variants);
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
