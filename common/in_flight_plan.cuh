// A copy-bound stage's tile shape per GPU (docs/tuning-per-gpu.md): the in-flight model of in_flight_plan.hpp
// where it decides, else a measured search of the candidates at set-up, cached per GPU, driver and build. Chapter
// 17's and 18's stage_plan.cuh call it with their candidates.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "in_flight_plan.hpp"
#include "plan_search.cuh"

namespace tut {

// Plans `stage` ("18 int32 sum") for a problem of n items: the key names the stage and n's size class. candidates:
// the shapes with their blocks per SM on this device, the default first; default_tiles: the problem's tiles in the
// default's shape; build_id: TUT_THIS_BUILD_ID() of the stage's file; measure(name): the median milliseconds of
// candidate `name` on the workload's own buffers (search_ms). Call at set-up, after every candidate's set-up.
inline Plan plan_tile_shape(const std::string& stage, std::uint64_t n, const std::vector<InFlightCandidate>& candidates,
                            std::uint64_t default_tiles, const std::string& build_id,
                            const std::function<double(const std::string&)>& measure) {
  DeviceInfo info;
  PlanRequest r;
  r.key = plan_key_here(stage + " " + size_class(n), build_id, &info);
  for (const auto& c : candidates) r.candidates.push_back(c.name);
  r.model = [&]() -> std::optional<Plan> {
    InFlightNeed need;
    need.dram_gbps = info.peak_dram_gbps;
    need.sms = r.key.sm_count;
    return in_flight_model(candidates, default_tiles, need);
  };
  r.measure = [&](const std::vector<std::string>& names) {
    std::vector<double> ms;
    for (const auto& name : names) ms.push_back(measure(name));
    return ms;
  };
  return choose_plan(r);
}

}  // namespace tut
