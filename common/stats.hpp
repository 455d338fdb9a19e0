// Summary statistics of repeated timings, and the bandwidth arithmetic every chapter reports.
// Host-only, so the host tests cover it everywhere.
#pragma once

#include <vector>

namespace tut {

struct TimingStats {
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  int reps = 0;
};

// Median (mean of the two middle values for an even count), min and max. Empty input -> all zero.
TimingStats summarize(std::vector<double> samples_ms);

// A ratio measured in rounds: in each round both sides were timed back to back, so the clocks, the temperature
// and the power limit of a round are the same for both; the spread over the rounds is then the ratio's own.
struct RatioStats {
  double median = 0.0;
  double min = 0.0;
  double max = 0.0;
  int rounds = 0;
};

// reference_ms[i] / this_ms[i] for each round i: their median, min and max. All zero where the two differ in
// length, are empty, or hold a time that is not positive.
RatioStats paired_ratios(const std::vector<double>& reference_ms, const std::vector<double>& this_ms);

// Bytes over time as GB/s (1 GB = 1e9 bytes). Returns 0 for a zero or negative time.
double gigabytes_per_second(double bytes, double ms);

// Operations over time as GFLOP/s (1e9 operations per second).
double gigaflops_per_second(double flops, double ms);

// The repetitions that fit a time budget, clamped to [min_reps, max_reps].
int adaptive_reps(double one_run_ms, double budget_ms, int min_reps, int max_reps);

// Theoretical DRAM bandwidth from device attributes: memory clock in kHz (as reported by
// cudaDevAttrMemoryClockRate, the command clock) and bus width in bits. DDR-type memory transfers
// twice per clock.
double peak_dram_gbps(int memory_clock_khz, int bus_width_bits);

// FP32 lanes per SM: the results per clock per SM of "32-bit floating-point add, multiply, multiply-add"
// in the CUDA C++ Programming Guide's table "Throughput of Native Arithmetic Instructions" (section
// Arithmetic Instructions): 64 on 7.x and 8.0, 128 on 8.6, 8.7, 8.9, 9.0, 10.x, 11.x and 12.x. 0 for a
// compute capability the table here does not know (the share of peak is then not reported).
int fp32_lanes_per_sm_by_cc(int cc_major, int cc_minor);

// Theoretical FP32 peak in GFLOP/s: SMs x lanes x 2 flop (one FFMA per lane per clock) x the SM clock
// (kHz, as cudaDevAttrClockRate reports it: the maximum boost clock, which a long run may not hold).
double peak_fp32_gflops_from(int sm_count, int lanes_per_sm, double sm_clock_khz);

}  // namespace tut
