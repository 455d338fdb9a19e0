// Results of a chapter run and their three output formats. Host-only.
#pragma once

#include <cstdint>
#include <ostream>
#include <map>
#include <string>
#include <vector>

#include "cli.hpp"
#include "stats.hpp"

namespace tut {

struct VariantSpec {
  std::string name;
  std::string description;
  bool reference = false;    // a vendor library (CUB, cuBLAS...): always run, shown with a '*'
  std::string known_defect;  // non-empty for an 'article' variant kept to show a documented defect:
                             // a mismatch is reported as this text and does not fail the run
  // A configuration measured to choose the stage (a sweep point, a lost exploration): run only when
  // named with --variant, or with --variant all. A plain run measures the stage and the references.
  bool on_demand = false;
};

// What the banner prints; filled from the CUDA runtime in device.cu.
struct DeviceInfo {
  std::string name;
  int device = 0;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;          // the SMs in use: a --sms green context's share where one is current
  int device_sm_count = 0;   // the device's SMs where sm_count is a green context's share (0: the whole GPU)
  long long l2_bytes = 0;
  long long global_mem_bytes = 0;
  int sm_clock_khz = 0;
  int mem_clock_khz = 0;
  int bus_width_bits = 0;
  int driver_version = 0;   // e.g. 13000
  int runtime_version = 0;
  double peak_dram_gbps = 0.0;
  double peak_fp32_gflops = 0.0;   // SMs x FP32 lanes per SM x 2 x SM clock (0: lanes unknown)
};

// One row: a variant (or a reference such as CUB or cudaMemcpy) measured at one size.
struct Result {
  std::string chapter;
  std::string variant;
  bool reference = false;   // a vendor library or cudaMemcpy, not the chapter's own code
  std::uint64_t n = 0;
  double bytes = 0.0;       // minimum bytes moved: inputs read once, outputs written once
  double flops = 0.0;       // 0 for memory-bound work
  TimingStats time;
  double gbps = 0.0;
  double gflops = 0.0;
  double pct_peak_dram = 0.0;   // share of the theoretical DRAM bandwidth, percent
  double pct_peak_fp32 = 0.0;   // share of the theoretical FP32 peak, percent (0: no flops or no peak)
  double pct_memcpy = 0.0;      // share of the same run's cudaMemcpy bandwidth, percent (0: not measured)
  double speed_vs_ref = 0.0;    // reference time / this time (>1: faster than the reference; 0: none)
  std::string ref_name;         // the reference that speed_vs_ref compares with
  // --rounds N > 1: speed_vs_ref is the median over the rounds of the ratio within each round, and these are the
  // rounds' lowest and highest ratio (0: timed in one block, no paired range).
  double speed_min = 0.0, speed_max = 0.0;
  int rounds = 0;
  std::string check;            // "ok", "skipped", "MISMATCH: ..." or "known defect: ..."
  bool failed = false;          // a mismatch that is not a documented defect
};

// Fills gbps, gflops and the percentages of one result from its time, the device peak and the
// memcpy bandwidth measured in the same run (0 if none), and the FP32 peak (0: not reported).
void derive_rates(Result& r, double peak_dram_gbps, double memcpy_gbps, double peak_fp32_gflops = 0.0);

std::string device_banner(const DeviceInfo& d);
std::string json_escape(const std::string& s);

void write_table(std::ostream& os, const std::vector<Result>& rows);
// Any table of text: first column and last column left-aligned, the others right-aligned, a rule
// under the header.
void write_text_table(std::ostream& os, const std::vector<std::string>& head,
                      const std::vector<std::vector<std::string>>& rows);
void write_csv(std::ostream& os, const std::vector<Result>& rows);
// `options`: the chapter's own options and their values in this run (e.g. {"length": 1024}), written to the
// JSON as "options" so that the tools can show them.
void write_json(std::ostream& os, const DeviceInfo& d, const std::string& chapter,
                const std::string& command, const std::vector<Result>& rows,
                const std::map<std::string, long long>& options = {});
// `--list`: the variants, one a line (table: "name[ (reference)| (on demand)]<TAB>description[ [known defect:
// ...]]"), as CSV, or as a JSON array of {name, description, reference, on_demand, known_defect}.
void write_variant_list(std::ostream& os, OutputFormat f, const std::vector<VariantSpec>& variants);
void write_results(std::ostream& os, OutputFormat f, const DeviceInfo& d, const std::string& chapter,
                   const std::string& command, const std::vector<Result>& rows,
                   const std::map<std::string, long long>& options = {});

}  // namespace tut
