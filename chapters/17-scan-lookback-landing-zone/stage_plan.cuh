// The stage's plan per GPU (docs/tuning-per-gpu.md): which tile shape and blocks per SM it runs on this GPU.
//
// The candidates are two configurations measured side by side on the H200 (README, the landing-zone table), with
// the same 360 KiB landing zone per SM cut differently: the stage's 192 threads x (48 + 32) int32 at 6 blocks per
// SM, and 128 x (48 + 32) at 9, a third smaller tile, so half again as many tiles, look-backs and blocks per SM.
// Which one wins depends on the GPU (bytes in flight per SM against the tiles' fixed costs). The model is chapter
// 18's, shared (common/in_flight_plan.hpp): one wave of tiles, or only one shape keeping the copy's bytes in
// flight with its margin, decides; where both do, a measured search of both at set-up, cached per GPU.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "in_flight_plan.cuh"
#include "scan_lookback_landing_zone.cuh"

namespace landing_zone_plan {

namespace landing = scan_lookback_landing_zone;

// The candidates, the default first, by the names of their own variants (--variant NAME runs one of them alone).
using StageTuning = landing::DefaultTuning;               // 192 x (48 + 32), 6 blocks per SM
using SmallerTileTuning = landing::Tuning<128, 48, 32, 9>;  // 128 x (48 + 32), 9 blocks per SM
inline const std::vector<std::string> kCandidates = {"lookback-rescan-hybrid-cpasync-t192-s48-r32",
                                                     "lookback-rescan-hybrid-cpasync-t128-s48-r32"};

template <class F>
bool with_candidate(const std::string& name, F&& f) {
  if (name == kCandidates[0]) return f(StageTuning{}), true;
  if (name == kCandidates[1]) return f(SmallerTileTuning{}), true;
  return false;
}

// The workspace of whichever candidate runs: the larger of the two (the smaller tile has more status words).
inline std::size_t workspace_bytes(std::size_t n) {
  std::size_t bytes = 0;
  for (const auto& c : kCandidates)
    with_candidate(c, [&](auto k) { bytes = std::max(bytes, landing::workspace_bytes_for<decltype(k)>(n)); });
  return bytes;
}

// Every candidate's one-time set-up on the current device (the shared-memory opt-in their occupancy depends on).
inline void setup_candidates() {
  for (const auto& c : kCandidates) with_candidate(c, [](auto k) { landing::setup_inclusive_scan_with<decltype(k)>(); });
}

// One candidate as the model sees it on this GPU: the blocks that fit on an SM (occupancy API) and its tile bytes.
template <class K>
tut::InFlightCandidate in_flight_candidate(const std::string& name) {
  int blocks = 0;
  TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, landing::scan_tiles_kernel<K>,
                                                               K::kBlockThreads, K::kStagedBytes));
  return {name, blocks, static_cast<double>(K::kTileItems) * sizeof(std::int32_t)};
}

// The stage's plan for a scan of n int32 on the buffers given (the search runs each candidate on them: out and the
// workspace are overwritten). After setup_candidates(), outside every timed region.
inline tut::Plan plan_stage(const std::int32_t* in, std::int32_t* out, std::size_t n, void* workspace) {
  std::vector<tut::InFlightCandidate> candidates;
  for (const auto& c : kCandidates)
    with_candidate(c, [&](auto k) { candidates.push_back(in_flight_candidate<decltype(k)>(c)); });
  return tut::plan_tile_shape("17 int32 sum", n, candidates, landing::tile_count<StageTuning>(n), TUT_THIS_BUILD_ID(),
                              [&](const std::string& name) {
                                double ms = 0;
                                with_candidate(name, [&](auto k) {
                                  ms = tut::search_ms([&](cudaStream_t s) {
                                    landing::inclusive_scan_with<decltype(k)>(in, out, n, workspace, s);
                                  });
                                });
                                return ms;
                              });
}

// The stage as a scan variant's state: the candidate the last plan chose (the default until a plan runs).
struct PlannedStage {
  std::string choice = kCandidates[0];
  void scan(const std::int32_t* in, std::int32_t* out, std::size_t n, void* workspace, cudaStream_t stream) const {
    with_candidate(choice, [&](auto k) { landing::inclusive_scan_with<decltype(k)>(in, out, n, workspace, stream); });
  }
};

}  // namespace landing_zone_plan
