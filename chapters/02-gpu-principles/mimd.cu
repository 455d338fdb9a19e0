// Chapter 02, experiment 5a: branches uniform per warp cost nothing; branches inside a warp do.
// --size is the number of chain steps per thread; the grid is one full wave of 256-thread blocks.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "device_buffer.cuh"
#include "experiment.cuh"
#include "mimd.cuh"

namespace mimd_experiment {

using namespace principles;

constexpr std::uint64_t kMaxSteps = 1ull << 40;

struct Variant {
  const char* name;
  PathChoice choice;
  const char* description;
};

constexpr Variant kVariants[] = {
    {"same-code", PathChoice::kSameCode, "every thread runs the article's chain (no branch)"},
    {"branch-by-warp", PathChoice::kByWarp, "if (warp is odd) mirrored chain else article's chain: uniform per warp"},
    {"branch-by-lane", PathChoice::kByLane, "if (lane is odd) mirrored chain else article's chain: every warp diverges"},
};

const Variant& find(const std::string& name) {
  for (const auto& v : kVariants)
    if (name == v.name) return v;
  throw tut::UsageError("unknown variant " + name);
}

using Kernel = void (*)(const float*, float*, std::size_t, long long);

Kernel kernel_for(PathChoice c) {
  switch (c) {
    case PathChoice::kByWarp: return two_paths<PathChoice::kByWarp>;
    case PathChoice::kByLane: return two_paths<PathChoice::kByLane>;
    default: return two_paths<PathChoice::kSameCode>;
  }
}

// One full wave: as many blocks per SM as fit for all three kernels.
std::size_t thread_count() {
  int fit = 1 << 30;
  for (const auto& v : kVariants) fit = std::min(fit, resident_blocks_per_sm(kernel_for(v.choice), kMimdBlock, 0));
  return static_cast<std::size_t>(device_attribute(cudaDevAttrMultiProcessorCount)) * fit * kMimdBlock;
}

class MimdWorkload final : public tut::Workload {
 public:
  std::size_t device_bytes(const tut::Options&) const override {
    return 2 * (2 * kMimdChains) * thread_count() * sizeof(float);
  }

  void prepare(const tut::Options& opt, bool) override {
    if (opt.size > kMaxSteps) throw tut::UsageError("--size (chain steps per thread) must be at most 2^40");
    steps_ = opt.size;
    threads_ = thread_count();
    init_host_ = chain_start_values(2 * kMimdChains, threads_, opt.seed);
    init_ = tut::DeviceBuffer<float>(init_host_);
    init_.label("init").watch();
    out_ = tut::DeviceBuffer<float>(init_host_.size());
    article_.clear();
    mirrored_.clear();
  }
  void poison(cudaStream_t s) override { out_.poison(s); }

  void run(const std::string& name, cudaStream_t s) override {
    kernel_for(find(name).choice)<<<static_cast<unsigned>(threads_ / kMimdBlock), kMimdBlock, 0, s>>>(
        init_.data(), out_.data(), threads_, static_cast<long long>(steps_));
    TUT_CHECK_LAUNCH();
  }

  tut::CheckResult check(const std::string& name) override {
    // Both chains for every thread, computed once; each variant picks per thread.
    if (article_.empty()) {
      article_ = chain_reference(init_host_, threads_, kMimdChains, steps_);
      mirrored_ = chain_reference(init_host_, threads_, kMimdChains, steps_, [](std::size_t) { return true; });
    }
    const PathChoice choice = find(name).choice;
    std::vector<float> expected(article_.size());
    for (std::size_t p = 0; p < 2 * kMimdChains; ++p)
      for (std::size_t t = 0; t < threads_; ++t) {
        const std::size_t i = p * threads_ + t;
        expected[i] = takes_mirrored_path(choice, t) ? mirrored_[i] : article_[i];
      }
    return tut::compare_exact(expected, out_.download());
  }

  tut::Work work(const std::string&) const override {
    // The useful work: each thread runs one chain sequence, whichever side it takes.
    return {0.0, 4.0 * static_cast<double>(threads_) * kMimdChains * static_cast<double>(steps_)};
  }

 private:
  std::uint64_t steps_ = 0;
  std::size_t threads_ = 0;
  std::vector<float> init_host_, article_, mirrored_;
  tut::DeviceBuffer<float> init_, out_;
};

Summary summary(const tut::DeviceInfo& d, const tut::Options&, const std::vector<tut::Result>& rows) {
  const double peak = peak_fp32_gflops(d.sm_count, fp32_lanes_per_sm(d.cc_major, d.cc_minor).lanes, d.sm_clock_khz);
  const tut::Result* base = find_row(rows, "same-code");
  Summary s;
  s.title = "Rule 5a (article §1.1): warps may run different code; a branch inside a warp costs both sides";
  s.head = {"", "GFLOP/s", "% of peak", "time vs same-code"};
  s.rows.push_back({"GTX 280 (article)", "-", "-", "no notable loss while each warp stays uniform"});
  for (const auto& v : kVariants) {
    const tut::Result* r = find_row(rows, v.name);
    if (!r) continue;
    s.rows.push_back({v.name, fixed(r->gflops, 0), fixed(100.0 * r->gflops / peak, 1),
                      base && base->time.median_ms > 0 ? fixed(r->time.median_ms / base->time.median_ms, 2) + "x"
                                                       : "-"});
  }
  s.notes = {"GFLOP/s counts the useful FMAs (each thread's own sequence), " + std::to_string(kMimdChains) +
             " chains per thread, " + std::to_string(thread_count() / d.sm_count) + " threads per SM."};
  return s;
}

tut::ChapterSpec spec() {
  tut::ChapterSpec spec;
  spec.id = "02-gpu-principles-mimd";
  spec.title = "rule 5a: branches on the warp index against branches inside a warp (--size: steps per chain)";
  spec.default_size = "2^12";
  for (const auto& v : kVariants) spec.variants.push_back({v.name, v.description, false, ""});
  spec.ratio_to = "same-code";
  spec.make_workload = [] { return std::make_unique<MimdWorkload>(); };
  return spec;
}

}  // namespace mimd_experiment

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) {
  return principles::run_experiment(argc, argv, mimd_experiment::spec(), mimd_experiment::summary);
}
#endif
