// Chapter 37's lab: the stage's cluster exchange without the FFT (cluster_exchange.cuh) in each of the chapter's
// launch configurations, beside the stage itself and cudaMemcpy of the same bytes, at N = 32768 or 65536 over a
// 1 GiB batch. Not a stage: a plain run measures every configuration that exists at --length. The exchange's
// check is the exact transpose of every signal (bit for bit, the whole batch); the stage's is chapter 37's (a CPU
// double FFT of a sample of signals, and no element left unwritten).
#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "cluster_exchange.cuh"
#include "device_buffer.cuh"
#include "fft_chapter.cuh"
#include "fft_reference.hpp"
#include "runner.cuh"

// compare_exact's messages print the first differing element.
inline std::ostream& operator<<(std::ostream& os, const float2& v) { return os << "(" << v.x << ", " << v.y << ")"; }

namespace {
namespace lab = fft_cluster_lab;

constexpr const char* kStage = "fft-thread-block-cluster";
constexpr int kDefaultLength = 32768;
constexpr std::size_t kFftCheckedElements = std::size_t{1} << 23;  // the stage's check: at most this many, sampled

// Rows N1 of a signal of 2^log2n values seen as N1 x N2 (the plan's split).
constexpr int rows_of(int log2n) { return 1 << (log2n / 2); }
static_assert(rows_of(15) == fft_cluster::StageShort::Plan<32768>::N1 &&
                  rows_of(16) == fft_cluster::StageLong::Plan<65536>::N1,
              "the CPU transpose splits N as the kernel's plan does");

// True when the exchange `name` is built for 2^log2n.
bool handles(const std::string& name, int log2n) {
  bool yes = false;
  lab::for_each_exchange([&](const char* n, auto x) { yes |= name == n && decltype(x)::kLog2n == log2n; });
  return yes;
}

// The one set-up and the launch of the exchange `name` at 2^log2n (handles() true).
void set_up_exchange(const std::string& name, int log2n) {
  lab::for_each_exchange([&](const char* n, auto x) {
    if (name == n && decltype(x)::kLog2n == log2n) decltype(x)::set_up();
  });
}
void launch_exchange(const std::string& name, int log2n, const float2* in, float2* out, long long batch,
                     cudaStream_t stream) {
  lab::for_each_exchange([&](const char* n, auto x) {
    if (name == n && decltype(x)::kLog2n == log2n) decltype(x)::launch(in, out, batch, stream);
  });
}

// --length: 32768 or 65536, dividing --size.
int log2_length(const tut::Options& opt) {
  const auto it = opt.extra.find("length");
  const long long length = it == opt.extra.end() ? kDefaultLength : it->second;
  if (length != 32768 && length != 65536)
    throw tut::UsageError("--length " + std::to_string(length) + ": the cluster exchange handles 32768 and 65536");
  if (opt.size < static_cast<std::uint64_t>(length) || opt.size % static_cast<std::uint64_t>(length) != 0)
    throw tut::UsageError("--size " + tut::format_size(opt.size) + " must be a positive multiple of --length " +
                          std::to_string(length) + " (the batch is size / length signals)");
  return length == 32768 ? 15 : 16;
}

// What the summary prints: the length, the batch, and the stage's worst FFT error.
struct LabLog {
  int log2n = 0;
  long long batch = 0;
  std::size_t fft_signals_checked = 0;
  double fft_worst = -1.0;  // -1: the stage's output was not checked
};

class ExchangeWorkload final : public tut::Workload {
 public:
  explicit ExchangeWorkload(std::shared_ptr<LabLog> log) : log_(std::move(log)) {}

  std::size_t device_bytes(const tut::Options& opt) const override {
    const int log2n = log2_length(opt);
    return 2 * opt.size * sizeof(float2) + fft_cluster::stage_workspace_bytes(log2n, static_cast<long long>(opt.size >> log2n));
  }
  // Input, transposed reference and downloaded output, and the stage's sampled reference (input and output).
  std::size_t host_bytes(const tut::Options& opt) const override {
    return 3 * opt.size * sizeof(float2) + 2 * std::min<std::size_t>(opt.size, kFftCheckedElements) * sizeof(std::complex<double>);
  }

