// The stage's plan per GPU (docs/tuning-per-gpu.md): which configuration fft_two_pass() runs at each length on
// this GPU, and why (common/fft/fft_plan.cuh chooses). The candidates, the default first:
//   N >= 131072      the stage's widths (16 columns or rows per block where two blocks share an SM, else 8), w8
//                    and w16 where they differ from the stage's at that length and are built: 2^17, 2^18 the
//                    stage and w8; 2^19 all three; 2^20 .. 2^22 the stage's alone (w8 is its shape, w16 not built);
//   N = 32768, 65536 the pass split: chapter 37's one pass in clusters (its candidates) or the two passes here,
//                    which move the batch twice but need no cluster. Nothing models that trade, so a short search
//                    on the stage's own buffers decides (a GPU without clusters has the two passes alone);
//   N <= 16384       chapter 36's candidates.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "../37-fft-thread-block-cluster/stage_plan.cuh"
#include "cuda_check.cuh"
#include "dispatch.hpp"
#include "fft_chapter.cuh"
#include "fft_two_pass.cuh"

namespace fft_two_pass {

// What Config's two kernels keep resident on the current device at 2^log2n: the pass with less in flight (blocks
// per SM from the occupancy API x W sub-FFTs of its length). Nothing where the configuration does not run here.
template <class Config>
tut::fft::FftResidency two_pass_residency(int log2n) {
  if (!Config::runs(log2n)) return {};
  tut::fft::FftResidency least;
  tut::fft::dispatch_length<Config::kMinLog2n, Config::kMaxLog2n>(log2n, "fft_two_pass::two_pass_residency", [&](auto n) {
    constexpr int k = ilog2(decltype(n)::value);
    using Columns = typename Config::template ColumnTile<k>;
    using Rows = typename Config::template RowTile<k>;
    int column_blocks = 0, row_blocks = 0;
    TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&column_blocks, fft_columns_kernel<k, typename Config::LaunchShape>,
                                                                 Columns::kThreads, Columns::kSharedBytes));
    TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&row_blocks, fft_rows_kernel<k, typename Config::LaunchShape>,
                                                                 Rows::kThreads, Rows::kSharedBytes));
    // A block of either pass holds 1 / kGroups of a signal.
    const tut::fft::FftResidency columns{static_cast<double>(column_blocks), 1.0 / Columns::kGroups};
    const tut::fft::FftResidency rows{static_cast<double>(row_blocks), 1.0 / Rows::kGroups};
    least = columns.blocks_per_sm * columns.signals_per_block <= rows.blocks_per_sm * rows.signals_per_block ? columns
                                                                                                            : rows;
  });
  return least;
}

template <class Config>
tut::fft::FftCandidate two_pass_candidate(const char* name, int log2n, tut::fft::FftLaunch launch) {
  tut::fft::FftCandidate c{name, std::move(launch), [log2n] { return two_pass_residency<Config>(log2n); }};
  c.passes = 2;
  return c;
}

// The stage's candidates at 2^log2n, the default first.
inline tut::fft::FftChoice stage_choice(int log2n) {
  if (log2n >= kStageFromLog2n) {
    tut::fft::FftChoice c{{two_pass_candidate<StageTwoPass>("two-pass", log2n, fft_two_pass)}, ""};
    const std::pair<int, int> stage_widths = StageTwoPass::widths(log2n);
    if (W8::runs(log2n) && W8::widths(log2n) != stage_widths)
      c.candidates.push_back(two_pass_candidate<W8>("w8", log2n, W8::launch));
    if (W16::runs(log2n) && W16::widths(log2n) != stage_widths)
      c.candidates.push_back(two_pass_candidate<W16>("w16", log2n, W16::launch));
    if (c.candidates.size() == 1)
      c.why = "one width at N = 2^" + std::to_string(log2n) + " (w8 and w16 are the stage's widths here or not built)";
    return c;
  }
  if (log2n != fft_cluster::kFirstLog2n && log2n != fft_cluster::kLastLog2n)
    return fft_cluster::stage_choice(log2n);
  tut::fft::FftCandidate two_pass = two_pass_candidate<StageTwoPass>("two-pass", log2n, StageTwoPass::launch);
  if (!stage_plans().require("fft_two_pass::stage_choice", "setup_fft_two_pass").clusters) {
    two_pass.launch = fft_two_pass;  // what the stage runs here without clusters
    return {{two_pass}, "no thread-block clusters that hold chapter 37's on this GPU: two passes"};
  }
  tut::fft::FftChoice c = fft_cluster::stage_choice(log2n);
  if (StageTwoPass::runs(log2n)) {
    c.candidates.push_back(two_pass);
    c.why.clear();
  }
  return c;
}

}  // namespace fft_two_pass
