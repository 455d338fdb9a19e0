// What every tuned stage's plan needs besides common/plan_cache.hpp (docs/tuning-per-gpu.md): the key of the GPU
// it runs on, the size class a key names, and the short timing of one candidate in a measured search.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "device.cuh"
#include "green_context.cuh"
#include "in_flight_plan.hpp"
#include "plan_cache.hpp"
#include "timing.cuh"

namespace tut {

// "2^k" with k = floor(log2 n) (0 for n = 0 and 1): one plan serves the sizes of one octave.
inline std::string size_class(std::uint64_t n) {
  int k = 0;
  while (n > 1) {
    n >>= 1;
    ++k;
  }
  return "2^" + std::to_string(k);
}

// The key of `stage` ("18 int32 sum 2^28") on the current device: its name and compute capability, the SMs in
// use (a --sms green context restricts them), the driver; build_id: TUT_THIS_BUILD_ID() expanded in the stage's
// own file, so that a rebuild of the stage makes its plans stale. *info (if given): the device's properties.
inline PlanKey plan_key_here(const std::string& stage, const std::string& build_id, DeviceInfo* info = nullptr) {
  int device = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  const DeviceInfo here = query_device(device);
  if (info) *info = here;
  return {stage, here.name, here.cc_major, here.cc_minor, sm_count_in_use(device), here.driver_version, build_id};
}

// What a memory-bound kernel must keep in flight per SM on the current device (Little's law: its DRAM peak x
// chapter 02's latency / the SMs in use; a --sms green context restricts them).
inline InFlightNeed in_flight_need_here() {
  int device = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  InFlightNeed need;
  need.dram_gbps = query_device(device).peak_dram_gbps;
  need.sms = sm_count_in_use(device);
  return need;
}

// One candidate's median milliseconds for a measured search: a warm-up and five repetitions, in no NVTX "timed"
// range (the search runs at set-up, outside every timed and profiled region).
inline double search_ms(const std::function<void(cudaStream_t)>& run) {
  TimingPlan p;
  p.warmup = 1;
  p.reps = 5;
  return time_gpu(run, p).median_ms;
}

// The same search for candidates whose differences are smaller than the GPU's drift over the search (a
// compute-bound kernel under the power limit: its clock falls as the GPU warms): `rounds` rounds, each timing every
// candidate once (a warm-up and three repetitions), starting one candidate later each round. Each candidate's
// median over all its repetitions; so the first candidate no longer runs alone on a cool GPU.
inline std::vector<double> search_ms_in_rounds(const std::vector<std::function<void(cudaStream_t)>>& runs,
                                               int rounds = 3) {
  TimingPlan p;
  p.warmup = 1;
  p.reps = 3;
  std::vector<std::vector<double>> samples(runs.size());
  for (int round = 0; round < rounds; ++round)
    for (std::size_t j = 0; j < runs.size(); ++j) {
      const std::size_t i = (j + static_cast<std::size_t>(round)) % runs.size();
      (void)time_gpu(runs[i], p, 0, &samples[i]);
    }
  std::vector<double> ms;
  for (auto& s : samples) ms.push_back(summarize(std::move(s)).median_ms);
  return ms;
}

}  // namespace tut
