// Chapter 02, experiment 2: how many warps per SM hide the latency of a dependent chain?
// --size is the number of dependent steps per thread. Each variant puts exactly W warps on every SM:
// one block of W warps (two blocks of W/2 above 32 warps, the largest block), with dynamic shared
// memory keeping any further block off the SM, and a grid of one block per slot. The occupancy
// calculator confirms the residency; the summary prints it.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_buffer.cuh"
#include "experiment.cuh"
#include "latency.cuh"

namespace latency_experiment {

using namespace principles;

constexpr int kWarpCounts[] = {1, 2, 4, 8, 12, 16, 24, 32, 48, 64};
constexpr int kMaxWarps = 64;
constexpr std::uint64_t kMaxSteps = 1ull << 40;
constexpr int kSectorBytes = 32;  // what DRAM and L2 move for one scattered 4-byte load

struct Variant {
  std::string name;
  bool chase;  // pointer chase (else FMA chain)
  int warps;   // warps per SM asked for
};

std::vector<Variant> variants() {
  std::vector<Variant> v;
  for (bool chase : {false, true})
    for (int w : kWarpCounts) v.push_back({std::string(chase ? "chase" : "fma") + "-warps-" + std::to_string(w), chase, w});
  return v;
}

int blocks_per_sm(int warps) { return (warps + 31) / 32; }  // a block holds at most 32 warps
int block_threads(int warps) { return warps * kWarpSize / blocks_per_sm(warps); }

int chains_option(const tut::Options& opt) {
  const long long c = opt.extra.at("chains");
  if (c != 1 && c != 2 && c != 4 && c != 8) throw tut::UsageError("--chains must be 1, 2, 4 or 8");
  return static_cast<int>(c);
}

std::uint64_t chase_nodes(const tut::Options& opt) {
  const auto mib = static_cast<std::uint64_t>(opt.extra.at("chase-mib"));
  if (mib & (mib - 1)) throw tut::UsageError("--chase-mib must be a power of two");
  return mib * (1u << 20) / sizeof(std::uint32_t);
}

// One-time set-up of a variant on the current device: its kernel may ask for all the shared memory.
void setup_variant(const Variant& v, int chains) {
  if (v.chase) setup_shared_memory(chase_pointers);
  else setup_shared_memory(fma_kernel_for(chains));
}

// The launch of a variant (after setup_variant(v, chains)).
Residency residency(const Variant& v, int chains) {
  return v.chase ? plan_residency(chase_pointers, block_threads(v.warps), blocks_per_sm(v.warps))
                 : plan_residency(fma_kernel_for(chains), block_threads(v.warps), blocks_per_sm(v.warps));
}

std::size_t sm_count() { return static_cast<std::size_t>(device_attribute(cudaDevAttrMultiProcessorCount)); }

class LatencyWorkload final : public tut::Workload {
 public:
  std::size_t device_bytes(const tut::Options& opt) const override {
    const std::size_t stride = sm_count() * kMaxWarps * kWarpSize;
    return chase_nodes(opt) * sizeof(std::uint32_t) + stride * sizeof(std::uint32_t) +
           2 * (2 * static_cast<std::size_t>(chains_option(opt))) * stride * sizeof(float);
  }

  void prepare(const tut::Options& opt, bool) override {
    if (opt.size > kMaxSteps) throw tut::UsageError("--size (dependent steps per thread) must be at most 2^40");
    steps_ = opt.size;
    chains_ = chains_option(opt);
    sms_ = sm_count();
    stride_ = sms_ * kMaxWarps * kWarpSize;
    residency_.assign(variants_.size(), Residency{});  // each variant's, from setup()

    nodes_ = chase_nodes(opt);
    mask_ = static_cast<std::uint32_t>(nodes_ - 1);
    {
      std::vector<std::uint32_t> next(nodes_);
      tut::parallel_for(nodes_, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) next[i] = chase_next(static_cast<std::uint32_t>(i), mask_);
      });
      next_ = tut::DeviceBuffer<std::uint32_t>(next);
      next_.label("next").watch();
    }
    chase_out_ = tut::DeviceBuffer<std::uint32_t>(stride_);

