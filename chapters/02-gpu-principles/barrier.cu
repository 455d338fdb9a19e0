// Chapter 02, experiment 3: does a second resident block hide __syncthreads()?
// --size is the number of chain steps per thread. Every variant runs the same threads (--warps-per-sm
// warps on every SM) and the same FMAs; what changes is how often the block synchronises and how the
// SM's warps are split into blocks: 1, 2 or 4 resident blocks per SM, set with dynamic shared memory
// and confirmed with the occupancy calculator.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "barrier.cuh"
#include "device_buffer.cuh"
#include "experiment.cuh"

namespace barrier_experiment {

using namespace principles;

constexpr int kStepsPerBarrier[] = {1, 4, 16, 64, 0};  // 0: no barrier
constexpr int kBlocksPerSm[] = {1, 2, 4};
constexpr std::uint64_t kMaxSteps = 1ull << 40;

struct Variant {
  std::string name;
  int steps_per_barrier;
  int blocks_per_sm;
};

std::vector<Variant> variants() {
  std::vector<Variant> v;
  for (int spb : kStepsPerBarrier)
    for (int blocks : kBlocksPerSm)
      v.push_back({(spb ? "sync-every-" + std::to_string(spb) : std::string("no-sync")) + "-blocks-" +
                       std::to_string(blocks),
                   spb, blocks});
  return v;
}

using Kernel = void (*)(const float*, float*, std::size_t, long long);

Kernel kernel_for(int steps_per_barrier) {
  switch (steps_per_barrier) {
    case 1: return fma_with_barriers<1>;
    case 4: return fma_with_barriers<4>;
    case 16: return fma_with_barriers<16>;
    case 64: return fma_with_barriers<64>;
    default: return fma_with_barriers<0>;
  }
}

int warps_per_sm(const tut::Options& opt) {
  const long long w = opt.extra.at("warps-per-sm");
  if (w % 4 != 0) throw tut::UsageError("--warps-per-sm must be a multiple of 4 (it is split into 1, 2 or 4 blocks)");
  return static_cast<int>(w);
}

// One-time set-up of a variant on the current device: its kernel may ask for all the shared memory.
void setup_variant(const Variant& v) { setup_shared_memory(kernel_for(v.steps_per_barrier)); }

// The launch of a variant: its blocks share the SM's warps evenly (after setup_variant(v)).
Residency residency(const Variant& v, int warps) {
  return plan_residency(kernel_for(v.steps_per_barrier), warps * kWarpSize / v.blocks_per_sm, v.blocks_per_sm);
}

std::size_t sm_count() { return static_cast<std::size_t>(device_attribute(cudaDevAttrMultiProcessorCount)); }

class BarrierWorkload final : public tut::Workload {
 public:
  std::size_t device_bytes(const tut::Options& opt) const override {
    return 2 * (2 * kBarrierChains) * sm_count() * warps_per_sm(opt) * kWarpSize * sizeof(float);
  }

  void prepare(const tut::Options& opt, bool) override {
    if (opt.size > kMaxSteps) throw tut::UsageError("--size (chain steps per thread) must be at most 2^40");
    steps_ = opt.size;
    warps_ = warps_per_sm(opt);
    sms_ = sm_count();
    threads_ = sms_ * warps_ * kWarpSize;
    residency_.assign(variants_.size(), Residency{});  // each variant's, from setup()
    init_host_ = chain_start_values(2 * kBarrierChains, threads_, opt.seed);
    init_ = tut::DeviceBuffer<float>(init_host_);
    init_.label("init").watch();
    out_ = tut::DeviceBuffer<float>(init_host_.size());
    expected_.clear();
  }
  void setup(const std::string& name) override {
    for (std::size_t i = 0; i < variants_.size(); ++i) {
      if (variants_[i].name != name) continue;
      setup_variant(variants_[i]);
      residency_[i] = residency(variants_[i], warps_);
    }
  }

  void poison(cudaStream_t s) override { out_.poison(s); }

  void run(const std::string& name, cudaStream_t s) override {
    // Host time spent here lands inside the timed interval: look up, do not rebuild.
    for (std::size_t i = 0; i < variants_.size(); ++i) {
      if (variants_[i].name != name) continue;
      const Residency& r = residency_[i];
      if (r.block_threads == 0) throw std::logic_error("02-gpu-principles-barrier: setup() was not called for " + name);
      const unsigned grid = static_cast<unsigned>(sms_ * variants_[i].blocks_per_sm);
      kernel_for(variants_[i].steps_per_barrier)<<<grid, r.block_threads, r.dynamic_smem, s>>>(
          init_.data(), out_.data(), threads_, static_cast<long long>(steps_));
      TUT_CHECK_LAUNCH();
      return;
    }
    throw tut::UsageError("unknown variant " + name);
  }

