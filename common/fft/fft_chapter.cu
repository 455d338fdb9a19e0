#include <cufft.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <utility>

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "fft_chapter.cuh"
#include "fft_plan.cuh"
#include "fft_reference.hpp"
#include "verify.hpp"

namespace tut::fft {
namespace {

void check_cufft(cufftResult r, const char* expr) {
  if (r != CUFFT_SUCCESS)
    throw std::runtime_error(std::string("cuFFT error ") + std::to_string(static_cast<int>(r)) + " in " + expr);
}
#define TUT_CUFFT_CHECK(expr) check_cufft((expr), #expr)

// The largest number of elements the check compares with the CPU reference; beyond it, a sample of signals.
constexpr std::size_t kCheckedElements = std::size_t{1} << 23;

std::string length_text(int log2n) { return "2^" + std::to_string(log2n); }

}  // namespace

int checked_log2_length(long long length) {
  if (length < (1ll << kMinLog2n) || length > (1ll << kMaxLog2n) || (length & (length - 1)) != 0)
    throw UsageError("--length " + std::to_string(length) + ": the signal length must be a power of two from 8 to 2^" +
                     std::to_string(kMaxLog2n));
  int l = 0;
  while ((1ll << l) < length) ++l;
  return l;
}

// ---- cuFFT ----------------------------------------------------------------------------------------------

CufftPlan::CufftPlan(int log2n, long long batch) {
  cufftHandle h;
  TUT_CUFFT_CHECK(cufftCreate(&h));
  handle_ = static_cast<int>(h);
  long long n = 1ll << log2n;
  std::size_t work = 0;
  // 64-bit plan: the batch may hold more than 2^31 elements. Contiguous signals (stride 1, distance n).
  TUT_CUFFT_CHECK(cufftMakePlanMany64(h, 1, &n, nullptr, 1, n, nullptr, 1, n, CUFFT_C2C, batch, &work));
}

CufftPlan::~CufftPlan() {
  if (handle_ >= 0) cufftDestroy(static_cast<cufftHandle>(handle_));
}

CufftPlan::CufftPlan(CufftPlan&& o) noexcept : handle_(std::exchange(o.handle_, -1)) {}
CufftPlan& CufftPlan::operator=(CufftPlan&& o) noexcept {
  if (this != &o) {
    if (handle_ >= 0) cufftDestroy(static_cast<cufftHandle>(handle_));
    handle_ = std::exchange(o.handle_, -1);
  }
  return *this;
}

void CufftPlan::forward(const float2* in, float2* out, cudaStream_t stream) const {
  const auto h = static_cast<cufftHandle>(handle_);
  TUT_CUFFT_CHECK(cufftSetStream(h, stream));
  // cuFFT takes a non-const input; an out-of-place C2C transform does not write to it.
  TUT_CUFFT_CHECK(cufftExecC2C(h, reinterpret_cast<cufftComplex*>(const_cast<float2*>(in)),
                               reinterpret_cast<cufftComplex*>(out), CUFFT_FORWARD));
}

std::size_t CufftPlan::work_bytes(int log2n, long long batch) {
  cufftHandle h;
  TUT_CUFFT_CHECK(cufftCreate(&h));
  long long n = 1ll << log2n;
  std::size_t work = 0;
  cufftResult r = cufftGetSizeMany64(h, 1, &n, nullptr, 1, n, nullptr, 1, n, CUFFT_C2C, batch, &work);
  cufftDestroy(h);
  TUT_CUFFT_CHECK(r);
  return work;
}

std::vector<float2> random_signals(std::size_t count, std::uint64_t seed) {
  std::vector<float> flat = random_floats(2 * count, seed, -1.f, 1.f);
  std::vector<float2> v(count);
  std::memcpy(v.data(), flat.data(), count * sizeof(float2));
  return v;
}

// ---- The workload ---------------------------------------------------------------------------------------

namespace {

// What the checks of one run found, shared with the chapter's summary.
struct CheckLog {
  int log2n = 0;
  long long batch = 0;
  std::size_t signals_checked = 0;
  double cufft_worst = 0.0;   // cuFFT's worst per-signal error on the checked signals (prepare())
  double tolerance = 0.0;
  std::vector<std::pair<std::string, double>> worst;  // per checked variant, in order
};

class FftWorkload final : public Workload {
 public:
  FftWorkload(std::vector<FftVariant> variants, std::shared_ptr<CheckLog> log)
      : variants_(std::move(variants)), log_(std::move(log)) {}

