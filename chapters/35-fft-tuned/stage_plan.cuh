// The stage's plan per GPU (docs/tuning-per-gpu.md): which configuration fft_tuned() runs at each length on this
// GPU, and why. common/fft/fft_plan.cuh chooses; this file lists the candidates at each length, the default (the
// configuration fft_tuned() runs) first:
//   N = 8, 16       one kernel (a signal per thread): nothing to choose;
//   N = 32 .. 1024  chapter 34's two passes (the stage's choice from the H200's --variant all, README "How the
//                   stage was chosen"), the radix-16 passes, and the two passes with a sincospif per twiddle (the
//                   stage before twiddles per butterfly, which at N = 1024 were slower in two passes of radix 32
//                   on the H200), the stage's shape at most 85 registers (two-pass-t256-3blocks), the staged
//                   16-byte accesses (staged-t256-4blocks, staged-t256-streaming: at N = 32 on the H200 0.515 ms
//                   against the two passes' 0.607, 99% of cudaMemcpy) and, at N = 32 only, one thread per signal:
//                   the search;
//   N = 2048, 4096  the stage's radix-16 passes (e16-t256-powers) or its two passes (two-pass-t256-powers, the
//                   stage's shape before commit f18eb3b): both keep far more in flight than Little's law asks on an
//                   H100 or H200, so the model cannot tell them apart and a short search on the stage's own
//                   buffers does;
//   N >= 8192       the four-step (E = 16): one configuration.
// Chapters 36 to 38 take these candidates at the lengths where their stages run this one.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "cuda_check.cuh"
#include "dispatch.hpp"
#include "fft_chapter.cuh"
#include "fft_tuned.cuh"

namespace fft_tuned {

// What fft_block_kernel<N, S, kTw> keeps resident on the current device at 2^log2n (32 .. 4096).
template <class S, Twiddles kTw>
tut::fft::FftResidency block_residency(int log2n) {
  tut::fft::FftResidency r;
  tut::fft::dispatch_length<5, kMaxBlockLog2n>(log2n, "fft_tuned::block_residency", [&](auto n) {
    constexpr int N = decltype(n)::value;
    using SP = ShapePlan<N, S>;
    int blocks = 0;
    TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fft_block_kernel<N, S, kTw>,
                                                                 SP::kBlockThreads, 0));
    r = {static_cast<double>(blocks), static_cast<double>(SP::kSignals)};
  });
  return r;
}

// What fft_per_thread_kernel<N> keeps resident at N = 8..64 (per_thread_signals<N>() signals per block).
inline tut::fft::FftResidency per_thread_residency(int log2n) {
  tut::fft::FftResidency r;
  tut::fft::dispatch_length<3, kPerThreadMaxLog2n>(log2n, "fft_tuned::per_thread_residency", [&](auto n) {
    constexpr int N = decltype(n)::value;
    int blocks = 0;
    TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fft_per_thread_kernel<N, true>,
                                                                 per_thread_signals<N>(), 0));
    r = {static_cast<double>(blocks), static_cast<double>(per_thread_signals<N>())};
  });
  return r;
}

// The block-regime candidate of shape S with twiddles kTw (the stage's unless named), launched as `launch`.
template <class S, Twiddles kTw = kStageTwiddles>
tut::fft::FftCandidate block_candidate(const char* name, int log2n, tut::fft::FftLaunch launch) {
  return {name, std::move(launch), [log2n] { return block_residency<S, kTw>(log2n); }};
}

// The stage's candidates at 2^log2n, the default first.
inline tut::fft::FftChoice stage_choice(int log2n) {
  if (log2n <= 4)
    return {{{"per-thread", fft_tuned, [log2n] { return per_thread_residency(log2n); }}},
            "N = 8 and 16 run one kernel, a signal per thread: nothing to choose"};
  if (log2n < kStageLongFromLog2n) {
    tut::fft::FftChoice c{
        {block_candidate<StageShape>("two-pass-t256-powers", log2n, fft_tuned),
         block_candidate<StageShapeLong>("e16-t256-powers", log2n, fft<StageShapeLong, kStageTwiddles>),
         block_candidate<StageShape, Twiddles::kSincospif>("two-pass-t256-sincospif", log2n,
                                                           fft<StageShape, Twiddles::kSincospif>),
         block_candidate<StageShapeThreeBlocks>("two-pass-t256-3blocks", log2n,
                                                fft<StageShapeThreeBlocks, kStageTwiddles>),
         block_candidate<StagedShape>("staged-t256-4blocks", log2n, fft<StagedShape, kStageTwiddles>),
         block_candidate<StagedStreamingShape>("staged-t256-streaming", log2n,
                                               fft<StagedStreamingShape, kStageTwiddles>)},
        ""};
    // One thread per signal: at N = 32 (128 signals per block) within 1% of the staged shape on the H200; at N = 64
    // (64 per block, 168 registers) 25% slower, so not a candidate there (variant per-thread-64).
    if (log2n == 5)
      c.candidates.push_back({"per-thread", fft_per_thread_to_64<StageShape, kStageTwiddles>,
                              [log2n] { return per_thread_residency(log2n); }});
    return c;
  }
  if (log2n <= kMaxBlockLog2n)
    return {{block_candidate<StageShapeLong>("e16-t256-powers", log2n, fft_tuned),
             block_candidate<StageShape>("two-pass-t256-powers", log2n, fft<StageShape, kStageTwiddles>)},
            ""};
  tut::fft::FftChoice four_step{{{"four-step-e16", fft_tuned, {}}}, "the four-step (E = 16): one configuration"};
  four_step.candidates[0].passes = 2;
  return four_step;
}

}  // namespace fft_tuned
