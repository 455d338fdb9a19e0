// Chapter 33: the article's batched FFT (seed 002 section 3): one thread per signal in registers for N = 8 and
// 16, N / 16 threads per signal with radix-16 passes in registers and exchanges through shared memory for
// N = 32..4096, two kernels through global memory (four-step) for N >= 8192. The stage, the article's half
// exchange and its pre-arranged layout, against cuFFT and cudaMemcpy; chapter 32's stage on demand.
#include <vector>

#include "../32-fft-shared-memory/fft_shared_memory.cuh"
#include "fft_chapter.cuh"
#include "fft_registers_exchange.cuh"

// What test.cu checks against the CPU FFT at every length: the stage and the half exchange.
std::vector<tut::fft::FftVariant> registers_exchange_variants() {
  namespace k = fft_registers_exchange;
  tut::fft::FftVariant stage;
  stage.name = "fft-registers-exchange";
  stage.description =
      "N=8,16: a thread per signal (256/block), transposed through shared memory; N=32..4096: N/16 threads "
      "per signal (2048/N signals per block), 16 values per thread, radix-16 passes in registers, shared-memory "
      "exchanges (N=2048: 128 threads, 16x16x8); N>=8192: four-step, two kernels";
  stage.min_log2n = k::kMinLog2n;
  stage.max_log2n = k::kMaxLog2n;
  stage.workspace_bytes = k::workspace_bytes;
  stage.launch = k::fft_registers_exchange;

  tut::fft::FftVariant half = stage;
  half.name = "half-exchange";
  half.description =
      "the article's warp-turn trick for N=32..4096: half the threads write, all read, then the other half; "
      "shared memory halves (N=2048: 8 KB); other N as the stage";
  half.launch = k::fft_half_exchange;
  half.on_demand = true;
  return {stage, half};
}

std::vector<tut::fft::FftVariant> all_variants() {
  namespace k = fft_registers_exchange;
  std::vector<tut::fft::FftVariant> v = registers_exchange_variants();
  tut::fft::FftVariant pre = v[0];
  pre.name = "prearranged";
  pre.description =
      "the article's N=8,16 kernel: input pre-arranged so that element r of the block's signal t is at r*W+t; "
      "each thread loads its 16 values straight into registers (coalesced 64-bit loads); other N as the stage";
  pre.launch = k::fft_prearranged;
  pre.known_defect =
      "at N=8 and 16 it expects the article's pre-arranged layout, so on natural data it transforms permuted "
      "signals (test.cu checks it on pre-arranged data)";
  pre.on_demand = true;
  v.push_back(pre);
  return v;
}

// Chapter 32's stage, to compare in one run (on demand; chapter 32's tests check it, so test.cu leaves it out).
tut::fft::FftVariant previous_stage() {
  tut::fft::FftVariant v;
  v.name = "fft-shared-memory";
  v.description = "chapter 32's stage, to compare in one run (radix-2 passes in shared memory, N > 4096: one launch "
                  "per pass)";
  v.workspace_bytes = fft_shared_memory::workspace_bytes;
  v.launch = fft_shared_memory::forward;
  v.on_demand = true;
  return v;
}

tut::ChapterSpec chapter_spec() {
  std::vector<tut::fft::FftVariant> variants = all_variants();
  variants.push_back(previous_stage());
  return tut::fft::make_fft_chapter(
      "33-fft-registers-exchange",
      "batched 1-D FFT, the article's design: registers for the butterflies, shared memory for the exchanges",
      variants);
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