  std::size_t device_bytes(const Options& opt) const override {
    const int log2n = log2_length(opt);
    const long long batch = static_cast<long long>(opt.size >> log2n);
    // Every variant this run selects must handle the length. "--variant all" selects those that do (the
    // chapter's resolve step leaves the others out, see make_fft_chapter); a variant named must.
    for (const auto& v : variants_) {
      const bool named = std::find(opt.variants.begin(), opt.variants.end(), v.name) != opt.variants.end();
      const bool selected = named || (opt.variants.empty() && !v.on_demand);
      if (selected && !supports(v, log2n))
        throw UsageError("variant '" + v.name + "' handles --length " + length_text(v.min_log2n) + " to " +
                         length_text(v.max_log2n) + ", not " + length_text(log2n) +
                         "; choose a length in that range, or other variants with --variant (see --list)");
    }
    return 2 * opt.size * sizeof(float2) + workspace_size(log2n, batch) + CufftPlan::work_bytes(log2n, batch);
  }

  void prepare(const Options& opt, bool with_reference) override {
    log2n_ = log2_length(opt);
    n_ = std::size_t{1} << log2n_;
    size_ = opt.size;
    batch_ = static_cast<long long>(size_ >> log2n_);
    host_in_ = random_signals(size_, opt.seed);
    in_ = DeviceBuffer<float2>(host_in_);
    in_.label("input").watch();  // the transforms are out-of-place: the input must stay as it was
    out_ = DeviceBuffer<float2>(size_);
    out_.label("output");
    workspace_ = DeviceBuffer<unsigned char>(workspace_size(log2n_, batch_));
    workspace_.label("workspace");
    plan_ = CufftPlan(log2n_, batch_);
    *log_ = CheckLog{};
    log_->log2n = log2n_;
    log_->batch = batch_;
    if (!with_reference) return;
    // The signals compared with the CPU reference: all of them, or an evenly spaced sample.
    checked_ = checked_signals(static_cast<std::size_t>(batch_), n_, kCheckedElements);
    expected_ = reference_transforms(&host_in_.data()->x, log2n_, checked_);
    log_->signals_checked = checked_.size();
    // cuFFT's own error on the same signals sets the tolerance. Measured here, before the runner opens its
    // NVTX ranges, so that a profile of a variant (ncu --nvtx-include "<chapter>/<variant>/") holds only the
    // variant's kernels.
    plan_.forward(in_.data(), out_.data(), 0);
    TUT_CUDA_CHECK(cudaDeviceSynchronize());
    got_.resize(size_);
    out_.download(got_.data(), size_);
    log_->cufft_worst = worst_error(got_);
    log_->tolerance = fft_tolerance(log2n_, log_->cufft_worst);
  }

  // The variant's one-time set-up (cuFFT's plan is made in prepare()), then a tuned stage's plan for this GPU on
  // the workload's own buffers (fft_plan.cuh): the runner calls this before any checked, timed or profiled run.
  void setup(const std::string& variant) override {
    if (variant == "cufft") return;
    const FftVariant& v = find(variant);
    set_up(v);
    if (v.plan.choices)
      planned_[variant] =
          plan_fft_stage(v.plan, {in_.data(), out_.data(), workspace_.data(), log2n_, batch_}).launch;
  }

  void poison(cudaStream_t stream) override {
    out_.poison(stream);
    workspace_.poison(stream);  // an FFT must not depend on its scratch being zero
  }

  void run(const std::string& variant, cudaStream_t stream) override {
    if (variant == "cufft") {
      plan_.forward(in_.data(), out_.data(), stream);
      return;
    }
    const auto planned = planned_.find(variant);
    const FftLaunch& launch = planned != planned_.end() ? planned->second : find(variant).launch;
    launch(in_.data(), out_.data(), log2n_, batch_, workspace_.data(), stream);
  }