  void prepare(const tut::Options& opt, bool with_reference) override {
    log2n_ = log2_length(opt);
    n_ = std::size_t{1} << log2n_;
    size_ = opt.size;
    batch_ = static_cast<long long>(size_ >> log2n_);
    host_in_ = tut::fft::random_signals(size_, opt.seed);
    in_ = tut::DeviceBuffer<float2>(host_in_);
    in_.label("input").watch();  // out-of-place: the input must stay as it was
    out_ = tut::DeviceBuffer<float2>(size_);
    out_.label("output");
    workspace_ = tut::DeviceBuffer<unsigned char>(fft_cluster::stage_workspace_bytes(log2n_, batch_));
    workspace_.label("workspace");  // the stage's, where this GPU runs chapter 35's four-step instead
    *log_ = LabLog{log2n_, batch_};
    if (!with_reference) return;
    // The exchange's reference: every signal transposed, out[k1 + N1 j2] = in[k1 N2 + j2].
    const std::size_t n1 = rows_of(log2n_), n2 = n_ / n1;
    transposed_.resize(size_);
    tut::parallel_for(static_cast<std::size_t>(batch_), [&](std::size_t b, std::size_t e) {
      for (std::size_t s = b; s < e; ++s)
        for (std::size_t k1 = 0; k1 < n1; ++k1)
          for (std::size_t j2 = 0; j2 < n2; ++j2) transposed_[s * n_ + k1 + n1 * j2] = host_in_[s * n_ + k1 * n2 + j2];
    }, 1);
    // The stage's reference: a CPU double FFT of evenly spaced signals (first and last included).
    fft_checked_ = tut::fft::checked_signals(static_cast<std::size_t>(batch_), n_, kFftCheckedElements);
    fft_expected_ = tut::fft::reference_transforms(&host_in_.data()->x, log2n_, fft_checked_);
  }

  void setup(const std::string& variant) override {
    if (variant == kStage) return fft_cluster::setup_fft_cluster();
    if (!handles(variant, log2n_))
      throw tut::UsageError("variant '" + variant + "' is not built for --length " + std::to_string(n_) + " (see --list)");
    set_up_exchange(variant, log2n_);
  }

  void poison(cudaStream_t stream) override {
    out_.poison(stream);
    workspace_.poison(stream);
  }

  void run(const std::string& variant, cudaStream_t stream) override {
    if (variant == kStage)
      return fft_cluster::fft_thread_block_cluster(in_.data(), out_.data(), log2n_, batch_, workspace_.data(), stream);
    launch_exchange(variant, log2n_, in_.data(), out_.data(), batch_, stream);
  }

  tut::CheckResult check(const std::string& variant) override {
    got_.resize(size_);
    out_.download(got_.data(), size_);
    if (variant == kStage) return check_fft();
    tut::CheckResult r = tut::compare_exact(transposed_.data(), got_.data(), size_);  // bit for bit
    if (!r.ok)
      r.detail = "first at signal " + std::to_string(r.first_bad / n_) + ", index " + std::to_string(r.first_bad % n_) +
                 " (expected out[k1 + N1 j2] = in[k1 N2 + j2], N1 = " + std::to_string(rows_of(log2n_)) + ")";
    return r;
  }

  // One read and one write of the batch (the stage's bound); the stage's flops as chapter 37 counts them.
  tut::Work work(const std::string& variant) const override {
    const double flops = variant == kStage ? 5.0 * static_cast<double>(size_) * log2n_ : 0.0;
    return {2.0 * static_cast<double>(size_) * sizeof(float2), flops};
  }
  std::size_t memcpy_bytes() const override { return size_ * sizeof(float2); }

 private:
  // The stage: no element still holds the poison, and the sampled signals' relative L2 error against the CPU
  // FFT within fft_tolerance's floor, 3 eps log2 N (this program runs no cuFFT to scale it).
  tut::CheckResult check_fft() {
    float2 poison;
    std::memset(&poison, tut::kPoisonByte, sizeof poison);
    const auto left = std::find_if(got_.begin(), got_.end(), [&](const float2& v) { return std::memcmp(&v, &poison, sizeof v) == 0; });
    if (left != got_.end())
      return tut::check_fail("element " + std::to_string(left - got_.begin()) + " left unwritten (poison)");
    double worst = 0.0;
    for (std::size_t i = 0; i < fft_checked_.size(); ++i)
      worst = std::max(worst, tut::fft::relative_l2_error(fft_expected_.data() + i * n_, &got_[fft_checked_[i] * n_].x, n_));
    log_->fft_signals_checked = fft_checked_.size();
    log_->fft_worst = worst;
    const double tolerance = tut::fft::fft_tolerance(log2n_, 0.0);
    if (worst <= tolerance) return {};
    std::ostringstream d;
    d << "worst relative L2 error per signal " << worst << " > tolerance " << tolerance << " (3 eps log2 N)";
    return tut::check_fail(d.str());
  }

