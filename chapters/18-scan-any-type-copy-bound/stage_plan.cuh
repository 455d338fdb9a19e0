// The stage's plan per GPU (docs/tuning-per-gpu.md): which of the tile shapes it runs on this GPU, and why.
//
// The candidates are two tile shapes measured on the H100 (README): the stage's 192 threads x (192 B staged +
// 128 B in registers) at 6 blocks per SM, and (d)'s 192 x (256 B + 128 B) at 4 blocks per SM. A copy-bound scan
// must keep bandwidth x latency bytes in flight per SM (Little's law, common/plan_cache.hpp). Each block issues
// its whole tile's loads at once, so a shape keeps about (tile bytes) x (resident blocks) in flight per SM. The
// model decides where it can: a problem of one wave of tiles, or only one shape clearing the need with a margin
// (tut::in_flight_model); otherwise (both clear it, as on an H100) a measured search of both at set-up (its
// timing tut::search_ms, common/plan_search.cuh), cached per GPU.
#pragma once

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "plan_cache.hpp"
#include "plan_search.cuh"
#include "scan_copy_bound.cuh"

namespace copy_bound {

// The plan's candidates, by name, the default first; with_candidate() maps a name to its tuning.
inline const std::vector<std::string> kStageCandidates = {"t192-s12-r8-b6", "t192-s16-r8-b4"};

template <class T, class Op, class F>
bool with_candidate(const std::string& name, F&& f) {
  if (name == kStageCandidates[0]) return f(scan_copy_bound::StageTuning<T, Op>{}), true;
  if (name == kStageCandidates[1]) return f(scan_copy_bound::Tuning<T, Op, 192, 16, 8, 4>{}), true;
  return false;
}

// What one candidate keeps in flight per SM on this GPU: the blocks that fit on an SM x its tile bytes.
template <class K>
tut::InFlight in_flight_per_sm() {
  int blocks = 0;
  TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks, scan_copy_bound::scan_tiles_kernel<K, false>, K::kBlockThreads, K::kStagedBytes));
  return {static_cast<double>(blocks), static_cast<double>(K::kTileItems * sizeof(typename K::Value))};
}

// Plans the stage for scanning n values of T with Op; `stage` names it in the plan line ("18 int32 sum").
// measure(name) returns the median milliseconds of candidate `name` on the workload's own buffers. Call at
// set-up, after setup_scan<K>() of every candidate, outside every timed region.
template <class T, class Op>
tut::Plan plan_stage(const std::string& stage, std::size_t n,
                     const std::function<double(const std::string&)>& measure) {
  // The size class (floor of log2 n): the choice may differ between a small and a large problem.
  const int log2n = n > 0 ? static_cast<int>(std::floor(std::log2(static_cast<double>(n)))) : 0;
  tut::PlanRequest r;
  r.key = tut::device_plan_key(stage + " 2^" + std::to_string(log2n), TUT_THIS_BUILD_ID());
  r.candidates = kStageCandidates;
  r.model = [&]() -> std::optional<tut::Plan> {
    std::vector<tut::InFlight> have;
    for (const auto& c : r.candidates)
      with_candidate<T, Op>(c, [&](auto k) { have.push_back(in_flight_per_sm<decltype(k)>()); });
    // One wave: every tile is resident at once, so the tile shape does not change how much is in flight.
    using Default = scan_copy_bound::StageTuning<T, Op>;
    if (static_cast<double>(scan_copy_bound::tile_count<Default>(n)) <= have[0].blocks_per_sm * r.key.sm_count)
      return tut::Plan{r.candidates[0], "model: one wave of tiles, the default shape"};
    const tut::InFlightNeed need = tut::in_flight_need();
    return tut::in_flight_model(r.candidates, have, need.bytes, need.text);  // nothing where both clear it
  };
  r.measure = [&](const std::vector<std::string>& names) {
    std::vector<double> ms;
    for (const auto& name : names) ms.push_back(measure(name));
    return ms;
  };
  return tut::choose_plan(r);
}

}  // namespace copy_bound
