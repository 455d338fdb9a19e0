#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>

#include "cuda_check.cuh"
#include "device.cuh"
#include "device_buffer.cuh"
#include "device_guards.cuh"
#include "fft_plan.cuh"
#include "fft_reference.hpp"
#include "fft_testing.cuh"
#include "plan_cache.hpp"
#include "temp_dir.hpp"

namespace tut::fft::testing {
namespace {

constexpr int kMaxLog2nSanitized = 13;
constexpr std::size_t kMaxElementsSanitized = std::size_t{1} << 16;
constexpr double kPi = 3.14159265358979323846;

// No plan folder: a plan made with it is measured every time and recorded nowhere.
const PlanCache& no_plan_cache() {
  static const PlanCache none("");
  return none;
}

// Runs `v` on `input` (batch signals of 2^log2n) with poisoned output and workspace; returns the output and
// REQUIREs that the input was left as it was and that no buffer's guard was written (device_guards.cuh).
std::vector<float2> run_poisoned(const FftVariant& v, int log2n, long long batch, const std::vector<float2>& input) {
  DeviceBuffer<float2> in(input), out(input.size());
  DeviceBuffer<unsigned char> ws(workspace_of(v, log2n, batch));
  in.label("input").watch();  // the transform is out-of-place
  out.label("output");
  ws.label("workspace");
  set_up(v);  // what the workload's setup() does before any run
  // A tuned stage runs its plan for this GPU, made as the workload's setup() makes it (on these buffers, before
  // they are poisoned) but never cached: each case plans afresh. check_plan_candidates tests every candidate.
  const FftLaunch launch =
      v.plan.choices ? plan_fft_stage(v.plan, {in.data(), out.data(), ws.data(), log2n, batch}, &no_plan_cache()).launch
                     : v.launch;
  out.poison();
  ws.poison();
  launch(in.data(), out.data(), log2n, batch, ws.data(), 0);
  TUT_CHECK_LAUNCH();
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  const CheckResult buffers = with_buffer_checks(CheckResult{});
  REQUIRE_MESSAGE(buffers.ok, v.name << " at N = 2^" << log2n << ", batch " << batch << ": " << buffers.message());
  return out.download();
}

// Per-signal relative L2 errors of `got` against `want`.
std::vector<double> errors(const std::vector<std::complex<double>>& want, const std::vector<float2>& got, int log2n) {
  const std::size_t n = std::size_t{1} << log2n, batch = got.size() / n;
  std::vector<double> e(batch);
  for (std::size_t s = 0; s < batch; ++s) e[s] = relative_l2_error(want.data() + s * n, &got[s * n].x, n);
  return e;
}

// The first element still holding the poison pattern, or SIZE_MAX.
std::size_t first_poisoned(const std::vector<float2>& got) {
  std::uint32_t poison;
  std::memset(&poison, kPoisonByte, 4);
  for (std::size_t i = 0; i < got.size(); ++i) {
    std::uint32_t re, im;
    std::memcpy(&re, &got[i].x, 4);
    std::memcpy(&im, &got[i].y, 4);
    if (re == poison || im == poison) return i;
  }
  return SIZE_MAX;
}

// Checks `got` against `want` signal by signal with the tolerance for this length and cuFFT error.
void check_signals(const FftVariant& v, int log2n, long long batch, const std::vector<std::complex<double>>& want,
                   const std::vector<float2>& got, double cufft_worst, const char* what) {
  const std::size_t unwritten = first_poisoned(got);
  INFO(v.name << ", N = 2^" << log2n << ", batch " << batch << ", " << what);
  REQUIRE_MESSAGE(unwritten == SIZE_MAX, "element " << unwritten << " (signal " << (unwritten >> log2n)
                                                  << ") was never written");
  const double tol = fft_tolerance(log2n, cufft_worst);
  const std::vector<double> e = errors(want, got, log2n);
  const auto worst = std::max_element(e.begin(), e.end());
  REQUIRE_MESSAGE(*worst <= tol, "signal " << (worst - e.begin()) << ": relative L2 error " << *worst
                                         << " > tolerance " << tol << " (cuFFT's worst " << cufft_worst << ")");
}

std::vector<std::complex<double>> widen(const std::vector<float2>& x) {
  std::vector<std::complex<double>> w(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) w[i] = {x[i].x, x[i].y};
  return w;
}

// cuFFT's worst per-signal error on this input (0 under a sanitizer, where it is not run).
double cufft_worst_error(int log2n, long long batch, const std::vector<float2>& input,
                         const std::vector<std::complex<double>>& want) {
  if (tut::testing::under_sanitizer()) return 0.0;
  DeviceBuffer<float2> in(input), out(input.size());
  CufftPlan plan(log2n, batch);
  plan.forward(in.data(), out.data(), 0);
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<double> e = errors(want, out.download(), log2n);
  return *std::max_element(e.begin(), e.end());
}

}  // namespace

std::vector<int> test_log2_lengths(const FftVariant& v) {
  std::vector<int> l;
  const int top = tut::testing::under_sanitizer() ? std::min(v.max_log2n, kMaxLog2nSanitized) : v.max_log2n;
  for (int k = std::max(v.min_log2n, kMinLog2n); k <= top; ++k) l.push_back(k);
  return l;
}

std::vector<long long> test_batches(int log2n) {
  const long long n = 1ll << log2n;
  std::vector<long long> b = {1, 3};
  if (tut::testing::under_sanitizer()) {
    if (133 * n <= static_cast<long long>(kMaxElementsSanitized)) b.push_back(133);
    return b;
  }
  if (log2n <= 16) {
    b.push_back(133);
    const long long large = std::max(1ll, (1ll << 22) / n) + 1;  // odd, so not a multiple of any block count
    if (large > 133) b.push_back(large);
  } else if (log2n > 20) {
    b.pop_back();  // one signal of 2^21 .. 2^24 elements: the CPU reference takes about a second each
  }
  return b;
}

std::vector<long long> variant_batches(int log2n) {
  const long long n = 1ll << log2n;
  std::vector<long long> b = {1, 3};
  if (!tut::testing::under_sanitizer() || 133 * n <= (1ll << 16)) b.push_back(133);
  if (!tut::testing::under_sanitizer()) b.push_back(std::max(1ll, (1ll << 18) / n) + 1);
  return b;
}

namespace {

// Seeded random signals, their CPU double transform and cuFFT's worst error on them: made once per length and
// batch, shared by every variant checked there.
struct RandomCase {
  std::vector<float2> input;
  std::vector<std::complex<double>> want;
  double cufft_worst = 0.0;
};

RandomCase random_case(int log2n, long long batch) {
  const std::size_t n = std::size_t{1} << log2n;
  RandomCase c;
  c.input = random_signals(n * static_cast<std::size_t>(batch), tut::testing::test_seed() + 977 * log2n + batch);
  c.want.resize(c.input.size());
  const std::vector<std::complex<double>> wide = widen(c.input);
  cpu_fft_batch(wide.data(), c.want.data(), log2n, static_cast<std::size_t>(batch));
  c.cufft_worst = cufft_worst_error(log2n, batch, c.input, c.want);
  return c;
}

}  // namespace

void check_random(const FftVariant& v, int log2n, long long batch) {
  const RandomCase c = random_case(log2n, batch);
  check_signals(v, log2n, batch, c.want, run_poisoned(v, log2n, batch, c.input), c.cufft_worst, "random signals");
}

void check_output(const FftVariant& v, int log2n, long long batch, const std::vector<float2>& input,
                  const std::vector<float2>& got, const char* what) {
  REQUIRE(got.size() == input.size());
  std::vector<std::complex<double>> want(input.size());
  const std::vector<std::complex<double>> wide = widen(input);
  cpu_fft_batch(wide.data(), want.data(), log2n, static_cast<std::size_t>(batch));
  check_signals(v, log2n, batch, want, got, 0.0, what);
}

void check_known_transforms(const FftVariant& v, int log2n) {
  // Signal s of the batch: s = 0 an impulse at 0 (transform: all ones), s = 1 an impulse at 3 (a pure phase
  // ramp exp(-2 pi i 3k/N)), s = 2 a single tone exp(2 pi i f j / N) with f = N/4 + 1 (transform: N at k = f,
  // zero elsewhere), s = 3 the constant 1 (transform: N at k = 0), s = 4 the constant (0.5, -0.25).
  const std::size_t n = std::size_t{1} << log2n;
  constexpr long long kBatch = 5;
  std::vector<float2> input(kBatch * n, float2{0.f, 0.f});
  std::vector<std::complex<double>> want(kBatch * n, {0.0, 0.0});
  const std::size_t f = n / 4 + 1;
  input[0] = {1.f, 0.f};
  input[n + 3] = {1.f, 0.f};
  for (std::size_t j = 0; j < n; ++j) {
    const double a = 2.0 * kPi * static_cast<double>((f * j) % n) / static_cast<double>(n);
    input[2 * n + j] = {static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a))};
    input[3 * n + j] = {1.f, 0.f};
    input[4 * n + j] = {0.5f, -0.25f};
  }
  for (std::size_t k = 0; k < n; ++k) {
    want[k] = {1.0, 0.0};
    const double a = -2.0 * kPi * static_cast<double>((3 * k) % n) / static_cast<double>(n);
    want[n + k] = {std::cos(a), std::sin(a)};
  }
  want[2 * n + f] = {static_cast<double>(n), 0.0};
  want[3 * n] = {static_cast<double>(n), 0.0};
  want[4 * n] = {0.5 * static_cast<double>(n), -0.25 * static_cast<double>(n)};
  // The tone's input is rounded to float, so its exact transform is not exactly N at one bin; the floor of
  // the tolerance (3 eps log2 N) covers that rounding (relative error about eps).
  check_signals(v, log2n, kBatch, want, run_poisoned(v, log2n, kBatch, input), 0.0, "known transforms");
}