  std::shared_ptr<LabLog> log_;
  int log2n_ = 0;
  std::size_t n_ = 0, size_ = 0;
  long long batch_ = 0;
  std::vector<float2> host_in_, transposed_, got_;
  tut::DeviceBuffer<float2> in_, out_;
  tut::DeviceBuffer<unsigned char> workspace_;
  std::vector<std::size_t> fft_checked_;
  std::vector<std::complex<double>> fft_expected_;
};

// After the table: the batch, the checks, and how many clusters of each exchange the GPU holds at once.
void lab_summary(std::ostream& os, const tut::DeviceInfo& info, const LabLog& log) {
  os << "\nN = " << (1 << log.log2n) << " (" << rows_of(log.log2n) << " x " << (1 << log.log2n) / rows_of(log.log2n)
     << "), batch = " << log.batch << " signals; bytes = one read and one write of the batch.\n"
     << "check: exchange-* the exact transpose of every signal; " << kStage;
  if (log.fft_worst >= 0)
    os << " worst relative L2 error " << log.fft_worst << " over " << log.fft_signals_checked << " signals.\n";
  else
    os << " not checked.\n";
  std::vector<std::vector<std::string>> rows;
  lab::for_each_exchange([&](const char* name, auto x) {
    using X = decltype(x);
    if (X::kLog2n != log.log2n || X::active_clusters() == 0) return;
    char per_sm[32];
    std::snprintf(per_sm, sizeof per_sm, "%.2f",
                  info.sm_count > 0 ? static_cast<double>(X::active_clusters()) * X::Plan::C / info.sm_count : 0.0);
    rows.push_back({name, std::to_string(X::Plan::C), std::to_string(X::Plan::kThreads),
                    std::to_string(X::Plan::kSharedBytes / 1024), std::to_string(X::active_clusters()), per_sm});
  });
  if (rows.empty()) return;
  os << "Clusters resident at once (cudaOccupancyMaxActiveClusters), " << info.sm_count << " SMs:\n";
  tut::write_text_table(os, {"variant", "blocks/cluster", "threads/block", "KiB/block", "clusters", "blocks per SM"},
                        rows);
}

}  // namespace

tut::ChapterSpec lab_spec() {
  tut::ChapterSpec spec;
  spec.id = "37-fft-cluster-exchange-lab";
  spec.title = "lab: chapter 37's cluster exchange without the FFT (the design's ceiling), beside the stage";
  spec.default_size = "2^27";  // a 1 GiB batch of float2, as chapter 37 measures
  spec.variants = {
      {"exchange-c8", "the stage's shape: clusters of 8 blocks, E = 16 (256 threads at 32768, 512 at 65536)", false,
       ""},
      {"exchange-c4", "chapter 37's c4: 4 blocks of N/4 values (64 KiB), E = 16, 512 threads [32768 only]", false,
       ""},
      {"exchange-c8-e32", "chapter 37's c8-e32: 8 blocks, E = 32 values per thread, 128 threads [32768 only]",
       false, ""},
      {"exchange-c8-split",
       "chapter 37's c8-split: 8 blocks, E = 16, the row buffer apart and the second cluster barrier split "
       "(arrive after the gather, wait after the stores)",
       false, ""},
      {kStage, "chapter 37's stage (the FFT), for comparison in the same run", false, ""},
  };
  spec.extra_options = {{"length", "signal length N: 32768 or 65536; batch = size / N", kDefaultLength, 32768, 65536}};
  spec.ratio_to = kStage;  // "speed vs": how much faster than the stage the exchange alone runs
  // The exchanges not built for --length are left out of a plain run; naming one is an error.
  spec.resolve = [](tut::ChapterSpec& resolved, const tut::Options& opt) {
    const int log2n = log2_length(opt);
    std::vector<tut::VariantSpec> kept;
    for (const auto& v : resolved.variants) {
      const bool named = std::find(opt.variants.begin(), opt.variants.end(), v.name) != opt.variants.end();
      if (v.name == kStage || handles(v.name, log2n)) kept.push_back(v);
      else if (named)
        throw tut::UsageError("variant '" + v.name + "' is not built for --length " + std::to_string(1 << log2n) +
                              " (see --list)");
    }
    resolved.variants = kept;
  };
  auto log = std::make_shared<LabLog>();
  spec.make_workload = [log] { return std::make_unique<ExchangeWorkload>(log); };
  spec.summary = [log](std::ostream& os, const tut::DeviceInfo& info, const tut::Options&,
                       const std::vector<tut::Result>&) { lab_summary(os, info, *log); };
  return spec;
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, lab_spec()); }
#endif
