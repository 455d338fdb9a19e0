// The stage's plan per GPU (docs/tuning-per-gpu.md): which configuration fft_one_block_large() runs at each length
// on this GPU, and why (common/fft/fft_plan.cuh chooses). At N = 8192 and 16384 the candidates are the stage's
// shape (E = 32, one signal per block) and e16 (E = 16, twice the threads): both load a whole signal per block,
// so both keep far more in flight than Little's law asks on an H100 or H200 and a short search decides. A GPU
// whose blocks cannot hold a signal runs chapter 35's four-step there (one configuration); every other length
// takes chapter 35's candidates (../35-fft-tuned/stage_plan.cuh).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "../35-fft-tuned/stage_plan.cuh"
#include "cuda_check.cuh"
#include "fft_chapter.cuh"
#include "fft_one_block_large.cuh"

namespace fft_one_block_large {

// What OneBlock<S, kStagedIo, kTw>'s kernel keeps resident on the current device at 2^log2n (set-up done: the
// opt-in); nothing where its block does not fit.
template <class S, bool kStagedIo, fft_tuned::Twiddles kTw>
tut::fft::FftResidency one_block_residency(OneBlock<S, kStagedIo, kTw>, int log2n) {
  if (!OneBlock<S, kStagedIo, kTw>::fits(log2n)) return {};
  const auto at = [](auto kernel, int threads, std::size_t shared, int signals) {
    int blocks = 0;
    TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared));
    return tut::fft::FftResidency{static_cast<double>(blocks), static_cast<double>(signals)};
  };
  using Short = LaunchPlan<8192, S>;
  using Long = LaunchPlan<16384, S>;
  return log2n == kFirstLog2n ? at(fft_one_block_kernel<8192, S, kStagedIo, kTw>, Short::kBlockThreads,
                                   Short::kSharedBytes, Short::kSignals)
                              : at(fft_one_block_kernel<16384, S, kStagedIo, kTw>, Long::kBlockThreads,
                                   Long::kSharedBytes, Long::kSignals);
}

// The stage's candidates at 2^log2n, the default first.
inline tut::fft::FftChoice stage_choice(int log2n) {
  if (log2n != kFirstLog2n && log2n != kLastLog2n) return fft_tuned::stage_choice(log2n);
  if (!Stage::fits(log2n)) {
    tut::fft::FftChoice four_step = fft_tuned::stage_choice(log2n);
    four_step.why = "no block of this GPU holds a signal of 2^" + std::to_string(log2n) + ": chapter 35's four-step";
    return four_step;
  }
  tut::fft::FftChoice c{{{"e32", fft_one_block_large, [log2n] { return one_block_residency(Stage{}, log2n); }}}, ""};
  if (E16::fits(log2n)) c.candidates.push_back({"e16", E16::launch, [log2n] { return one_block_residency(E16{}, log2n); }});
  else c.why = "e16's block does not fit on this GPU: the stage's shape";
  return c;
}

}  // namespace fft_one_block_large
