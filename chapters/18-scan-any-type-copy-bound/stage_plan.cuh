// The stage's plan per GPU (docs/tuning-per-gpu.md): which of the tile shapes it runs on this GPU, and why.
//
// The candidates are two tile shapes measured on the H100 (README): the stage's 192 threads x (192 B staged +
// 128 B in registers) at 6 blocks per SM, and (d)'s 192 x (256 B + 128 B) at 4 blocks per SM. A copy-bound scan
// must keep bandwidth x latency bytes in flight per SM (Little's law, common/plan_cache.hpp). Each block issues
// its whole tile's loads at once, so a shape keeps about (tile bytes) x (resident blocks) in flight per SM. The
// model (common/in_flight_plan.hpp, shared with chapter 17) decides where it can: a problem of one wave of tiles,
// or only one shape clearing the need with its margin; otherwise (both clear it, as on an H100) a measured search
// of both at set-up, cached per GPU.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "in_flight_plan.cuh"
#include "scan_copy_bound.cuh"

namespace copy_bound {

using tut::search_ms;  // a candidate's timing in the search (main.cu)

// The plan's candidates, by name, the default first; with_candidate() maps a name to its tuning.
inline const std::vector<std::string> kStageCandidates = {"t192-s12-r8-b6", "t192-s16-r8-b4"};

template <class T, class Op, class F>
bool with_candidate(const std::string& name, F&& f) {
  if (name == kStageCandidates[0]) return f(scan_copy_bound::StageTuning<T, Op>{}), true;
  if (name == kStageCandidates[1]) return f(scan_copy_bound::Tuning<T, Op, 192, 16, 8, 4>{}), true;
  return false;
}

// One candidate as the model sees it on this GPU: the blocks that fit on an SM (occupancy API) and its tile bytes.
template <class K>
tut::InFlightCandidate in_flight_candidate(const std::string& name) {
  int blocks = 0;
  TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks, scan_copy_bound::scan_tiles_kernel<K, false>, K::kBlockThreads, K::kStagedBytes));
  return {name, blocks, static_cast<double>(K::kTileItems) * sizeof(typename K::Value)};
}

// Plans the stage for scanning n values of T with Op; `stage` names it in the plan line ("18 int32 sum").
// measure(name) returns the median milliseconds of candidate `name` on the workload's own buffers. Call at
// set-up, after setup_scan<K>() of every candidate, outside every timed region.
template <class T, class Op>
tut::Plan plan_stage(const std::string& stage, std::size_t n,
                     const std::function<double(const std::string&)>& measure) {
  std::vector<tut::InFlightCandidate> candidates;
  for (const auto& c : kStageCandidates)
    with_candidate<T, Op>(c, [&](auto k) { candidates.push_back(in_flight_candidate<decltype(k)>(c)); });
  return tut::plan_tile_shape(stage, n, candidates,
                              scan_copy_bound::tile_count<scan_copy_bound::StageTuning<T, Op>>(n),
                              TUT_THIS_BUILD_ID(), measure);
}

}  // namespace copy_bound
