#include "stats.hpp"

#include <algorithm>
#include <cmath>

namespace tut {

TimingStats summarize(std::vector<double> samples_ms) {
  TimingStats s;
  if (samples_ms.empty()) return s;
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t n = samples_ms.size();
  s.reps = static_cast<int>(n);
  s.min_ms = samples_ms.front();
  s.max_ms = samples_ms.back();
  s.median_ms = n % 2 ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
  return s;
}

RatioStats paired_ratios(const std::vector<double>& reference_ms, const std::vector<double>& this_ms) {
  RatioStats out;
  if (reference_ms.empty() || reference_ms.size() != this_ms.size()) return out;
  std::vector<double> ratios;
  for (std::size_t i = 0; i < this_ms.size(); ++i) {
    if (!(reference_ms[i] > 0) || !(this_ms[i] > 0)) return out;
    ratios.push_back(reference_ms[i] / this_ms[i]);
  }
  const TimingStats s = summarize(ratios);  // the same median, min and max, of ratios instead of times
  out.median = s.median_ms;
  out.min = s.min_ms;
  out.max = s.max_ms;
  out.rounds = s.reps;
  return out;
}

double gigabytes_per_second(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e6) : 0.0; }

double gigaflops_per_second(double flops, double ms) { return ms > 0 ? flops / (ms * 1e6) : 0.0; }

int adaptive_reps(double one_run_ms, double budget_ms, int min_reps, int max_reps) {
  if (one_run_ms <= 0) return max_reps;
  double r = std::floor(budget_ms / one_run_ms);
  return static_cast<int>(std::clamp(r, static_cast<double>(min_reps), static_cast<double>(max_reps)));
}

double peak_dram_gbps(int memory_clock_khz, int bus_width_bits) {
  return 2.0 * static_cast<double>(memory_clock_khz) * 1e3 * (bus_width_bits / 8.0) / 1e9;
}

int fp32_lanes_per_sm_by_cc(int cc_major, int cc_minor) {
  if (cc_major == 7) return 64;                     // Volta, Turing
  if (cc_major == 8) return cc_minor == 0 ? 64 : 128;  // A100: 64; GA10x, Orin, Ada: 128
  if (cc_major == 9 || cc_major == 10 || cc_major == 11 || cc_major == 12) return 128;  // Hopper, Blackwell
  return 0;
}

double peak_fp32_gflops_from(int sm_count, int lanes_per_sm, double sm_clock_khz) {
  return static_cast<double>(sm_count) * lanes_per_sm * 2.0 * sm_clock_khz * 1e-6;
}

}  // namespace tut