  CheckResult check(const std::string& variant) override {
    got_.resize(size_);
    out_.download(got_.data(), size_);
    CheckResult written = every_element_written_and_finite(got_);
    if (!written.ok) return written;
    const double worst = worst_error(got_);
    log_->worst.emplace_back(variant, worst);
    if (worst <= log_->tolerance) return {};
    std::ostringstream d;
    d << std::setprecision(3) << "worst relative L2 error per signal " << worst << " > tolerance "
      << log_->tolerance << " (4 x cuFFT's " << log_->cufft_worst << ", floor 3 eps log2 N)";
    return check_fail(d.str());
  }

  Work work(const std::string&) const override {
    // One read and one write of the batch; 5 N log2 N flops per signal, the conventional count for a
    // complex FFT of length N (a radix-2 algorithm's real operation count; higher radices do fewer).
    return {2.0 * static_cast<double>(size_) * sizeof(float2),
            5.0 * static_cast<double>(size_) * static_cast<double>(log2n_)};
  }
  std::size_t memcpy_bytes() const override { return size_ * sizeof(float2); }

 private:
  static int log2_length(const Options& opt) {
    const auto it = opt.extra.find("length");
    const long long length = it == opt.extra.end() ? 1024 : it->second;
    const int log2n = checked_log2_length(length);
    if (opt.size < static_cast<std::uint64_t>(length) || opt.size % static_cast<std::uint64_t>(length) != 0)
      throw UsageError("--size " + format_size(opt.size) + " must be a positive multiple of --length " +
                       format_size(static_cast<std::uint64_t>(length)) + " (the batch is size / length signals)");
    return log2n;
  }

  std::size_t workspace_size(int log2n, long long batch) const {
    std::size_t ws = 0;
    for (const auto& v : variants_)
      if (supports(v, log2n)) ws = std::max(ws, workspace_of(v, log2n, batch));
    return ws;
  }

  const FftVariant& find(const std::string& name) const {
    for (const auto& v : variants_)
      if (v.name == name) return v;
    throw std::invalid_argument("unknown FFT variant " + name);
  }

  // No element may still hold the poison pattern (a value the variant never wrote), and none may be NaN or
  // infinite. Checked over the whole batch, also where only a sample is compared with the reference.
  CheckResult every_element_written_and_finite(const std::vector<float2>& got) const {
    std::uint32_t poison_word;
    std::memset(&poison_word, kPoisonByte, sizeof poison_word);
    const std::size_t chunk = std::size_t{1} << 20;
    const std::size_t chunks = (got.size() + chunk - 1) / chunk;
    std::vector<std::size_t> first_bad(chunks, SIZE_MAX), bad(chunks, 0);
    parallel_for(chunks, [&](std::size_t b, std::size_t e) {
      for (std::size_t c = b; c < e; ++c)
        for (std::size_t i = c * chunk, end = std::min(got.size(), i + chunk); i < end; ++i) {
          std::uint32_t re, im;
          std::memcpy(&re, &got[i].x, 4);
          std::memcpy(&im, &got[i].y, 4);
          if (re == poison_word || im == poison_word || !std::isfinite(got[i].x) || !std::isfinite(got[i].y)) {
            if (first_bad[c] == SIZE_MAX) first_bad[c] = i;
            ++bad[c];
          }
        }
    }, 1);
    CheckResult r;
    for (std::size_t c = 0; c < chunks; ++c) {
      if (bad[c] && r.ok) {
        const std::size_t i = first_bad[c];
        r.ok = false;
        r.first_bad = i;
        std::ostringstream a;
        a << "(" << got[i].x << ", " << got[i].y << ")";
        r.actual = a.str();
        r.expected = "a finite value";
        r.detail = "elements left unwritten (poison) or not finite; signal " + std::to_string(i / n_) +
                   ", index " + std::to_string(i % n_);
      }
      r.bad_count += bad[c];
    }
    return r;
  }