  tut::CheckResult check(const std::string&) override {
    // Barriers do not change the arithmetic: every variant must produce the same chains.
    if (expected_.empty()) expected_ = chain_reference(init_host_, threads_, kBarrierChains, steps_);
    return compare_planes(expected_, out_.download(), threads_, threads_, 2 * kBarrierChains);
  }

  tut::Work work(const std::string&) const override {
    return {0.0, 4.0 * static_cast<double>(threads_) * kBarrierChains * static_cast<double>(steps_)};
  }

 private:
  std::uint64_t steps_ = 0;
  int warps_ = 16;
  std::size_t sms_ = 0, threads_ = 0;
  const std::vector<Variant> variants_ = variants();
  std::vector<Residency> residency_;  // of each variant, in the same order
  std::vector<float> init_host_, expected_;
  tut::DeviceBuffer<float> init_, out_;
};

Summary summary(const tut::DeviceInfo& d, const tut::Options& opt, const std::vector<tut::Result>& rows) {
  const int warps = warps_per_sm(opt);
  const double peak = peak_fp32_gflops(d.sm_count, fp32_lanes_per_sm(d.cc_major, d.cc_minor).lanes, d.sm_clock_khz);
  Summary s;
  s.title = "Rule 3 (article §1.4): a second resident block hides __syncthreads()";
  s.head = {"", "FMAs/barrier/thread", "blocks/SM x threads", "resident blocks/SM", "GFLOP/s", "% of peak",
            "% of no-sync"};
  bool all_as_intended = true;
  for (const auto& v : variants()) {
    const tut::Result* r = find_row(rows, v.name);
    if (!r) continue;
    const Residency res = residency(v, warps);
    all_as_intended = all_as_intended && res.as_intended();
    const tut::Result* base = find_row(rows, "no-sync-blocks-" + std::to_string(v.blocks_per_sm));
    s.rows.push_back({v.name, v.steps_per_barrier ? std::to_string(2 * kBarrierChains * v.steps_per_barrier) : "-",
                      std::to_string(v.blocks_per_sm) + " x " + std::to_string(res.block_threads),
                      std::to_string(res.resident) + (res.as_intended() ? "" : " (!)"), fixed(r->gflops, 0),
                      fixed(100.0 * r->gflops / peak, 1),
                      base && base->gflops > 0 ? fixed(100.0 * r->gflops / base->gflops, 1) : "-"});
  }
  s.notes = {
      "Every variant runs " + std::to_string(warps) + " warps per SM (--warps-per-sm) and " +
          std::to_string(kBarrierChains) + " chains per thread; only the barriers and the split into blocks differ.",
      "The article (GTX 280) tabulated throughput against the ratio of barriers to arithmetic for 1 and 2 "
      "resident blocks (its Table 1); its figures are not in the text we have.",
  };
  if (!all_as_intended)
    s.notes.push_back("(!) the occupancy calculator does not allow the intended blocks per SM on this GPU.");
  return s;
}

tut::ChapterSpec spec() {
  tut::ChapterSpec spec;
  spec.id = "02-gpu-principles-barrier";
  spec.title = "rule 3: __syncthreads() cost against resident blocks per SM (--size: steps per chain)";
  spec.default_size = "2^14";
  for (const auto& v : variants())
    spec.variants.push_back(
        {v.name,
         (v.steps_per_barrier ? "__syncthreads() every " + std::to_string(v.steps_per_barrier) + " step(s)"
                              : std::string("no barrier")) +
             ", " + std::to_string(v.blocks_per_sm) + " resident block(s) per SM",
         false, ""});
  spec.extra_options = {{"warps-per-sm", "warps on every SM, split into 1, 2 or 4 blocks (multiple of 4)", 16, 4, 32}};
  spec.ratio_to = "no-sync-blocks-1";
  spec.make_workload = [] { return std::make_unique<BarrierWorkload>(); };
  return spec;
}

}  // namespace barrier_experiment

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) {
  return principles::run_experiment(argc, argv, barrier_experiment::spec(), barrier_experiment::summary);
}
#endif
