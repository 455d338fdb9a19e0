// The GPU side of a stage's plan (plan_cache.hpp is plain C++): the key of the current device, the need of the
// in-flight model on it, and the measured search's short timing. docs/tuning-per-gpu.md tells the lesson.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>

#include "cuda_check.cuh"
#include "device.cuh"
#include "green_context.cuh"
#include "plan_cache.hpp"
#include "timing.cuh"

namespace tut {

// The plan key of `stage` on the current device: its GPU, compute capability, the SMs in use (a --sms green
// context restricts them), the driver, and `build_id` (TUT_THIS_BUILD_ID() of the stage's translation unit).
inline PlanKey device_plan_key(const std::string& stage, const std::string& build_id) {
  int device = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  const DeviceInfo info = query_device(device);
  return {stage, info.name, info.cc_major, info.cc_minor, sm_count_in_use(device), info.driver_version, build_id};
}

// What a memory-bound kernel must keep in flight per SM on the current device (Little's law: the DRAM peak x
// chapter 02's latency / the SMs in use), and its text for a plan line.
struct InFlightNeed {
  double bytes = 0;
  std::string text;
};
inline InFlightNeed in_flight_need() {
  int device = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  const DeviceInfo info = query_device(device);
  const int sms = sm_count_in_use(device);
  const double need = bytes_in_flight_per_sm(info.peak_dram_gbps * 1e9, kChapter02DramLatencySeconds, sms);
  return {need, in_flight_need_text(need, info.peak_dram_gbps, kChapter02DramLatencySeconds, sms)};
}

// A short timing of one candidate for the search: a warm-up and five repetitions, in no NVTX "timed" range. Call
// it from a stage's setup(), outside every timed and profiled region.
inline double search_ms(const std::function<void(cudaStream_t)>& run) {
  TimingPlan p;
  p.warmup = 1;
  p.reps = 5;
  return time_gpu(run, p).median_ms;
}

}  // namespace tut