void check_variants(const std::vector<FftVariant>& variants) {
  require_supported_gpu();
  for (int log2n = kMinLog2n; log2n <= kMaxLog2n; ++log2n) {
    std::vector<const FftVariant*> here;  // the variants tested at this length
    for (const auto& v : variants) {
      const std::vector<int> l = test_log2_lengths(v);
      if (std::find(l.begin(), l.end(), log2n) != l.end()) here.push_back(&v);
    }
    if (here.empty()) continue;
    for (long long batch : test_batches(log2n)) {
      const RandomCase c = random_case(log2n, batch);
      for (const FftVariant* v : here)
        check_signals(*v, log2n, batch, c.want, run_poisoned(*v, log2n, batch, c.input), c.cufft_worst,
                      "random signals");
    }
  }
  if (tut::testing::under_sanitizer())
    MESSAGE("under compute-sanitizer: lengths up to 2^" << kMaxLog2nSanitized << ", at most "
                                                        << kMaxElementsSanitized << " elements, no cuFFT");
}

void check_variants_known(const std::vector<FftVariant>& variants) {
  require_supported_gpu();
  for (const auto& v : variants)
    for (int log2n : test_log2_lengths(v)) check_known_transforms(v, log2n);
}

void check_planted_batch_bugs(const std::vector<FftVariant>& variants) {
  require_supported_gpu();
  // Lengths whose one extra signal fits in the output's 64 KiB back guard (8192 float2), so the planted overrun
  // writes only there.
  constexpr int kMaxLog2nPlanted = 13;
  static_assert((std::size_t{8} << kMaxLog2nPlanted) <= kGuardMinBackBytes, "one extra signal inside the guard");
  const std::vector<long long> batches = tut::testing::under_sanitizer() ? std::vector<long long>{1, 3}
                                                                         : std::vector<long long>{1, 3, 133};
  for (const auto& v : variants) {
    if (!v.known_defect.empty()) continue;
    for (int log2n : test_log2_lengths(v)) {
      if (log2n > kMaxLog2nPlanted) break;
      const std::size_t n = std::size_t{1} << log2n;
      for (long long batch : batches) {
        INFO(v.name << ", N = 2^" << log2n << ", batch " << batch);
        const std::size_t size = n * static_cast<std::size_t>(batch);
        DeviceBuffer<float2> in(random_signals(size, tut::testing::test_seed() + size)), out(size);
        DeviceBuffer<unsigned char> ws(workspace_of(v, log2n, batch + 1));  // the workspace is not the point here
        in.label("input").watch();
        out.label("output");
        ws.label("workspace");
        // batch + 1: the output's guard must name the signal written past its end.
        out.poison();
        v.launch(in.data(), out.data(), log2n, batch + 1, ws.data(), 0);
        TUT_CHECK_LAUNCH();
        TUT_CUDA_CHECK(cudaDeviceSynchronize());
        const CheckResult past = with_buffer_checks(CheckResult{});
        CHECK_FALSE(past.ok);
        CHECK_MESSAGE(past.detail.find("past the end of the " + std::to_string(size) + "-element float2 buffer 'output'") !=
                          std::string::npos,
                      "batch + 1: " << past.message());
        if (batch == 1) continue;  // batch - 1 = 0 signals: nothing to leave unwritten
        // batch - 1: the last signal keeps the poison; no guard is touched.
        out.poison();
        v.launch(in.data(), out.data(), log2n, batch - 1, ws.data(), 0);
        TUT_CHECK_LAUNCH();
        TUT_CUDA_CHECK(cudaDeviceSynchronize());
        const CheckResult short_by_one = with_buffer_checks(CheckResult{});
        CHECK_MESSAGE(short_by_one.ok, "batch - 1: " << short_by_one.message());
        CHECK(first_poisoned(out.download()) == (static_cast<std::size_t>(batch) - 1) * n);
      }
    }
  }
}