    init_host_ = chain_start_values(2 * chains_, stride_, opt.seed);
    init_ = tut::DeviceBuffer<float>(init_host_);
    init_.label("init").watch();
    fma_out_ = tut::DeviceBuffer<float>(init_host_.size());
    expected_fma_.clear();
  }

  void setup(const std::string& name) override {
    const std::size_t i = index_of(name);
    setup_variant(variants_[i], chains_);
    residency_[i] = residency(variants_[i], chains_);
  }

  void poison(cudaStream_t s) override {
    chase_out_.poison(s);
    fma_out_.poison(s);
  }

  void run(const std::string& name, cudaStream_t s) override {
    // Host time spent here lands inside the timed interval: look up, do not rebuild.
    const std::size_t i = index_of(name);
    const Variant& v = variants_[i];
    const Residency& r = residency_[i];
    if (r.block_threads == 0) throw std::logic_error("02-gpu-principles-latency: setup() was not called for " + name);
    const unsigned grid = static_cast<unsigned>(sms_ * r.blocks_per_sm);
    if (v.chase) {
      chase_pointers<<<grid, r.block_threads, r.dynamic_smem, s>>>(next_.data(), chase_out_.data(), mask_,
                                                                   spacing(v), static_cast<long long>(steps_));
    } else {
      fma_kernel_for(chains_)<<<grid, r.block_threads, r.dynamic_smem, s>>>(init_.data(), fma_out_.data(), stride_,
                                                                            static_cast<long long>(steps_));
    }
    TUT_CHECK_LAUNCH();
  }

  tut::CheckResult check(const std::string& name) override {
    const Variant& v = variants_[index_of(name)];
    const std::size_t threads = thread_count(v);
    if (!v.chase) {
      // One reference for every warp count: thread t's chains depend only on its own start values.
      if (expected_fma_.empty()) expected_fma_ = chain_reference(init_host_, stride_, chains_, steps_);
      return compare_planes(expected_fma_, fma_out_.download(), stride_, threads, 2 * chains_);
    }
    std::vector<std::uint32_t> expected(threads);
    const std::uint64_t gap = spacing(v);
    tut::parallel_for(threads, [&](std::size_t b, std::size_t e) {
      for (std::size_t t = b; t < e; ++t) expected[t] = chase_jump(0, t * gap + steps_, mask_);
    }, 256);
    std::vector<std::uint32_t> actual = chase_out_.download();
    actual.resize(threads);
    return tut::compare_exact(expected, actual);
  }

  tut::Work work(const std::string& name) const override {
    const Variant& v = variants_[index_of(name)];
    const double ops = static_cast<double>(thread_count(v)) * static_cast<double>(steps_);
    if (v.chase) return {ops * kSectorBytes, 0.0};
    return {0.0, 4.0 * ops * chains_};  // 2 FMAs of 2 flop per chain per step
  }

 private:
  std::size_t thread_count(const Variant& v) const { return sms_ * v.warps * kWarpSize; }
  std::uint64_t spacing(const Variant& v) const { return nodes_ / thread_count(v); }
  std::size_t index_of(const std::string& name) const {
    for (std::size_t i = 0; i < variants_.size(); ++i)
      if (variants_[i].name == name) return i;
    throw tut::UsageError("unknown variant " + name);
  }

  std::uint64_t steps_ = 0, nodes_ = 0;
  std::uint32_t mask_ = 0;
  int chains_ = 1;
  std::size_t sms_ = 0, stride_ = 0;
  const std::vector<Variant> variants_ = variants();
  std::vector<Residency> residency_;  // of each variant, in the same order
  std::vector<float> init_host_, expected_fma_;
  tut::DeviceBuffer<float> init_, fma_out_;
  tut::DeviceBuffer<std::uint32_t> next_, chase_out_;
};

