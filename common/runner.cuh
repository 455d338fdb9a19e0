// The chapter runner: every chapter's main() is one call to run_chapter().
//
// A chapter describes its variants (ChapterSpec) and provides a Workload that owns the buffers,
// makes the seeded input, launches a named variant, and checks the output against a CPU reference.
// The runner does everything else: the command line, the GPU check, the banner, poisoning, checking,
// timing with NVTX ranges, the cudaMemcpy reference, the ratios and the output format.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "report.hpp"
#include "timing.cuh"
#include "verify.hpp"

namespace tut {

// Bytes and operations one run of a variant performs (the minimum: inputs read once, outputs
// written once).
struct Work {
  double bytes = 0.0;
  double flops = 0.0;
  std::uint64_t n = 0;  // elements of this variant's problem where it is not --size (0: --size)
  int devices = 1;      // GPUs the run uses: its % of peak and % of cudaMemcpy are shares of that many GPUs
};

class Workload {
 public:
  virtual ~Workload() = default;
  // Device memory prepare() will allocate, so that a size that cannot fit is refused before it tries.
  virtual std::size_t device_bytes(const Options& opt) const = 0;
  // Host memory prepare() and check() will need (input, CPU reference, downloaded output). The default,
  // twice the device bytes, is an upper bound for the chapters here; the tests use it to skip a case that
  // this machine cannot hold instead of being killed by the out-of-memory killer.
  virtual std::size_t host_bytes(const Options& opt) const { return 2 * device_bytes(opt); }
  // Allocates buffers, uploads the seeded input, and (when with_reference) computes the CPU reference.
  virtual void prepare(const Options& opt, bool with_reference) = 0;
  // One-time set-up of `variant` on every device it will run on (shared-memory opt-in with
  // cudaFuncSetAttribute, twiddle tables, communicators, vendor-library handles and plans): what a library
  // does once when a plan or handle is made, not per call. The harness calls it after prepare(), just before
  // the first checked, timed or profiled run of that variant (variant after variant, so a workload may hold
  // one variant's resources at a time), so run() never pays for it and never synchronises.
  // Cache per device, not per process: one process may drive several GPUs.
  virtual void setup(const std::string& variant) { (void)variant; }
  // Fills every output buffer with the poison pattern.
  virtual void poison(cudaStream_t stream) = 0;
  // Enqueues one run of `variant` on `stream`: launches and asynchronous copies only (no synchronisation, no
  // allocation, no one-time set-up: see setup()).
  virtual void run(const std::string& variant, cudaStream_t stream) = 0;
  // Compares the outputs of the last run of `variant` with the reference.
  virtual CheckResult check(const std::string& variant) = 0;
  virtual Work work(const std::string& variant) const = 0;
  // Called once after the checked and timed runs of `variant` (outside the "timed" range), before the next
  // variant's setup(): measurements beyond the runner's that the chapter's summary reports (chapter 40's
  // parts), or freeing what setup(variant) made so that the next variant has the memory.
  virtual void finish(const std::string& variant) { (void)variant; }
  // Bytes of a device-to-device cudaMemcpy that moves as much data as this workload (0: none).
  virtual std::size_t memcpy_bytes() const { return 0; }
};

struct ChapterSpec {
  std::string id;            // folder name, e.g. "05-scan-baseline"; also the NVTX prefix
  std::string title;         // one line for --help and the banner
  std::string default_size;  // e.g. "2^28"
  std::vector<VariantSpec> variants;
  std::vector<ExtraOption> extra_options;
  std::string ratio_to;      // the variant every row's "speed vs" compares with (e.g. "cub"); may be empty
  std::function<std::unique_ptr<Workload>()> make_workload;
  // Optional: printed after the table in table mode, for what the generic table cannot show (the
  // article's figure beside ours, occupancy...). Gets the measured rows of this run.
  std::function<void(std::ostream&, const DeviceInfo&, const Options&, const std::vector<Result>&)> summary;
  // Optional: for a chapter whose variants depend on the options or the machine (chapter 40: one per GPU
  // count up to --gpus). Called on a copy of the spec after the GPU check, before anything is measured; it
  // may replace `variants` and `ratio_to`, and throws UsageError for options this machine cannot run.
  // `variants` as written is what --list prints and what --variant may name (checked before the GPU); the
  // resolved variants must keep those names.
  std::function<void(ChapterSpec&, const Options&)> resolve;
  // Its workload holds one variant's resources at a time (chapter 40: one communicator set per GPU count), so
  // --rounds, which sets every selected variant up before timing them in turn, is refused.
  bool one_variant_at_a_time = false;
};

// The timing plan of the options (warm-up, repetitions, budget, L2 flush; profile mode: one timed run),
// with the timed repetitions in the NVTX range "timed". A chapter that times more than its variants' runs
// (chapter 40's parts) uses it too, with timed_range cleared so that ncu's filter does not select them.
TimingPlan timing_plan(const Options& opt);

// Parses argv, runs the selected variants and prints the results. Returns the process exit status:
// 0 success, 1 a failed check or CUDA error (no GPU included), 2 bad usage.
int run_chapter(int argc, char** argv, const ChapterSpec& spec);

// The same, but returns the rows instead of printing them (used by tests and the tour).
std::vector<Result> measure_chapter(const ChapterSpec& spec, const Options& opt, DeviceInfo* info = nullptr);

}  // namespace tut