  // The worst relative L2 error over the checked signals.
  double worst_error(const std::vector<float2>& got) const {
    std::vector<double> err(checked_.size());
    parallel_for(checked_.size() * 65536, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b / 65536; i < e / 65536; ++i)
        err[i] = relative_l2_error(expected_.data() + i * n_, &got[checked_[i] * n_].x, n_);
    });
    return err.empty() ? 0.0 : *std::max_element(err.begin(), err.end());
  }

  std::vector<FftVariant> variants_;
  std::shared_ptr<CheckLog> log_;
  int log2n_ = 0;
  std::size_t n_ = 0, size_ = 0;
  long long batch_ = 0;
  std::vector<float2> host_in_, got_;
  DeviceBuffer<float2> in_, out_;
  DeviceBuffer<unsigned char> workspace_;
  CufftPlan plan_;
  std::map<std::string, FftLaunch> planned_;  // a tuned stage's launch on this GPU (setup's plan)
  std::vector<std::size_t> checked_;
  std::vector<std::complex<double>> expected_;
};

}  // namespace

tut::ChapterSpec make_fft_chapter(const std::string& id, const std::string& title, std::vector<FftVariant> variants) {
  ChapterSpec spec;
  spec.id = id;
  spec.title = title;
  spec.default_size = "2^27";
  for (const auto& v : variants) {
    std::string d = v.description;
    if (v.min_log2n > kMinLog2n || v.max_log2n < kMaxLog2n)
      d += " [lengths " + length_text(v.min_log2n) + " to " + length_text(v.max_log2n) + "]";
    spec.variants.push_back({v.name, d, false, v.known_defect, v.on_demand});
  }
  spec.variants.push_back({"cufft", "cufftExecC2C, forward, batched plan made before timing (vendor reference)",
                           true, ""});
  spec.ratio_to = "cufft";
  // "--variant all" means every variant that handles this --length: the others are left out, with one line.
  spec.resolve = [variants](ChapterSpec& resolved, const Options& opt) {
    if (std::find(opt.variants.begin(), opt.variants.end(), "all") == opt.variants.end()) return;
    const auto it = opt.extra.find("length");
    const int log2n = checked_log2_length(it == opt.extra.end() ? 1024 : it->second);
    std::string left_out;
    for (const auto& v : variants)
      if (!supports(v, log2n)) {
        left_out += (left_out.empty() ? "" : ", ") + v.name;
        resolved.variants.erase(std::remove_if(resolved.variants.begin(), resolved.variants.end(),
                                               [&](const VariantSpec& s) { return s.name == v.name; }),
                                resolved.variants.end());
      }
    if (!left_out.empty())
      std::cerr << "note: --variant all at --length " << length_text(log2n) << " leaves out " << left_out
                << " (see --list for the lengths each handles)\n";
  };
  spec.extra_options.push_back({"length", "signal length N, a power of two from 8 to 2^24; batch = size / N", 1024,
                                1ll << kMinLog2n, 1ll << kMaxLog2n});
  auto log = std::make_shared<CheckLog>();
  spec.make_workload = [variants, log] { return std::make_unique<FftWorkload>(variants, log); };
  spec.summary = [log](std::ostream& os, const DeviceInfo&, const Options&, const std::vector<Result>&) {
    os << "\nN = " << format_size(std::size_t{1} << log->log2n) << ", batch = " << log->batch
       << " signals; GFLOP/s count 5 N log2 N flops per signal (the conventional FFT count).\n";
    if (log->worst.empty()) return;
    os << "check: " << log->signals_checked << " of " << log->batch
       << (static_cast<long long>(log->signals_checked) == log->batch ? " signals (all)" : " signals (evenly spaced)")
       << " against a CPU FFT in double; every element checked written and finite.\n"
       << std::setprecision(3) << "worst relative L2 error per signal:";
    for (const auto& [name, e] : log->worst) os << " " << name << " " << e << ";";
    os << " tolerance " << log->tolerance << " = max(4 x cuFFT's, 3 eps log2 N)\n";
  };
  return spec;
}

}  // namespace tut::fft