Summary summary(const tut::DeviceInfo& d, const tut::Options& opt, const std::vector<tut::Result>& rows) {
  const int chains = chains_option(opt);
  const double steps = static_cast<double>(opt.size);
  double best[2] = {0, 0};  // best rate of the FMA and of the chase variants
  for (const auto& v : variants())
    if (const tut::Result* r = find_row(rows, v.name); r && r->time.median_ms > 0)
      best[v.chase] = std::max(best[v.chase], 1.0 / r->time.median_ms * v.warps);

  Summary s;
  s.title = "Rule 2 (article §1.3): enough warps per SM hide the latency of dependent instructions";
  const double peak = peak_fp32_gflops(d.sm_count, fp32_lanes_per_sm(d.cc_major, d.cc_minor).lanes, d.sm_clock_khz);
  s.head = {"", "blocks/SM x threads", "resident warps/SM", "threads/SM", "rate", "% of peak", "% of best",
            "time per step"};
  s.rows.push_back({"GTX 280 (article)", "any", std::to_string(gtx280::kThreadsPerSmForPeak / kWarpSize) + " of 32",
                    std::to_string(gtx280::kThreadsPerSmForPeak), "620 GFLOP/s",
                    fixed(100.0 * 620.0 / gtx280::kPeakGflops, 1) + " of 933", "-", "-"});
  int knee[2] = {0, 0};
  for (const auto& v : variants()) {
    const tut::Result* r = find_row(rows, v.name);
    if (!r) continue;
    const Residency res = residency(v, chains);
    // Every thread does the same work, so the rate is proportional to warps / time.
    const double rate = r->time.median_ms > 0 ? 1.0 / r->time.median_ms * v.warps : 0.0;
    const double share = best[v.chase] > 0 ? rate / best[v.chase] : 0.0;
    if (!knee[v.chase] && share >= 0.9) knee[v.chase] = v.warps;
    std::string per_step = "-";
    if (steps > 0 && r->time.median_ms > 0) {
      const double ns = r->time.median_ms * 1e6 / steps;
      per_step = v.chase ? fixed(ns, 0) + " ns/load"
                         : fixed(ns * d.sm_clock_khz * 1e-6 / 2.0, 1) + " cycles/FMA";
    }
    s.rows.push_back({v.name, std::to_string(res.blocks_per_sm) + " x " + std::to_string(res.block_threads),
                      std::to_string(res.resident_warps()) + (res.as_intended() ? "" : " (!)"),
                      std::to_string(res.resident * res.block_threads),
                      v.chase ? fixed(r->gbps / kSectorBytes, 1) + " Gload/s" : fixed(r->gflops, 0) + " GFLOP/s",
                      v.chase ? fixed(r->pct_peak_dram, 1) + " (DRAM)" : fixed(100.0 * r->gflops / peak, 1),
                      fixed(100.0 * share, 1), per_step});
  }
  const int max_warps = device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor) / kWarpSize;
  s.notes = {
      "FMA chains per thread: " + std::to_string(chains) + " (--chains). 'time per step' at few warps is the latency of "
      "one dependent step (cycles at the " + fixed(d.sm_clock_khz / 1e3, 0) + " MHz boost clock).",
      "Chase: % of peak is of the DRAM peak, counting one 32-byte sector per load.",
      "90% of the best rate first reached at: FMA " + (knee[0] ? std::to_string(knee[0]) + " warps/SM" : std::string("-")) +
          ", chase " + (knee[1] ? std::to_string(knee[1]) + " warps/SM" : std::string("-")) + " (this GPU holds up to " +
          std::to_string(max_warps) + "); the article needed " + std::to_string(gtx280::kThreadsPerSmForPeak) +
          " threads = 8 warps/SM on the GTX 280, where the guide of the time said " +
          std::to_string(gtx280::kGuideThreadsPerSm) + ".",
  };
  if (kMaxWarps > max_warps)
    s.notes.push_back("(!) marks a warp count this GPU cannot hold at once: the extra blocks run in a second wave.");
  return s;
}

tut::ChapterSpec spec() {
  tut::ChapterSpec spec;
  spec.id = "02-gpu-principles-latency";
  spec.title = "rule 2: latency hiding, FMA chain and pointer chase against warps per SM (--size: steps per thread)";
  spec.default_size = "2^14";
  for (const auto& v : variants())
    spec.variants.push_back({v.name,
                             (v.chase ? "dependent loads through a " : "dependent FMA chain(s), ") +
                                 std::string(v.chase ? "--chase-mib array, " : "") + std::to_string(v.warps) +
                                 " warp" + (v.warps > 1 ? "s" : "") + " per SM",
                             false, ""});
  spec.extra_options = {
      {"chains", "independent FMA chains per thread: 1, 2, 4 or 8", 1, 1, 8},
      {"chase-mib", "size of the pointer-chase array in MiB, a power of two (make it larger than the L2)", 256, 1, 8192},
  };
  spec.make_workload = [] { return std::make_unique<LatencyWorkload>(); };
  return spec;
}

}  // namespace latency_experiment

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) {
  return principles::run_experiment(argc, argv, latency_experiment::spec(), latency_experiment::summary);
}
#endif