namespace {

// `stage` as a variant that runs `c` at every length and has no plan (for the checks above).
FftVariant as_variant(const FftVariant& stage, const FftCandidate& c) {
  FftVariant v = stage;
  v.name = stage.name + " (candidate " + c.name + ")";
  v.launch = c.launch;
  v.plan = {};
  return v;
}

// The stage's candidates at 2^log2n, after its set-up on this device.
FftChoice choice_at(const FftVariant& stage, int log2n) {
  REQUIRE_MESSAGE(stage.plan.choices, stage.name << " has no plan");
  set_up(stage);
  return stage.plan.choices(log2n);
}

// For the scope: this process plans in `dir` (as TUT_PLAN_DIR), logging to `log`; everything restored after.
class ScopedPlanDir {
 public:
  ScopedPlanDir(const std::string& dir, std::ostream* log) : saved_(plan_settings()) {
    const char* old = std::getenv("TUT_PLAN_DIR");
    if (old) old_dir_ = old;
    ::setenv("TUT_PLAN_DIR", dir.c_str(), 1);
    plan_settings().dir_set = false;  // read TUT_PLAN_DIR, as a run of the program does
    plan_settings().replan = false;
    plan_settings().log = log;
  }
  ~ScopedPlanDir() {
    if (old_dir_) ::setenv("TUT_PLAN_DIR", old_dir_->c_str(), 1);
    else ::unsetenv("TUT_PLAN_DIR");
    plan_settings() = saved_;
  }

