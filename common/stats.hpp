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

}  // namespace tut
