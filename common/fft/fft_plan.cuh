// A tuned FFT stage's plan per GPU (docs/tuning-per-gpu.md): which of its candidates at a length (FftChoice,
// fft_chapter.cuh) it runs on this GPU, and why. The model first:
//   - one candidate: nothing to choose (the choice's own reason);
//   - one wave: the default's blocks are all resident at once, so the shape does not change what is in flight;
//   - Little's law (tut::in_flight_model): each candidate keeps (resident blocks x the bytes a block loads at
//     once) in flight per SM; the one that alone clears the need with the margin, or the most where none does
//     (only among candidates that move the batch equally often: a two-pass candidate moves it twice).
// Where several clear it, a measured search on the problem's own buffers (tut::search_ms of each candidate),
// cached per GPU, driver and build in the plan file (common/plan_cache.hpp). Everything here runs at set-up.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "fft_chapter.cuh"
#include "plan_cache.hpp"

namespace tut::fft {

// The problem a plan is made for, and its buffers (the search runs on them: the workload's own).
struct FftProblem {
  const float2* in = nullptr;
  float2* out = nullptr;
  void* workspace = nullptr;
  int log2n = 0;
  long long batch = 0;
};

// The key's stage name: "<plan.stage> N=2^<log2n> batch 2^<floor log2 batch>" (the size class matters).
std::string plan_stage_name(const FftStagePlan& plan, int log2n, long long batch);

// The plan request of `choice` (plan.choices(problem.log2n)) for `problem` on the current device: the key, the
// candidates' names, the model above and the search. It holds copies: it outlives its arguments.
PlanRequest fft_plan_request(const FftStagePlan& plan, const FftChoice& choice, const FftProblem& problem);

// The candidate of `choice` named `name`; throws std::logic_error where there is none.
const FftCandidate& candidate_named(const FftChoice& choice, const std::string& name);

// The stage's plan for `problem` and the launch it runs. Chosen with this process's plan settings (the runner's
// --replan and plan folder; the plan line recorded for the runner to print) or, where given, with `cache`
// (tests: PlanCache("") measures every time and records nothing). Call after the variant's set-up.
struct FftPlanned {
  Plan plan;
  FftLaunch launch;
};
FftPlanned plan_fft_stage(const FftStagePlan& plan, const FftProblem& problem, const PlanCache* cache = nullptr);

}  // namespace tut::fft
