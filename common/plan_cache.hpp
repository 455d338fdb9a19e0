// Plans per GPU: which candidate configuration a tuned stage runs on this GPU, and why.
//
// A stage first asks a model (the device's properties and measured constants, e.g. Little's law below); where
// the model cannot decide, a short measured search over a few candidates at set-up, cached in a plan file per
// (stage, GPU name, compute capability, SM count, driver, build), as cuFFT plans and FFTW wisdom are. A stale key,
// a corrupt or truncated file or an entry naming a candidate that no longer exists is ignored with one line on
// stderr and planned again: never a crash, never a wrong plan. Plain C++ (host-tested); the measuring is a
// callback, so the GPU side lives with the stage. docs/tuning-per-gpu.md tells the lesson.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace tut {

// ---- Little's law ---------------------------------------------------------------------------------------------
// Bytes a memory-bound kernel must keep in flight per SM to reach `bandwidth_bytes_per_s`: bandwidth x latency
// (bytes in flight on the whole chip) over the SMs that share it. 0 for a non-positive input.
inline double bytes_in_flight_per_sm(double bandwidth_bytes_per_s, double latency_s, int sms) {
  if (bandwidth_bytes_per_s <= 0 || latency_s <= 0 || sms <= 0) return 0.0;
  return bandwidth_bytes_per_s * latency_s / sms;
}

// The DRAM latency the model uses by default: chapter 02's pointer chase with one warp per SM (chase-warps-1,
// "564 ns/load" in chapters/02-gpu-principles/README.md, NVIDIA H100 80GB HBM3, 2026-11-27). An unloaded latency:
// under load it grows, so the model's need is a lower bound and a candidate must clear it with a margin.
inline constexpr double kChapter02DramLatencySeconds = 564e-9;

// Loaded latency grows past chapter 02's unloaded chase (by how much is not measured yet): a candidate counts as
// clearing the need only with this margin, a guess that the --sms runs of docs/tuning-per-gpu.md check.
inline constexpr double kInFlightMargin = 2.0;

// ---- The key and the plan -------------------------------------------------------------------------------------
struct PlanKey {
  std::string stage;      // e.g. "18 int32 sum 2^28": the stage and what changes its choice
  std::string gpu_name;   // cudaDeviceProp::name
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;       // the SMs in use (a --sms green context restricts them)
  int driver_version = 0;
  std::string build_id;   // tut::this_build() of the stage's translation unit
};

struct Plan {
  std::string choice;  // a candidate's name
  std::string why;     // "model: ..." or "measured: ..."
};

// A build's identity, from the translation unit that expands the macro: its file and compile date and time,
// hashed. A rebuild of the stage makes every plan it cached stale.
#define TUT_THIS_BUILD_ID() ::tut::hash_text(__FILE__ " " __DATE__ " " __TIME__)
std::string hash_text(const std::string& text);  // 16 hex digits (FNV-1a, 64-bit)

// ---- The plan file -------------------------------------------------------------------------------------------
// Where plans live: $TUT_PLAN_DIR, else $XDG_CACHE_HOME/cuda-tutorial, else $HOME/.cache/cuda-tutorial. Empty
// (no cache) when none is set; `why` (if given) then says so.
std::string default_plan_dir(std::string* why = nullptr);

class PlanCache {
 public:
  // dir empty: no cache (load finds nothing, store does nothing). Notes (one line each) go to `log`.
  explicit PlanCache(std::string dir, std::ostream* log = nullptr);
  const std::string& dir() const { return dir_; }
  // The file of a key: one per stage, GPU and SM count (the driver and build are checked inside).
  std::string path_for(const PlanKey& key) const;
  // The cached plan of `key` if its file exists, is whole, matches the key and names one of `candidates`;
  // otherwise nothing, with one line on the log saying why it was ignored (a missing file is silent).
  std::optional<Plan> load(const PlanKey& key, const std::vector<std::string>& candidates) const;
  // Writes the plan atomically (a temporary file in the same folder, then rename); false, with one line on the
  // log, when it cannot (the run goes on with the plan it measured).
  bool store(const PlanKey& key, const Plan& plan) const;

 private:
  std::string dir_;
  std::ostream* log_;
};

// ---- The in-flight model -------------------------------------------------------------------------------------
// What one candidate keeps in flight per SM: its resident blocks per SM (from the occupancy API; a fraction where
// a cluster's blocks spread over the SMs) times the bytes each block loads at once.
struct InFlight {
  double blocks_per_sm = 0;
  double bytes_per_block = 0;
  double bytes_per_sm() const { return blocks_per_sm * bytes_per_block; }
};

// "18 KiB": bytes in whole KiB, for plan lines.
std::string kib_text(double bytes);
// "6 blocks x 18 KiB = 108 KiB" (blocks to three digits where a fraction).
std::string in_flight_text(const InFlight& in_flight);
// "20 KiB in flight per SM needed (4814 GB/s x 564 ns / 132 SMs)": the need of bytes_in_flight_per_sm().
std::string in_flight_need_text(double need_bytes, double gbps, double latency_s, int sms);

// The model for candidates that move the same bytes (Little's law): the one candidate that alone keeps
// margin x need in flight per SM; where none does, the one that keeps the most; where several do, nothing (the
// model cannot tell them apart: measure). `need_text` (in_flight_need_text's) goes into the plan's why.
std::optional<Plan> in_flight_model(const std::vector<std::string>& names, const std::vector<InFlight>& have,
                                    double need, const std::string& need_text, double margin = kInFlightMargin);

// ---- Choosing ------------------------------------------------------------------------------------------------
struct PlanRequest {
  PlanKey key;
  std::vector<std::string> candidates;  // names, the default first
  // The model: a plan with why = "model: ...", or nothing where it cannot decide.
  std::function<std::optional<Plan>()> model;
  // The measured search: median milliseconds of each candidate, in the order of `candidates` (run at set-up,
  // outside every timed and profiled region).
  std::function<std::vector<double>(const std::vector<std::string>&)> measure;
};

// The model's plan if it decides; else the cached plan (unless replan); else measures, keeps the fastest and
// caches it. The returned plan's `why` is the one line the runner prints; the line is also recorded (below).
Plan choose_plan(const PlanRequest& request, const PlanCache& cache, bool replan);

// The settings of this process (the runner sets them from --replan) and the plan lines of this run, which the
// runner prints after the banner ("plan: <stage>: <choice> (<why>)").
struct PlanSettings {
  bool replan = false;
  std::string dir;          // "" with dir_set: no cache
  bool dir_set = false;     // false: default_plan_dir()
  std::ostream* log = nullptr;  // nullptr: std::cerr
};
PlanSettings& plan_settings();
std::vector<std::string>& plan_lines();
// choose_plan with this process's settings and cache, recording the line.
Plan choose_plan(const PlanRequest& request);

}  // namespace tut
