#include <cmath>
#include <optional>
#include <stdexcept>
#include <vector>

#include "fft_plan.cuh"
#include "plan_search.cuh"

namespace tut::fft {

std::string plan_stage_name(const FftStagePlan& plan, int log2n, long long batch) {
  const int log2b = batch > 0 ? static_cast<int>(std::floor(std::log2(static_cast<double>(batch)))) : 0;
  return plan.stage + " N=2^" + std::to_string(log2n) + " batch 2^" + std::to_string(log2b);
}

const FftCandidate& candidate_named(const FftChoice& choice, const std::string& name) {
  for (const auto& c : choice.candidates)
    if (c.name == name) return c;
  throw std::logic_error("fft plan: no candidate named '" + name + "'");
}

PlanRequest fft_plan_request(const FftStagePlan& plan, const FftChoice& choice, const FftProblem& problem) {
  if (choice.candidates.empty())
    throw std::logic_error("fft plan: " + plan.stage + " has no candidate at N = 2^" + std::to_string(problem.log2n));
  PlanRequest r;
  r.key = plan_key_here(plan_stage_name(plan, problem.log2n, problem.batch), plan.build_id);
  for (const auto& c : choice.candidates) r.candidates.push_back(c.name);
  const int sms = r.key.sm_count;
  r.model = [choice, problem, sms]() -> std::optional<Plan> {
    const double signal_bytes = static_cast<double>(sizeof(float2)) * static_cast<double>(1ll << problem.log2n);
    std::vector<std::string> names;
    std::vector<InFlight> have;
    for (const auto& c : choice.candidates) {
      const FftResidency res = c.residency ? c.residency() : FftResidency{};
      names.push_back(c.name);
      have.push_back({res.blocks_per_sm, res.signals_per_block * signal_bytes});
    }
    const InFlightNeed need = in_flight_need_here();
    if (choice.candidates.size() == 1) {
      std::string why = "model: " + choice.why;
      if (have[0].blocks_per_sm > 0) why += "; in flight per SM " + in_flight_text(have[0]) + ", " + need.text();
      return Plan{names[0], why};
    }
    // One wave: every block of the default is resident at once.
    const FftResidency first = choice.candidates[0].residency ? choice.candidates[0].residency() : FftResidency{};
    if (first.blocks_per_sm > 0 && first.signals_per_block > 0) {
      const double blocks = std::ceil(static_cast<double>(problem.batch) / first.signals_per_block);
      const double resident = std::floor(first.blocks_per_sm * sms);
      if (blocks <= resident)
        return Plan{names[0], "model: one wave of blocks (" + std::to_string(static_cast<long long>(blocks)) + ", " +
                                  std::to_string(static_cast<long long>(resident)) + " resident at once), the default"};
    }
    // Little's law compares candidates that move the same bytes; one that moves them twice is measured.
    for (const auto& c : choice.candidates)
      if (c.passes != choice.candidates[0].passes) return std::nullopt;
    return in_flight_model(names, have, need.bytes_per_sm(), need.text());  // nothing where several clear it: measure
  };
  r.measure = [choice, problem](const std::vector<std::string>& names) {
    std::vector<double> ms;
    for (const auto& name : names) {
      const FftLaunch& launch = candidate_named(choice, name).launch;
      ms.push_back(search_ms([&](cudaStream_t s) {
        launch(problem.in, problem.out, problem.log2n, problem.batch, problem.workspace, s);
      }));
    }
    return ms;
  };
  return r;
}

FftPlanned plan_fft_stage(const FftStagePlan& plan, const FftProblem& problem, const PlanCache* cache) {
  const FftChoice choice = plan.choices(problem.log2n);
  const PlanRequest r = fft_plan_request(plan, choice, problem);
  const Plan p = cache ? choose_plan(r, *cache, false) : choose_plan(r);
  return {p, candidate_named(choice, p.choice).launch};
}

}  // namespace tut::fft
