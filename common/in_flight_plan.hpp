// The model of a copy-bound stage's tile shape (docs/tuning-per-gpu.md, Little's law): which of a few candidate
// shapes keeps the bytes a copy needs in flight per SM on this GPU. Plain C++ (host-tested in
// test_in_flight_plan.cpp); chapters 17 and 18 read their candidates' blocks per SM from the occupancy API and call
// plan_tile_shape() (in_flight_plan.cuh), which asks this model first.
//
// Each block of such a stage issues its whole tile's loads at once, so a shape keeps about (tile bytes) x (resident
// blocks) in flight per SM. The model decides where it can: a problem of one wave of the default's tiles (every
// tile resident at once: the shape does not change what is in flight), or only one shape clearing the need with
// kInFlightMargin, or none clearing it (then the one with the most in flight). Where several clear it the model
// cannot tell them apart, and a measured search does.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "plan_cache.hpp"

namespace tut {

// Loaded latency grows past chapter 02's unloaded chase (by how much is not measured yet): a shape counts as
// clearing the need only with this margin, a guess that the --sms runs of docs/tuning-per-gpu.md check.
inline constexpr double kInFlightMargin = 2.0;

// One candidate shape as the model sees it; the default is the first of a list.
struct InFlightCandidate {
  std::string name;
  int blocks_per_sm = 0;  // resident blocks per SM (occupancy API)
  double tile_bytes = 0;  // bytes one block loads at once
  double in_flight() const { return static_cast<double>(blocks_per_sm) * tile_bytes; }
};

// What the GPU asks: bandwidth x latency / SMs (bytes_in_flight_per_sm), and the numbers it came from (for the why).
struct InFlightNeed {
  double dram_gbps = 0;
  double latency_s = kChapter02DramLatencySeconds;
  int sms = 0;
  double bytes_per_sm() const { return bytes_in_flight_per_sm(dram_gbps * 1e9, latency_s, sms); }
};

inline std::string kib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f KiB", bytes / 1024.0);
  return b;
}

// The model's plan (why = "model: ..."), or nothing where several candidates clear the need. default_tiles: the
// tiles of the problem in the first (default) candidate's shape.
inline std::optional<Plan> in_flight_model(const std::vector<InFlightCandidate>& candidates, std::uint64_t default_tiles,
                                           const InFlightNeed& need) {
  if (candidates.empty()) return std::nullopt;
  const double bytes = need.bytes_per_sm();
  const std::string needs = kib(bytes) + " in flight per SM needed (" + std::to_string(static_cast<int>(need.dram_gbps)) +
                            " GB/s x " + std::to_string(static_cast<int>(need.latency_s * 1e9)) + " ns / " +
                            std::to_string(need.sms) + " SMs)";
  auto shape = [&](std::size_t i) {
    const InFlightCandidate& c = candidates[i];
    return std::to_string(c.blocks_per_sm) + " blocks x " + kib(c.in_flight() / std::max(c.blocks_per_sm, 1)) + " = " +
           kib(c.in_flight());
  };
  // One wave: every tile is resident at once, so the tile shape does not change how much is in flight.
  if (default_tiles <= static_cast<std::uint64_t>(candidates[0].blocks_per_sm) * static_cast<std::uint64_t>(need.sms))
    return Plan{candidates[0].name, "model: one wave of tiles, the default shape"};
  std::vector<std::size_t> clear;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].in_flight() >= kInFlightMargin * bytes) clear.push_back(i);
  if (clear.size() == 1)
    return Plan{candidates[clear[0]].name, "model: " + needs + ", only it clears x" +
                                               std::to_string(static_cast<int>(kInFlightMargin)) + ": " + shape(clear[0])};
  if (clear.empty()) {
    std::size_t most = 0;
    for (std::size_t i = 1; i < candidates.size(); ++i)
      if (candidates[i].in_flight() > candidates[most].in_flight()) most = i;
    return Plan{candidates[most].name, "model: " + needs + ", none clears it; the most in flight: " + shape(most)};
  }
  return std::nullopt;  // several clear it: the model cannot tell them apart, measure
}

}  // namespace tut
