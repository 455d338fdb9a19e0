// The stage's plan per GPU (docs/tuning-per-gpu.md): which configuration fft_thread_block_cluster() runs at each
// length on this GPU, and why (common/fft/fft_plan.cuh chooses). At N = 32768 the candidates are the stage's
// clusters of 8 blocks (c8) and c4 (4 blocks of twice the size); at 65536 c8 and c8-split (the second cluster
// barrier split): the closest candidates of this chapter's measurements. Each cluster holds a whole signal, and
// the clusters resident at once (cudaOccupancyMaxActiveClusters, found at set-up) keep far more in flight than
// Little's law asks on an H100 or H200, so a short search decides. A GPU without clusters that hold the stage's
// runs chapter 35's four-step there (one configuration); every other length takes chapter 36's candidates.
#pragma once

#include <string>
#include <utility>

#include "../36-fft-one-block-large/stage_plan.cuh"
#include "fft_chapter.cuh"
#include "fft_thread_block_cluster.cuh"
#include "green_context.cuh"

namespace fft_cluster {

// What Config's cluster kernel keeps resident on the current device at 2^log2n, from set-up's
// cudaOccupancyMaxActiveClusters: its clusters' blocks spread over the SMs in use, a signal per cluster.
template <class Config>
tut::fft::FftResidency cluster_residency(int log2n) {
  const Residency& here = Config::residency(log2n);
  if (!here.ready || !here.fits) return {};
  const int blocks_per_cluster =
      log2n == kFirstLog2n ? Config::template Plan<32768>::C : Config::template Plan<65536>::C;
  return {static_cast<double>(here.active_clusters) * blocks_per_cluster / tut::sm_count_in_use(current_device()),
          1.0 / blocks_per_cluster};
}

template <class Config>
tut::fft::FftCandidate cluster_candidate(const char* name, int log2n, tut::fft::FftLaunch launch) {
  return {name, std::move(launch), [log2n] { return cluster_residency<Config>(log2n); }};
}

// The stage's candidates at 2^log2n, the default first.
inline tut::fft::FftChoice stage_choice(int log2n) {
  if (log2n != kFirstLog2n && log2n != kLastLog2n) return fft_one_block_large::stage_choice(log2n);
  const bool short_length = log2n == kFirstLog2n;
  if (!(short_length ? StageShort::residency(log2n).fits : StageLong::residency(log2n).fits)) {
    tut::fft::FftChoice four_step = fft_tuned::stage_choice(log2n);
    four_step.why = "no cluster of the stage's fits on this GPU: chapter 35's four-step";
    return four_step;
  }
  tut::fft::FftChoice c;
  if (short_length) {
    c.candidates.push_back(cluster_candidate<StageShort>("c8", log2n, fft_thread_block_cluster));
    if (C4::residency(log2n).fits) c.candidates.push_back(cluster_candidate<C4>("c4", log2n, C4::launch));
  } else {
    c.candidates.push_back(cluster_candidate<StageLong>("c8", log2n, fft_thread_block_cluster));
    if (C8Split::residency(log2n).fits)
      c.candidates.push_back(cluster_candidate<C8Split>("c8-split", log2n, C8Split::launch));
  }
  if (c.candidates.size() == 1) c.why = "the other cluster shape does not fit on this GPU: the stage's";
  return c;
}

}  // namespace fft_cluster
