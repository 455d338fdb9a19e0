// The stage's plan per GPU (docs/tuning-per-gpu.md): which of the tile shapes it runs on this GPU, and why.
//
// The candidates are two tile shapes measured on the H100 (README): the stage's 192 threads x (192 B staged +
// 128 B in registers) at 6 blocks per SM, and (d)'s 192 x (256 B + 128 B) at 4 blocks per SM. A copy-bound scan
// must keep bandwidth x latency bytes in flight per SM (Little's law, common/plan_cache.hpp). Each block issues
// its whole tile's loads at once, so a shape keeps about (tile bytes) x (resident blocks) in flight per SM. The
// model decides where it can: a problem of one wave of tiles, or only one shape clearing the need with the
// margin below; otherwise (both clear it, as on an H100) a measured search of both at set-up, cached per GPU.
#pragma once

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "device.cuh"
#include "green_context.cuh"
#include "plan_cache.hpp"
#include "scan_copy_bound.cuh"
#include "timing.cuh"

namespace copy_bound {

// Loaded latency grows past chapter 02's unloaded chase (by how much is not measured yet): a shape counts as
// clearing the need only with this margin, a guess that the --sms runs of docs/tuning-per-gpu.md check.
inline constexpr double kInFlightMargin = 2.0;

// The plan's candidates, by name, the default first; with_candidate() maps a name to its tuning.
inline const std::vector<std::string> kStageCandidates = {"t192-s12-r8-b6", "t192-s16-r8-b4"};

template <class T, class Op, class F>
bool with_candidate(const std::string& name, F&& f) {
  if (name == kStageCandidates[0]) return f(scan_copy_bound::StageTuning<T, Op>{}), true;
  if (name == kStageCandidates[1]) return f(scan_copy_bound::Tuning<T, Op, 192, 16, 8, 4>{}), true;
  return false;
}

// What one candidate keeps in flight per SM on this GPU: tile bytes x the blocks that fit on an SM.
template <class K>
double in_flight_per_sm(int* blocks_out = nullptr) {
  int blocks = 0;
  TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks, scan_copy_bound::scan_tiles_kernel<K, false>, K::kBlockThreads, K::kStagedBytes));
  if (blocks_out) *blocks_out = blocks;
  return static_cast<double>(blocks) * K::kTileItems * sizeof(typename K::Value);
}

inline std::string kib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f KiB", bytes / 1024.0);
  return b;
}

// Plans the stage for scanning n values of T with Op; `stage` names it in the plan line ("18 int32 sum").
// measure(name) returns the median milliseconds of candidate `name` on the workload's own buffers. Call at
// set-up, after setup_scan<K>() of every candidate, outside every timed region.
template <class T, class Op>
tut::Plan plan_stage(const std::string& stage, std::size_t n,
                     const std::function<double(const std::string&)>& measure) {
  int device = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  const tut::DeviceInfo info = tut::query_device(device);
  const int sms = tut::sm_count_in_use(device);
  // The size class (floor of log2 n): the choice may differ between a small and a large problem.
  const int log2n = n > 0 ? static_cast<int>(std::floor(std::log2(static_cast<double>(n)))) : 0;
  tut::PlanRequest r;
  r.key = {stage + " 2^" + std::to_string(log2n), info.name, info.cc_major, info.cc_minor, sms,
           info.driver_version, TUT_THIS_BUILD_ID()};
  r.candidates = kStageCandidates;
  r.model = [&]() -> std::optional<tut::Plan> {
    const double need =
        tut::bytes_in_flight_per_sm(info.peak_dram_gbps * 1e9, tut::kChapter02DramLatencySeconds, sms);
    std::vector<double> have;
    std::vector<int> blocks;
    for (const auto& c : r.candidates)
      with_candidate<T, Op>(c, [&](auto k) {
        int b = 0;
        have.push_back(in_flight_per_sm<decltype(k)>(&b));
        blocks.push_back(b);
      });
    const std::string needs = kib(need) + " in flight per SM needed (" + std::to_string(static_cast<int>(info.peak_dram_gbps)) +
                              " GB/s x " + std::to_string(static_cast<int>(tut::kChapter02DramLatencySeconds * 1e9)) +
                              " ns / " + std::to_string(sms) + " SMs)";
    auto shape = [&](std::size_t i) {
      return std::to_string(blocks[i]) + " blocks x " + kib(have[i] / std::max(blocks[i], 1)) + " = " + kib(have[i]);
    };
    // One wave: every tile is resident at once, so the tile shape does not change how much is in flight.
    using Default = scan_copy_bound::StageTuning<T, Op>;
    if (scan_copy_bound::tile_count<Default>(n) <= static_cast<std::size_t>(blocks[0]) * sms)
      return tut::Plan{r.candidates[0], "model: one wave of tiles, the default shape"};
    std::vector<std::size_t> clear;
    for (std::size_t i = 0; i < have.size(); ++i)
      if (have[i] >= kInFlightMargin * need) clear.push_back(i);
    if (clear.size() == 1)
      return tut::Plan{r.candidates[clear[0]], "model: " + needs + ", only it clears x" +
                                                    std::to_string(static_cast<int>(kInFlightMargin)) + ": " + shape(clear[0])};
    if (clear.empty()) {
      std::size_t most = 0;
      for (std::size_t i = 1; i < have.size(); ++i)
        if (have[i] > have[most]) most = i;
      return tut::Plan{r.candidates[most], "model: " + needs + ", none clears it; the most in flight: " + shape(most)};
    }
    return std::nullopt;  // several clear it: the model cannot tell them apart, measure
  };
  r.measure = [&](const std::vector<std::string>& names) {
    std::vector<double> ms;
    for (const auto& name : names) ms.push_back(measure(name));
    return ms;
  };
  return tut::choose_plan(r);
}

// A short timing of one candidate for the search: a warm-up and a few repetitions, in no NVTX "timed" range.
inline double search_ms(const std::function<void(cudaStream_t)>& run) {
  tut::TimingPlan p;
  p.warmup = 1;
  p.reps = 5;
  return tut::time_gpu(run, p).median_ms;
}

}  // namespace copy_bound
