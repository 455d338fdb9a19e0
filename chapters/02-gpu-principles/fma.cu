// Chapter 02, experiment 1: how close do register-only FMA chains come to the FP32 peak?
// --size is the number of chain steps per thread (2 dependent FMAs per chain per step). The grid is
// one full wave: --blocks-per-sm blocks of 256 threads on every SM (default: as many as fit).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "device_buffer.cuh"
#include "experiment.cuh"
#include "fma.cuh"

namespace fma_experiment {

using namespace principles;

struct Variant {
  const char* name;
  int chains;  // independent chains per thread
};

constexpr Variant kVariants[] = {{"chains-1", 1}, {"chains-2", 2}, {"chains-4", 4}, {"chains-8", 8}};
constexpr int kMaxChains = 8;
constexpr std::uint64_t kMaxSteps = 1ull << 40;

const Variant& find(const std::string& name) {
  for (const auto& v : kVariants)
    if (name == v.name) return v;
  throw tut::UsageError("unknown variant " + name);
}

// Blocks of 256 threads that fit on one SM for every chain count.
int fitting_blocks_per_sm() {
  int fit = 1 << 30;
  for (const auto& v : kVariants) fit = std::min(fit, resident_blocks_per_sm(fma_kernel_for(v.chains), kFmaBlock, 0));
  return fit;
}

// Blocks per SM to launch: the option, or (0) as many as fit.
int blocks_per_sm(const tut::Options& opt) {
  const long long asked = opt.extra.at("blocks-per-sm");
  return asked > 0 ? static_cast<int>(asked) : fitting_blocks_per_sm();
}

std::size_t thread_count(const tut::Options& opt) {
  return static_cast<std::size_t>(device_attribute(cudaDevAttrMultiProcessorCount)) * blocks_per_sm(opt) * kFmaBlock;
}

class FmaWorkload final : public tut::Workload {
 public:
  std::size_t device_bytes(const tut::Options& opt) const override {
    return 2 * (2 * kMaxChains) * thread_count(opt) * sizeof(float);  // init + out
  }

  void prepare(const tut::Options& opt, bool) override {
    if (opt.size > kMaxSteps) throw tut::UsageError("--size (chain steps per thread) must be at most 2^40");
    steps_ = opt.size;
    threads_ = thread_count(opt);
    init_host_ = chain_start_values(2 * kMaxChains, threads_, opt.seed);
    init_ = tut::DeviceBuffer<float>(init_host_);
    init_.label("init").watch();
    out_ = tut::DeviceBuffer<float>(init_host_.size());
    expected_.clear();
  }
  void poison(cudaStream_t s) override { out_.poison(s); }

  void run(const std::string& variant, cudaStream_t s) override {
    const unsigned grid = static_cast<unsigned>(threads_ / kFmaBlock);
    fma_kernel_for(find(variant).chains)<<<grid, kFmaBlock, 0, s>>>(init_.data(), out_.data(), threads_,
                                                                static_cast<long long>(steps_));
    TUT_CHECK_LAUNCH();
  }

  tut::CheckResult check(const std::string& variant) override {
    // Chain c of thread t depends only on its own start values, so one reference with 8 chains
    // serves every variant: a variant with k chains is checked on the first 2k planes.
    if (expected_.empty()) expected_ = chain_reference(init_host_, threads_, kMaxChains, steps_);
    return compare_planes(expected_, out_.download(), threads_, threads_, 2 * find(variant).chains);
  }

  tut::Work work(const std::string& variant) const override {
    // 2 FMAs per chain per step, 2 flop per FMA.
    return {0.0, 4.0 * static_cast<double>(threads_) * find(variant).chains * static_cast<double>(steps_)};
  }