 private:
  PlanSettings saved_;
  std::optional<std::string> old_dir_;
};

int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

void check_plan_candidates(const FftVariant& stage) {
  require_supported_gpu();
  int lengths_with_a_choice = 0;
  for (int log2n : test_log2_lengths(stage)) {
    const FftChoice choice = choice_at(stage, log2n);
    REQUIRE(!choice.candidates.empty());
    if (choice.candidates.size() == 1) {  // the stage's own launch: check_variants tests it
      CHECK_MESSAGE(!choice.why.empty(), stage.name << " at N = 2^" << log2n << ": one candidate and no reason");
      continue;
    }
    ++lengths_with_a_choice;
    for (const FftCandidate& c : choice.candidates) {
      const FftVariant v = as_variant(stage, c);
      for (long long batch : variant_batches(log2n))
        if (batch == 1 || (batch << log2n) <= (1ll << 24)) check_random(v, log2n, batch);
      check_known_transforms(v, log2n);
    }
  }
  MESSAGE(stage.name << ": the candidates at " << lengths_with_a_choice << " lengths with a choice checked");
}

void check_stale_plan_ignored(const ChapterSpec& spec, const FftVariant& stage, const std::vector<int>& lengths) {
  require_supported_gpu();
  int log2n = 0;
  FftChoice choice;
  const std::vector<int> tested = test_log2_lengths(stage);  // capped under a sanitizer
  for (int l : lengths) {
    if (std::find(tested.begin(), tested.end(), l) == tested.end()) continue;
    choice = choice_at(stage, l);
    if (choice.candidates.size() >= 2) {
      log2n = l;
      break;
    }
  }
  if (log2n == 0) {
    MESSAGE(stage.name << ": one candidate at every length tried on this GPU; its plan never reads a plan file");
    return;
  }
  const bool small = tut::testing::under_sanitizer();
  const long long batch = std::max(1ll, (1ll << (small ? 16 : 24)) >> log2n);
  const std::size_t size = static_cast<std::size_t>(batch) << log2n;
  INFO(stage.name << " at N = 2^" << log2n << ", batch " << batch);
  DeviceBuffer<float2> in(random_signals(size, tut::testing::test_seed() + 38)), out(size);
  DeviceBuffer<unsigned char> ws(workspace_of(stage, log2n, batch));
  const FftProblem problem{in.data(), out.data(), ws.data(), log2n, batch};
  const tut::testing::TempDir dir("tut-fft-plan");
  std::ostringstream log;
  const ScopedPlanDir scoped(dir.path, &log);
  PlanRequest r = fft_plan_request(stage.plan, choice, problem);
  r.model = nullptr;  // the model may decide on this GPU, and then no file is read: go to the cache
  const PlanCache cache(dir.path, &log);
  const std::string path = cache.path_for(r.key);
  const auto is_candidate = [&](const std::string& name) {
    return std::find(r.candidates.begin(), r.candidates.end(), name) != r.candidates.end();
  };
  // 1. A plan of this key naming a candidate the stage does not have (a build that had it, say).
  REQUIRE(cache.store(r.key, Plan{"no-such-candidate", "measured: a candidate this stage does not have"}));
  const Plan replanned = choose_plan(r);
  CHECK(count_lines(log.str()) == 1);
  CHECK(log.str().rfind("plan cache: ignoring " + path, 0) == 0);
  CHECK(log.str().find("no longer a candidate") != std::string::npos);
  CHECK(is_candidate(replanned.choice));
  CHECK(replanned.why.rfind("measured: " + std::to_string(r.candidates.size()) + " candidates", 0) == 0);
  // 2. The next run reads the plan just measured, silently.
  const Plan cached = choose_plan(r);
  CHECK(cached.choice == replanned.choice);
  CHECK(cached.why.rfind("cached: measured:", 0) == 0);
  CHECK(count_lines(log.str()) == 1);
  // 3. The same file cut short: ignored with one line more, planned again.
  {
    std::ifstream whole(path);
    const std::string text((std::istreambuf_iterator<char>(whole)), std::istreambuf_iterator<char>());
    std::ofstream(path, std::ios::trunc) << text.substr(0, text.size() / 2);
  }
  const Plan after_cut = choose_plan(r);
  CHECK(count_lines(log.str()) == 2);
  // Its line names why (cut inside a field or before the end line: either is a reason to ignore it).
  CHECK(log.str().find("plan cache: ignoring " + path, log.str().find('\n') + 1) != std::string::npos);
  CHECK(is_candidate(after_cut.choice));
  // 4. The chosen candidate runs right.
  check_random(as_variant(stage, candidate_named(choice, after_cut.choice)), log2n, 3);
  // 5. The program itself, with the unknown candidate in its plan file again: it plans again and its check
  //    passes. Where its model decides (one wave, or Little's law) the file is not read; the line says so.
  if (small) return;
  REQUIRE(cache.store(r.key, Plan{"no-such-candidate", "measured: a candidate this stage does not have"}));
  const std::size_t lines_before = static_cast<std::size_t>(count_lines(log.str()));
  CHECK(tut::testing::run_chapter_with(spec, {"--length", std::to_string(1ll << log2n), "--size", std::to_string(size),
                                              "--variant", stage.name, "--reps", "1", "--warmup", "0"}) == 0);
  REQUIRE(!plan_lines().empty());
  const std::string line = plan_lines().back();
  INFO("the program's plan line: " << line);
  if (line.find("(model: ") != std::string::npos) {
    MESSAGE("the program's model decided, so its plan file was not read: " << line);
  } else {
    CHECK(static_cast<std::size_t>(count_lines(log.str())) == lines_before + 1);
    CHECK(line.find("(measured: ") != std::string::npos);
  }
}

void check_command_line(const ChapterSpec& spec) {
  require_supported_gpu();
  using tut::testing::run_chapter_with;
  CHECK(run_chapter_with(spec, {"--length", "1000", "--size", "2^20"}) == 2);   // not a power of two
  CHECK(run_chapter_with(spec, {"--length", "4", "--size", "2^20"}) == 2);      // too short
  CHECK(run_chapter_with(spec, {"--length", "33554432", "--size", "2^26"}) == 2);   // too long
  CHECK(run_chapter_with(spec, {"--length", "4096", "--size", "2^11"}) == 2);   // longer than the batch
  CHECK(run_chapter_with(spec, {"--length", "1024", "--size", "2^20+8"}) == 2); // does not divide the size
  if (!tut::testing::under_sanitizer())  // the program runs cuFFT too: keep the sanitizers on our kernels
    CHECK(run_chapter_with(spec, {"--length", "256", "--size", "2^16", "--reps", "1", "--warmup", "0",
                                 "--variant", "all"}) == 0);  // every variant runs and checks at N = 256
}

}  // namespace tut::fft::testing
