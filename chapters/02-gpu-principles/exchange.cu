// Chapter 02, experiment 5b: halve the exchange buffer so that more blocks fit on an SM?
// --size is the number of floats; each block transposes one 2048-float tile --rounds times.
// The '-tight-smem' variants give every block an extra, unused allocation of dynamic shared memory,
// sized so that exactly one full-buffer block fits per SM: the situation the article was in on the
// GTX 280 (16 KiB of shared memory per SM), recreated on a GPU that has far more.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "device.cuh"
#include "device_buffer.cuh"
#include "device_compare.cuh"
#include "exchange.cuh"
#include "experiment.cuh"

namespace exchange_experiment {

using namespace principles;

struct Variant {
  const char* name;
  bool halved;
  bool tight;  // with the extra shared-memory allocation
  const char* description;
};

constexpr Variant kVariants[] = {
    {"full-buffer", false, false, "all 4 warps store, then read: 8 KiB of shared memory per block"},
    {"halved-buffer", true, false, "warps 0-1 then warps 2-3 take turns through 4 KiB"},
    {"full-buffer-tight-smem", false, true, "full buffer + unused shared memory so one block fits per SM"},
    {"halved-buffer-tight-smem", true, true, "halved buffer + the same unused shared memory"},
};

const Variant& find(const std::string& name) {
  for (const auto& v : kVariants)
    if (name == v.name) return v;
  throw tut::UsageError("unknown variant " + name);
}

using Kernel = void (*)(const float*, float*, std::uint64_t, int);

Kernel kernel_for(bool halved) { return halved ? exchange_tiles<true> : exchange_tiles<false>; }

// One-time set-up on the current device: both kernels may ask for all the shared memory.
void setup_exchange() {
  setup_shared_memory(kernel_for(false));
  setup_shared_memory(kernel_for(true));
}

// The extra dynamic shared memory of the tight variants: the least with which one full-buffer block
// fills an SM's shared memory (both kernels are allowed to ask for that much, after setup_exchange()).
std::size_t tight_smem() { return plan_residency(kernel_for(false), kExchangeThreads, 1).dynamic_smem; }

Residency residency(const Variant& v, std::size_t tight) {
  Residency r;
  r.block_threads = kExchangeThreads;
  r.dynamic_smem = v.tight ? tight : 0;
  r.resident = resident_blocks_per_sm(kernel_for(v.halved), kExchangeThreads, r.dynamic_smem);
  r.blocks_per_sm = r.resident;  // no target: the experiment is what fits
  return r;
}

int rounds_option(const tut::Options& opt) { return static_cast<int>(opt.extra.at("rounds")); }

// CPU reference: every whole tile transposed `rounds` times, a partial last tile unchanged.
std::vector<float> exchange_reference(const std::vector<float>& in, int rounds) {
  std::vector<float> out(in);
  const std::size_t tiles = in.size() / kExchangeTile;
  tut::parallel_for(tiles, [&](std::size_t b, std::size_t e) {
    std::vector<float> next(kExchangeTile);
    for (std::size_t tile = b; tile < e; ++tile) {
      float* cur = out.data() + tile * kExchangeTile;
      for (int round = 0; round < rounds; ++round) {
        for (int g = 0; g < kExchangeTile; ++g) next[g] = cur[exchange_source(g)];
        std::copy(next.begin(), next.end(), cur);
      }
    }
  }, 16);
  return out;
}

class ExchangeWorkload final : public tut::Workload {
 public:
  std::size_t device_bytes(const tut::Options& opt) const override {
    if (opt.size > (1ull << 40)) throw tut::UsageError("--size must be at most 2^40 floats");
    return 2 * opt.size * sizeof(float);
  }

  void prepare(const tut::Options& opt, bool) override {
    n_ = opt.size;
    rounds_ = rounds_option(opt);
    in_host_ = tut::random_floats(n_, opt.seed);
    in_ = tut::DeviceBuffer<float>(in_host_);
    in_.label("input").watch();
    out_ = tut::DeviceBuffer<float>(n_);
    expected_.clear();
    expected_dev_ = tut::DeviceBuffer<float>();
  }
  void setup(const std::string&) override {
    setup_exchange();
    tight_ = tight_smem();
    set_up_ = true;
  }

  void poison(cudaStream_t s) override { out_.poison(s); }