 private:
  std::uint64_t steps_ = 0;
  std::size_t threads_ = 0;
  std::vector<float> init_host_, expected_;
  tut::DeviceBuffer<float> init_, out_;
};

// The SM clock while every lane runs FMAs (see sm_clock_probe), in MHz.
double measured_sm_clock_mhz() {
  const int blocks = device_attribute(cudaDevAttrMultiProcessorCount) *
                     resident_blocks_per_sm(sm_clock_probe, kFmaBlock, 0);
  tut::DeviceBuffer<float> sink(static_cast<std::size_t>(blocks) * kFmaBlock);
  tut::DeviceBuffer<unsigned long long> cycles(blocks), ns(blocks);
  sm_clock_probe<<<blocks, kFmaBlock, 0, 0>>>(sink.data(), cycles.data(), ns.data(), 1 << 17);
  TUT_CHECK_LAUNCH();
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  double total_cycles = 0, total_ns = 0;
  for (unsigned long long c : cycles.download()) total_cycles += static_cast<double>(c);
  for (unsigned long long n : ns.download()) total_ns += static_cast<double>(n);
  return total_ns > 0 ? 1e3 * total_cycles / total_ns : 0.0;
}

Summary summary(const tut::DeviceInfo& d, const tut::Options& opt, const std::vector<tut::Result>& rows) {
  const Fp32Lanes lanes = fp32_lanes_per_sm(d.cc_major, d.cc_minor);
  const double peak = peak_fp32_gflops(d.sm_count, lanes.lanes, d.sm_clock_khz);
  const double clock_mhz = measured_sm_clock_mhz();
  const double peak_at_clock = peak_fp32_gflops(d.sm_count, lanes.lanes, clock_mhz * 1e3);
  // Resident warps per SM: more blocks than fit run in later waves.
  const int warps_per_sm = std::min(blocks_per_sm(opt), fitting_blocks_per_sm()) * kFmaBlock / kWarpSize;

  Summary s;
  s.title = "Rule 1 (article §1.2): unrolled register-only FMA chains reach the FP32 peak";
  s.head = {"", "chains/thread", "warps/SM", "GFLOP/s", "% of peak", "% of peak at measured clock"};
  s.rows.push_back({"GTX 280 (article)", "-", "-", fixed(gtx280::kMeasuredGflops, 0),
                    fixed(100.0 * gtx280::kMeasuredGflops / gtx280::kPeakGflops, 1) + " of 933",
                    fixed(100.0 * gtx280::kMeasuredGflops / gtx280::kMadPeakGflops, 1) + " of MAD-only " +
                        fixed(gtx280::kMadPeakGflops, 1)});
  for (const auto& v : kVariants) {
    const tut::Result* r = find_row(rows, v.name);
    if (!r) continue;
    s.rows.push_back({v.name, std::to_string(v.chains), std::to_string(warps_per_sm), fixed(r->gflops, 0),
                      fixed(100.0 * r->gflops / peak, 1),
                      peak_at_clock > 0 ? fixed(100.0 * r->gflops / peak_at_clock, 1) : "-"});
  }
  s.notes = {
      "peak = " + std::to_string(d.sm_count) + " SMs x " + std::to_string(lanes.lanes) + " FP32 lanes (compute capability " +
          std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor) + (lanes.known ? "" : ", assumed") +
          ") x 2 flop x " + fixed(d.sm_clock_khz / 1e3, 0) + " MHz (cudaDevAttrClockRate, the boost clock) = " +
          fixed(peak, 0) + " GFLOP/s",
      "SM clock measured under the same FMA load (clock64 / globaltimer): " + fixed(clock_mhz, 0) +
          " MHz, so the peak at that clock is " + fixed(peak_at_clock, 0) + " GFLOP/s",
      "The article's 933 GFLOP/s counts a MUL co-issued with every MAD (3 flop per core per clock); a MAD-only "
      "loop peaks at 240 x 2 x 1.295 GHz = " + fixed(gtx280::kMadPeakGflops, 1) + " GFLOP/s.",
  };
  return s;
}

tut::ChapterSpec spec() {
  tut::ChapterSpec spec;
  spec.id = "02-gpu-principles-fma";
  spec.title = "rule 1: peak FP32 throughput with register-only FMA chains (--size: steps per chain)";
  spec.default_size = "2^13";
  for (const auto& v : kVariants)
    spec.variants.push_back({v.name,
                             std::to_string(v.chains) + " independent chain" + (v.chains > 1 ? "s" : "") +
                                 " of a = b*a + b; b = a*b + a per thread",
                             false, ""});
  spec.extra_options = {{"blocks-per-sm", "blocks of 256 threads per SM (0: as many as fit)", 0, 0, 64}};
  spec.make_workload = [] { return std::make_unique<FmaWorkload>(); };
  return spec;
}

}  // namespace fma_experiment

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) {
  return principles::run_experiment(argc, argv, fma_experiment::spec(), fma_experiment::summary);
}
#endif
