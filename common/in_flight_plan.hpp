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
  std::string text() const { return in_flight_need_text(bytes_per_sm(), dram_gbps, latency_s, sms); }
};

// The model's plan (why = "model: ..."), or nothing where several candidates clear the need: one wave of the
// default's tiles (default_tiles of them) keeps the default, else plan_cache.hpp's in_flight_model decides.
inline std::optional<Plan> in_flight_model(const std::vector<InFlightCandidate>& candidates, std::uint64_t default_tiles,
                                           const InFlightNeed& need) {
  if (candidates.empty()) return std::nullopt;
  // One wave: every tile is resident at once, so the tile shape does not change how much is in flight.
  if (default_tiles <= static_cast<std::uint64_t>(candidates[0].blocks_per_sm) * static_cast<std::uint64_t>(need.sms))
    return Plan{candidates[0].name, "model: one wave of tiles, the default shape"};
  std::vector<std::string> names;
  std::vector<InFlight> have;
  for (const auto& c : candidates) {
    names.push_back(c.name);
    have.push_back({static_cast<double>(c.blocks_per_sm), c.tile_bytes});
  }
  return in_flight_model(names, have, need.bytes_per_sm(), need.text());
}

}  // namespace tut