  void run(const std::string& name, cudaStream_t s) override {
    if (n_ == 0) return;
    const Variant& v = find(name);
    if (!set_up_) throw std::logic_error("02-gpu-principles-exchange: setup() was not called for " + name);
    const std::uint64_t grid = (n_ + kExchangeTile - 1) / kExchangeTile;
    if (grid > 0x7fffffffull) throw tut::UsageError("--size too large for one block per tile");
    kernel_for(v.halved)<<<static_cast<unsigned>(grid), kExchangeThreads, v.tight ? tight_ : 0, s>>>(
        in_.data(), out_.data(), n_, rounds_);
    TUT_CHECK_LAUNCH();
  }

  tut::CheckResult check(const std::string&) override {
    if (expected_.empty()) {
      expected_ = exchange_reference(in_host_, rounds_);
      // Uploaded once where it fits, then every variant is compared on the GPU (device_compare.cuh).
      if (static_cast<double>(n_ * sizeof(float)) < 0.8 * static_cast<double>(tut::free_device_bytes()))
        expected_dev_ = tut::DeviceBuffer<float>(expected_);
    }
    if (expected_dev_.size() == n_ && n_ > 0) return tut::compare_exact_on_device(expected_dev_.data(), out_.data(), n_);
    return tut::compare_exact(expected_, out_.download());
  }

  tut::Work work(const std::string&) const override { return {2.0 * n_ * sizeof(float), 0.0}; }
  std::size_t memcpy_bytes() const override { return n_ * sizeof(float); }

 private:
  std::uint64_t n_ = 0;
  int rounds_ = 2;
  std::size_t tight_ = 0;  // from setup()
  bool set_up_ = false;
  std::vector<float> in_host_, expected_;
  tut::DeviceBuffer<float> expected_dev_;
  tut::DeviceBuffer<float> in_, out_;
};

Summary summary(const tut::DeviceInfo&, const tut::Options& opt, const std::vector<tut::Result>& rows) {
  const std::size_t tight = tight_smem();
  Summary s;
  s.title = "Rule 5b (article §1.1, §3.2): halve the exchange buffer so that a second block fits";
  s.head = {"", "shared/block", "registers/thread", "resident blocks/SM", "warps/SM", "GB/s", "% of DRAM peak",
            "time vs full"};
  s.rows.push_back({"GTX 280 (article)", "8 -> 4 KiB", "-", "1 -> 2", "4 -> 8", "-", "-",
                    "warp branches cost 10-30%, repaid"});
  for (const auto& v : kVariants) {
    const tut::Result* r = find_row(rows, v.name);
    if (!r) continue;
    const Residency res = residency(v, tight);
    const cudaFuncAttributes a = kernel_attributes(kernel_for(v.halved));
    const tut::Result* full = find_row(rows, v.tight ? "full-buffer-tight-smem" : "full-buffer");
    s.rows.push_back({v.name, fixed((a.sharedSizeBytes + res.dynamic_smem) / 1024.0, 1) + " KiB",
                      std::to_string(a.numRegs), std::to_string(res.resident),
                      std::to_string(res.resident_warps()), fixed(r->gbps, 1), fixed(r->pct_peak_dram, 1),
                      full && full->time.median_ms > 0 ? fixed(r->time.median_ms / full->time.median_ms, 2) + "x"
                                                       : "-"});
  }
  s.notes = {
      std::to_string(rounds_option(opt)) + " exchange(s) per tile (--rounds; the article's 2048-point FFT needs 2). "
      "The tight variants add " + fixed(tight / 1024.0, 0) + " KiB of unused shared memory per block.",
      "Residency from the occupancy calculator; shared/block includes the unused allocation.",
  };
  return s;
}

tut::ChapterSpec spec() {
  tut::ChapterSpec spec;
  spec.id = "02-gpu-principles-exchange";
  spec.title = "rule 5b: register tile exchange, full vs halved shared buffer (--size: floats)";
  spec.default_size = "2^26";
  for (const auto& v : kVariants) spec.variants.push_back({v.name, v.description, false, ""});
  spec.extra_options = {{"rounds", "exchanges (transposes) per tile", 2, 1, 64}};
  spec.ratio_to = "full-buffer";
  spec.make_workload = [] { return std::make_unique<ExchangeWorkload>(); };
  return spec;
}

}  // namespace exchange_experiment

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) {
  return principles::run_experiment(argc, argv, exchange_experiment::spec(), exchange_experiment::summary);
}
#endif
