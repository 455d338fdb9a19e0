// Chapter 40: the inclusive int32 scan over several GPUs of one host, one process, NCCL for the exchange.
// The program runs on the chapter runner (common/runner.cuh): one variant per GPU count (1, 2, 4, ... up to
// --gpus, and --gpus itself), each timed whole (events on GPU 0's stream, which waits for every other GPU at
// the end). After each count's timed run it measures each part alone: the reduce and the scan of one shard on
// GPU 0, and the exchange (the all-gather and the totals' trip to the host, timed on the host); the summary
// prints the bound of each GPU count from those parts (reduce + exchange + scan of one shard), each measured
// time as a share of its bound, GB/s per GPU and in total, and the timeline of one run on every GPU.
// Input is made and checked on the GPUs (any size the GPUs hold together), and checked against the CPU
// reference too where the host can hold it. The same rows with chapter 18's int32-sum stage per shard instead of
// chapter 17's are on demand (scan-multi-gpu-copy-bound[-<k>gpu]; --variant all).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.hpp"
#include "cuda_check.cuh"
#include "device.cuh"
#include "report.hpp"
#include "runner.cuh"
#include "scan_multi_gpu.cuh"
#include "scan_reference.cuh"
#include "shard_set.cuh"
#include "timing.cuh"

namespace multi_gpu_program {

namespace mg = scan_multi_gpu;

const char* const kChapter = "40-scan-multi-gpu";
const char* const kTitle = "inclusive int32 scan over the GPUs of one host: reduce, NCCL all-gather, scan with carry";
const char* const kStage = "scan-multi-gpu";
const char* const kCopyBoundStage = "scan-multi-gpu-copy-bound";

// The two per-shard scans, in the order of their rows: the stage (chapter 17's) and the copy-bound variant.
constexpr mg::ShardScan kShardScans[] = {mg::ShardScan::kLandingZone, mg::ShardScan::kCopyBound};
constexpr int kShardScanCount = 2;
int index_of(mg::ShardScan which) { return which == mg::ShardScan::kLandingZone ? 0 : 1; }
const char* stage_of(mg::ShardScan which) { return which == mg::ShardScan::kLandingZone ? kStage : kCopyBoundStage; }

// Host memory below which the program also checks against the CPU reference (input, reference and one
// shard's output on the host: about 12 bytes per element), as a share of the machine's physical memory.
constexpr double kCpuCheckHostShare = 0.5;

std::vector<tut::ExtraOption> extra_options() {
  return {{"gpus", "GPUs to use, 1 .. the visible count (0: all visible)", 0, 0, 1024},
          {"weak", "1: --size is per GPU (weak scaling: n = size x GPUs); 0: the same n on every GPU count", 0, 0, 1},
          {"last-weight",
           "the last GPU's shard in percent of each other GPU's (100: even split; it does not reduce, so about "
           "(1 + reduce/scan time) x 100 balances)",
           100, 1, 1000},
          {"ranks",
           "one process per GPU: start this many ranks of this program, each with one shard (0: one process "
           "drives every GPU)",
           0, 0, 1024},
          {"rank-timeout",
           "the rank form: seconds within which the rendezvous, NCCL's set-up and every collective must progress, "
           "else every rank ends with one line",
           60, 1, 3600}};
}

double host_physical_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

std::vector<int> first_devices(int count) {
  std::vector<int> d(count);
  for (int i = 0; i < count; ++i) d[i] = i;
  return d;
}

std::size_t free_bytes_on(int device) {
  tut::ScopedDevice on(device);
  return tut::free_device_bytes();
}

// Empty when n fits in the first `gpus` GPUs; else why not (one line).
std::string why_not_fit(std::size_t n, int gpus, int last_weight) {
  if (n / static_cast<std::size_t>(gpus) > (std::size_t{1} << 50))  // petabytes: no GPU holds it (and no overflow below)
    return "--size " + tut::format_size(n) + " does not fit in " + std::to_string(gpus) + " GPUs' memory together";
  const std::size_t need = mg::shard_device_bytes(mg::Split{n, gpus, last_weight}.largest(), gpus);
  for (int d = 0; d < gpus; ++d) {
    const std::size_t free_b = free_bytes_on(d);
    if (!mg::fits_in(need, free_b)) {
      std::ostringstream m;
      m << std::fixed << std::setprecision(1) << "--size " << tut::format_size(n) << " does not fit in " << gpus
        << " GPU" << (gpus > 1 ? "s" : "") << "' memory together: each needs " << need / 1073741824.0
        << " GiB (+ 1 GiB kept free), GPU " << d << " has " << free_b / 1073741824.0 << " GiB free";
      return m.str();
    }
  }
  return "";
}

// The parts of one GPU count with one shard scan, measured after its timed run (finish()).
struct Parts {
  bool measured = false;  // reduce, exchange, scan(_last), timeline: gpus > 1, not --profile
  tut::TimingStats reduce, exchange, scan, scan_last;
  double bound_ms = 0.0;
  // One run's timeline, per GPU, in ms from that GPU's start: reduce done, totals on the host, scan launched,
  // scan done.
  std::vector<std::vector<double>> timeline;
};

// One GPU count: what the options give it, and its parts with each shard scan (kShardScans' order).
struct CountRow {
  int gpus = 0;
  std::size_t n = 0;
  std::size_t shard = 0;       // elements of shard 0 (the largest of an even split)
  std::size_t last_shard = 0;  // elements of the last shard
  bool fits = true;
  Parts parts[kShardScanCount];
};

// What the options and the machine give this run: resolved once (ChapterSpec::resolve), read by the workload
// and the summary.
struct Plan {
  int visible = 0;
  int max_gpus = 1;
  bool weak = false;
  int last_weight = 100;
  std::vector<CountRow> counts;  // 1, 2, 4, ..., max_gpus; those that do not fit are kept for the summary

  std::size_t n_for(int gpus) const { return counts.empty() ? 0 : (weak ? counts[0].n * gpus : counts[0].n); }
  CountRow* count(int gpus) {
    for (CountRow& c : counts)
      if (c.gpus == gpus) return &c;
    return nullptr;
  }
};

std::string row_name(int gpus, int max_gpus, mg::ShardScan which = mg::ShardScan::kLandingZone) {
  const std::string stage = stage_of(which);
  return gpus == max_gpus ? stage : stage + "-" + std::to_string(gpus) + "gpu";
}

// Checks the options against this machine (UsageError when they cannot run) and lays out the GPU counts.
Plan make_plan(const tut::Options& opt) {
  tut::ScopedDevice caller;  // require_supported_gpu(d) makes d current
  Plan plan;
  TUT_CUDA_CHECK(cudaGetDeviceCount(&plan.visible));
  const int requested = static_cast<int>(opt.extra.at("gpus"));
  if (requested > plan.visible)
    throw tut::UsageError("--gpus " + std::to_string(requested) + " requested but only " +
                          std::to_string(plan.visible) + " GPU" + (plan.visible == 1 ? " is" : "s are") + " visible");
  plan.max_gpus = requested > 0 ? requested : plan.visible;
  for (int d = 1; d < plan.max_gpus; ++d) tut::require_supported_gpu(d);
  plan.weak = opt.extra.at("weak") != 0;
  if (plan.weak && opt.size > (std::size_t{1} << 50))
    throw tut::UsageError("--size " + tut::format_size(opt.size) + " per GPU does not fit in any GPU's memory");
  plan.last_weight = static_cast<int>(opt.extra.at("last-weight"));
  std::vector<int> gpu_counts;
  for (int g = 1; g < plan.max_gpus; g *= 2) gpu_counts.push_back(g);
  gpu_counts.push_back(plan.max_gpus);
  for (int g : gpu_counts) {
    CountRow c;
    c.gpus = g;
    c.n = plan.weak ? opt.size * static_cast<std::size_t>(g) : opt.size;
    const mg::Split split{c.n, g, plan.last_weight};
    c.shard = split.count(0);
    c.last_shard = split.count(g - 1);
    if (g == plan.max_gpus) {
      const std::string fit = why_not_fit(c.n, g, plan.last_weight);
      if (!fit.empty()) throw tut::UsageError(fit);
    } else {
      c.fits = why_not_fit(c.n, g, plan.last_weight).empty();
    }
    plan.counts.push_back(c);
  }
  return plan;
}

// Host-timed repetitions (the exchange includes a host wait), with the same plan as time_gpu.
template <class Work>
tut::TimingStats time_on_host(Work work, const tut::TimingPlan& plan) {
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < plan.warmup; ++i) work();
  std::vector<double> samples;
  const auto once = [&] {
    const auto t0 = clock::now();
    work();
    samples.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
  };
  once();
  const int reps = plan.reps > 0 ? plan.reps : tut::adaptive_reps(samples[0], plan.budget_ms, plan.min_reps, plan.max_reps);
  for (int i = 1; i < reps; ++i) once();
  return tut::summarize(samples);
}

// One GPU count, set up: the shards with their input, the communicators, and the events that tie every GPU's
// stream to the stream a run is enqueued on.
struct CountSetup {
  CountSetup(std::size_t n, int gpus, int last_weight, std::uint64_t seed)
      : set(n, first_devices(gpus), last_weight) {
    tut::ScopedDevice caller;
    set.fill_random(seed);
    for (const mg::Shard& s : set.shards()) {  // both shard scans' per-device set-up, and one event per GPU
      TUT_CUDA_CHECK(cudaSetDevice(s.device));
      mg::setup_shard_scans();
      done.push_back(mg::OwnedEvent::create(cudaEventDisableTiming));
    }
    TUT_CUDA_CHECK(cudaSetDevice(set.shards()[0].device));
    start = mg::OwnedEvent::create(cudaEventDisableTiming);
    if (gpus > 1) {
      comms = std::make_unique<mg::NcclCommunicators>(first_devices(gpus));
      exchange = std::make_unique<mg::NcclAllGather>(*comms);
    } else {
      exchange = std::make_unique<mg::DeviceGather>();  // never called with one shard
    }
  }

  // The fan-out: every GPU's stream waits for what `stream` (on GPU 0, current) has so far.
  void fan_out(cudaStream_t stream) {
    TUT_CUDA_CHECK(cudaEventRecord(start.get(), stream));
    for (const mg::Shard& s : set.shards()) {
      tut::ScopedDevice on(s.device);
      TUT_CUDA_CHECK(cudaStreamWaitEvent(s.stream, start.get(), 0));
    }
  }
  // The fan-in: `stream` (on GPU 0, current) waits for everything every GPU's stream has so far.
  void fan_in(cudaStream_t stream) {
    const auto& shards = set.shards();
    for (std::size_t p = 0; p < shards.size(); ++p) {
      tut::ScopedDevice on(shards[p].device);
      TUT_CUDA_CHECK(cudaEventRecord(done[p].get(), shards[p].stream));
    }
    for (const mg::OwnedEvent& e : done) TUT_CUDA_CHECK(cudaStreamWaitEvent(stream, e.get(), 0));
  }

  mg::ShardSet set;
  std::unique_ptr<mg::NcclCommunicators> comms;
  std::unique_ptr<mg::TotalsExchange> exchange;
  mg::OwnedEvent start;              // on GPU 0
  std::vector<mg::OwnedEvent> done;  // one per shard, on its GPU
};

// One instrumented run: events at each step's end on every GPU, times relative to that GPU's start.
std::vector<std::vector<double>> timeline_of_one_run(CountSetup& setup, mg::ShardScan which) {
  constexpr int kMarks = 5;  // start, reduce done, totals on the host, scan launched, scan done
  const std::vector<mg::Shard>& shards = setup.set.shards();
  const std::size_t P = shards.size();
  tut::ScopedDevice caller;
  std::vector<std::vector<mg::OwnedEvent>> ev(P);
  for (std::size_t p = 0; p < P; ++p) {
    TUT_CUDA_CHECK(cudaSetDevice(shards[p].device));
    for (int k = 0; k < kMarks; ++k) ev[p].push_back(mg::OwnedEvent::create(cudaEventDefault));
  }
  const auto mark = [&](std::size_t p, int k) {
    TUT_CUDA_CHECK(cudaSetDevice(shards[p].device));
    TUT_CUDA_CHECK(cudaEventRecord(ev[p][k].get(), shards[p].stream));
  };
  TUT_CUDA_CHECK(cudaSetDevice(shards[0].device));
  setup.fan_out(shards[0].stream);
  for (std::size_t p = 0; p < P; ++p) mark(p, 0);
  mg::enqueue_shard_totals(shards);
  for (std::size_t p = 0; p < P; ++p) mark(p, 1);
  setup.exchange->enqueue(shards);
  mg::enqueue_totals_download(shards);
  for (std::size_t p = 0; p < P; ++p) mark(p, 2);
  mg::scan_shards_with_carries(shards, [&](std::size_t p) { mark(p, 3); }, which);
  for (std::size_t p = 0; p < P; ++p) mark(p, 4);
  std::vector<std::vector<double>> t(P, std::vector<double>(kMarks - 1));
  for (std::size_t p = 0; p < P; ++p) {
    TUT_CUDA_CHECK(cudaSetDevice(shards[p].device));
    TUT_CUDA_CHECK(cudaEventSynchronize(ev[p][kMarks - 1].get()));
    for (int k = 1; k < kMarks; ++k) {
      float ms = 0.f;
      TUT_CUDA_CHECK(cudaEventElapsedTime(&ms, ev[p][0].get(), ev[p][k].get()));
      t[p][k - 1] = ms;
    }
  }
  return t;
}

// The parts of one GPU count with the shard scan `which`, each alone: the reduce and the scan of shard 0 on GPU 0
// (the others idle), the exchange on all GPUs (host-timed), the last shard's scan where the split is uneven; the
// bound from them; the timeline of one run.
void measure_parts(CountSetup& setup, int last_weight, const tut::TimingPlan& plan, mg::ShardScan which, Parts& row) {
  const std::vector<mg::Shard>& shards = setup.set.shards();
  const mg::Shard& s0 = shards[0];
  tut::ScopedDevice caller;
  TUT_CUDA_CHECK(cudaSetDevice(s0.device));
  row.reduce = tut::time_gpu(
      [&](cudaStream_t s) { mg::reduce_shard(s0.in, s0.count, s0.total, s0.workspace, s0.workspace_bytes, s); }, plan,
      s0.stream);
  row.scan = tut::time_gpu(
      [&](cudaStream_t s) { mg::scan_with_carry(which, s0.in, s0.out, s0.count, s0.workspace, s, 0); }, plan,
      s0.stream);
  row.exchange = time_on_host(
      [&] {
        setup.exchange->enqueue(shards);
        mg::enqueue_totals_download(shards);
        setup.set.synchronize();
      },
      plan);
  // An uneven split: the last shard's scan, on the last GPU alone (with an even split it is never the longer).
  const mg::Shard& last = shards.back();
  double last_ms = 0.0;
  if (last_weight != 100) {
    TUT_CUDA_CHECK(cudaSetDevice(last.device));
    row.scan_last = tut::time_gpu(
        [&](cudaStream_t s) { mg::scan_with_carry(which, last.in, last.out, last.count, last.workspace, s, 0); },
        plan, last.stream);
    last_ms = row.scan_last.median_ms;
  }
  // The last GPU scans only; the others reduce, then scan; all wait for the exchange in between.
  row.bound_ms = row.exchange.median_ms + std::max(row.reduce.median_ms + row.scan.median_ms, last_ms);
  row.timeline = timeline_of_one_run(setup, which);
  row.measured = true;
}

// The workload: one GPU count at a time (setup() frees the previous count's shards before it makes the next).
class MultiGpuWorkload final : public tut::Workload {
 public:
  explicit MultiGpuWorkload(std::shared_ptr<Plan> plan) : plan_(std::move(plan)) {}

  std::size_t device_bytes(const tut::Options& opt) const override {
    if (plan_->counts.empty()) *plan_ = make_plan(opt);
    std::size_t most = 0;  // GPU 0's share of the largest count that fits (one count is held at a time)
    for (const CountRow& c : plan_->counts)
      if (c.fits)
        most = std::max(most, mg::shard_device_bytes(mg::Split{c.n, c.gpus, plan_->last_weight}.largest(), c.gpus));
    return most;
  }
  // The host holds at most the CPU reference's input and output and one shard's output (12 bytes an element),
  // and only where it has room (kCpuCheckHostShare); the GPUs' check needs none.
  std::size_t host_bytes(const tut::Options& opt) const override {
    if (plan_->counts.empty()) *plan_ = make_plan(opt);
    const double bytes = 12.0 * static_cast<double>(plan_->n_for(plan_->max_gpus));
    return bytes > kCpuCheckHostShare * host_physical_bytes() ? 0 : static_cast<std::size_t>(bytes);
  }

  void prepare(const tut::Options& opt, bool with_reference) override {
    if (plan_->counts.empty()) *plan_ = make_plan(opt);
    seed_ = opt.seed;
    with_reference_ = with_reference;
    profile_ = opt.profile;
    parts_plan_ = tut::timing_plan(opt);
    parts_plan_.timed_range.clear();  // the parts are not the variant's timed run: ncu's filter must skip them
  }

  // The shards of this GPU count (its input made on the GPUs), both shard scans' set-up on every GPU, the NCCL
  // communicators (ncclCommInitAll), the events of the fan-out and fan-in. A count's two variants share them.
  void setup(const std::string& variant) override {
    const int gpus = gpus_of(variant);
    if (current_ && current_gpus_ == gpus) return;
    current_.reset();  // the previous count's memory goes back first
    current_gpus_ = 0;
    const CountRow& row = *plan_->count(gpus);
    current_ = std::make_unique<CountSetup>(row.n, gpus, plan_->last_weight, seed_);
    current_gpus_ = gpus;
  }

  void poison(cudaStream_t) override {
    tut::ScopedDevice caller;
    if (current_) current_->set.poison();  // synchronises every GPU's stream: nothing of it is in flight later
  }

  // Every GPU's stream first waits for `stream` (an event recorded on it, the fan-out), and `stream` finally
  // waits for every GPU's stream (an event recorded on each: cudaStreamWaitEvent accepts another device's
  // event). So events that the runner records on `stream` on GPU 0 bracket the whole scan on every GPU, and
  // synchronising GPU 0 waits for all of them. The host waits inside the scan for the totals (chapter 17's
  // kernel takes the carry by value: step 3 of scan_multi_gpu.cuh); that round trip is part of what is timed.
  void run(const std::string& variant, cudaStream_t stream) override {
    CountSetup& setup = set_up(variant);
    tut::ScopedDevice caller;  // GPU 0, the device of `stream`, is current again at the end
    setup.fan_out(stream);
    mg::inclusive_scan(setup.set.shards(), *setup.exchange, scan_of(variant));
    TUT_CUDA_CHECK(cudaSetDevice(setup.set.shards()[0].device));
    setup.fan_in(stream);
  }

  // On the GPUs always; against the CPU reference too where the host holds it.
  tut::CheckResult check(const std::string& variant) override {
    CountSetup& setup = set_up(variant);
    tut::ScopedDevice caller;
    const tut::CheckResult on_gpus = setup.set.check_on_devices();
    const std::size_t n = setup.set.n();
    if (!on_gpus.ok || !with_reference_ || 12.0 * static_cast<double>(n) > kCpuCheckHostShare * host_physical_bytes())
      return on_gpus;
    std::vector<std::int32_t> expected(n);
    {
      const std::vector<std::int32_t> host = tut::random_integers<std::int32_t>(n, seed_);
      tut::scan::cpu_inclusive_scan(host.data(), expected.data(), n);
    }
    tut::CheckResult on_cpu = setup.set.check_against(expected);
    if (!on_cpu.ok) on_cpu.detail += " (CPU reference; the GPUs' check passed)";
    return on_cpu;
  }

  tut::Work work(const std::string& variant) const override {
    const int gpus = gpus_of(variant);
    const std::size_t n = plan_->n_for(gpus);
    tut::Work w;
    w.bytes = 2.0 * static_cast<double>(n) * sizeof(std::int32_t);  // read once, written once (not the reduce)
    w.n = n;
    w.devices = gpus;
    return w;
  }

  // After the timed run: the parts of a multi-GPU count (not in profile mode), for the summary.
  void finish(const std::string& variant) override {
    const int gpus = gpus_of(variant);
    const mg::ShardScan which = scan_of(variant);
    Parts& parts = plan_->count(gpus)->parts[index_of(which)];
    if (gpus > 1 && !profile_) measure_parts(set_up(variant), plan_->last_weight, parts_plan_, which, parts);
  }

  // cudaMemcpy of n int32 on GPU 0 (the one-GPU ceiling of a single pass).
  std::size_t memcpy_bytes() const override { return plan_->n_for(1) * sizeof(std::int32_t); }

 private:
  int gpus_of(const std::string& variant) const {
    for (const CountRow& c : plan_->counts)
      for (mg::ShardScan which : kShardScans)
        if (c.fits && variant == row_name(c.gpus, plan_->max_gpus, which)) return c.gpus;
    throw std::logic_error("chapter 40: no GPU count is called '" + variant + "'");
  }
  mg::ShardScan scan_of(const std::string& variant) const {
    const int gpus = gpus_of(variant);
    return variant == row_name(gpus, plan_->max_gpus) ? mg::ShardScan::kLandingZone : mg::ShardScan::kCopyBound;
  }
  CountSetup& set_up(const std::string& variant) {
    if (!current_ || current_gpus_ != gpus_of(variant))
      throw std::logic_error("chapter 40: run '" + variant + "' before its setup()");
    return *current_;
  }

  std::shared_ptr<Plan> plan_;
  std::uint64_t seed_ = 0;
  bool with_reference_ = true;
  bool profile_ = false;
  tut::TimingPlan parts_plan_;
  std::unique_ptr<CountSetup> current_;
  int current_gpus_ = 0;
};

std::string us(double ms) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(ms < 1.0 ? 1 : 0) << ms * 1000.0;
  return s.str();
}
std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

// The scaling report after the standard table: the GPUs and NCCL, then for each shard scan that ran, the parts
// table and the timelines.
void print_summary(std::ostream& os, const Plan& plan, const std::vector<tut::Result>& results) {
  const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
  os << "(% peak and % memcpy of a P-GPU row: shares of P GPUs' peak and of P times GPU 0's cudaMemcpy)\n"
     << "GPUs: " << plan.visible << " visible, " << plan.max_gpus << " used; NCCL " << mg::nccl_version_text()
     << "; NCCL_NVLS_ENABLE=" << (nvls ? nvls : "unset") << "\n";
  for (mg::ShardScan which : kShardScans) {
    const auto result_of = [&](int gpus) -> const tut::Result* {
      for (const tut::Result& r : results)
        if (r.variant == row_name(gpus, plan.max_gpus, which)) return &r;
      return nullptr;
    };
    bool any = false;
    for (const CountRow& c : plan.counts) any = any || result_of(c.gpus) != nullptr;
    if (!any) continue;
    os << "\n" << stage_of(which) << " (each shard scanned with "
       << (which == mg::ShardScan::kLandingZone ? "chapter 17's stage" : "chapter 18's int32-sum stage") << "):\n";
    const tut::Result* one = result_of(1);
    std::vector<std::vector<std::string>> cells;
    for (const CountRow& c : plan.counts) {
      const tut::Result* r = result_of(c.gpus);
      const Parts& pt = c.parts[index_of(which)];
      if (!c.fits || !r) {
        cells.push_back({std::to_string(c.gpus), tut::format_size(c.n), tut::format_size(c.shard), "-", "-", "-", "-",
                         "-", "-", "-", "-", "-", "-", c.fits ? "not run" : "does not fit"});
        continue;
      }
      const double w = r->time.median_ms;
      const double total_gbps = tut::gigabytes_per_second(2.0 * static_cast<double>(c.n) * 4.0, w);
      const bool multi = c.gpus > 1, parts = pt.measured, uneven = multi && plan.last_weight != 100;
      const double bound_ms = multi ? pt.bound_ms : w;  // one GPU: the bound is the scan itself
      std::string vs = "-", bound_vs = "-";
      if (one && one->time.median_ms > 0 && w > 0) {
        // strong scaling: speedup at the same n; weak scaling: the one-GPU time over this one (1 = perfect)
        vs = fixed(one->time.median_ms / w, 2) + "x";
        if (!plan.weak && (parts || !multi)) bound_vs = fixed(one->time.median_ms / bound_ms, 2) + "x";
      }
      std::string shard = tut::format_size(c.shard);
      if (uneven) shard += " / last " + tut::format_size(c.last_shard);
      std::string scan = multi ? (parts ? us(pt.scan.median_ms) : "-") : us(w);
      if (uneven && parts) scan += " / last " + us(pt.scan_last.median_ms);
      cells.push_back({std::to_string(c.gpus), tut::format_size(c.n), shard, parts ? us(pt.reduce.median_ms) : "-",
                       parts ? us(pt.exchange.median_ms) : "-", scan, parts || !multi ? us(bound_ms) : "-", us(w),
                       (parts || !multi) && w > 0 ? fixed(100.0 * bound_ms / w, 1) : "-",
                       fixed(total_gbps / c.gpus, 1), fixed(total_gbps, 1), vs, bound_vs, r->check});
    }
    tut::write_text_table(os, {"GPUs", "n", "shard", "reduce us", "exchange us", "scan us", "bound us", "whole us",
                               "% of bound", "GB/s/GPU", "GB/s total", plan.weak ? "T1/T" : "vs 1 GPU",
                               "bound vs 1 GPU", "check"},
                          cells);
    os << "(reduce, scan: one shard on GPU 0 alone; exchange: ncclAllGather of one word per GPU and the totals' copy\n"
          " to the host, host-timed; bound = exchange + the longer of (reduce + scan of shard 0) and (scan of the\n"
          " last shard, which is not reduced), one GPU: the scan; % of bound = bound / whole;\n"
          " GB/s counts n int32 read once and written once: the reduce's extra read is not counted;\n"
          " --profile measures no parts)\n";
    for (const CountRow& c : plan.counts) {
      const Parts& pt = c.parts[index_of(which)];
      if (pt.timeline.empty()) continue;
      os << "\ntimeline of one run on " << c.gpus << " GPUs, n = " << tut::format_size(c.n)
         << " (us from each GPU's start: reduce done | totals on the host | scan launched | scan done)\n";
      for (std::size_t p = 0; p < pt.timeline.size(); ++p) {
        os << "  GPU " << p << ":";
        for (double t : pt.timeline[p]) os << " " << std::setw(9) << us(t);
        os << (p + 1 == pt.timeline.size() ? "   (the last GPU does not reduce)" : "") << "\n";
      }
    }
  }
}

}  // namespace multi_gpu_program

#include "rank_form.cuh"

namespace multi_gpu_program {

// The chapter: its variants are the GPU counts of this run (resolve), its summary the scaling report. The plan
// is shared by resolve, the workload and the summary of one run.
tut::ChapterSpec chapter_spec() {
  auto plan = std::make_shared<Plan>();
  tut::ChapterSpec spec;
  spec.id = kChapter;
  spec.title = kTitle;
  spec.default_size = "2^28";
  spec.variants = {{kStage,
                    "the scan on --gpus GPUs, with a row per GPU count 1, 2, 4, ... before it (scan-multi-gpu-<k>gpu; "
                    "the 1-GPU row is chapter 17's scan alone)",
                    false, ""},
                   {kCopyBoundStage,
                    "the same with chapter 18's int32-sum stage per shard (its carry-in), a row per GPU count "
                    "(scan-multi-gpu-copy-bound-<k>gpu; --variant all)",
                    false, "", /*on_demand=*/true}};
  spec.extra_options = extra_options();
  spec.resolve = [plan](tut::ChapterSpec& s, const tut::Options& opt) {
    *plan = make_plan(opt);
    s.variants.clear();
    for (mg::ShardScan which : kShardScans)
      for (const CountRow& c : plan->counts)
        if (c.fits)
          s.variants.push_back({row_name(c.gpus, plan->max_gpus, which),
                                "the scan on " + std::to_string(c.gpus) + " GPU" + (c.gpus > 1 ? "s" : "") +
                                    (which == mg::ShardScan::kCopyBound ? ", chapter 18's stage per shard" : ""),
                                false, "", /*on_demand=*/which == mg::ShardScan::kCopyBound});
    s.ratio_to = plan->counts.front().fits ? row_name(1, plan->max_gpus) : "";  // "speed vs" the one-GPU row
  };
  spec.make_workload = [plan] { return std::make_unique<MultiGpuWorkload>(plan); };
  spec.one_variant_at_a_time = true;  // finish() frees a GPU count's buffers and communicators for the next
  spec.summary = [plan](std::ostream& os, const tut::DeviceInfo&, const tut::Options&,
                        const std::vector<tut::Result>& rows) { print_summary(os, *plan, rows); };
  return spec;
}

// The one-process form (the runner), or one rank of the rank form (a launcher's variables are set), or the
// launcher of the rank form (--ranks N: N copies of this program, one per GPU, with those variables).
int run(int argc, char** argv) {
  const tut::ChapterSpec spec = chapter_spec();
  const std::string program = argc > 0 ? argv[0] : kChapter;
  try {
    if (const auto me = scan_multi_gpu::ranks::rank_from_environment(scan_multi_gpu::ranks::process_environment()))
      return rank_form::run_rank(argc, argv, *me, spec.default_size, spec.extra_options);
    const tut::Options opt = tut::parse_options(argc, argv, spec.default_size, spec.extra_options);
    const int ranks = static_cast<int>(opt.extra.at("ranks"));
    if (ranks > 0 && !opt.help && !opt.list) {
      if (opt.extra.at("gpus") != 0)
        throw tut::UsageError("--ranks and --gpus: the rank form uses one GPU per rank (leave --gpus out)");
      std::vector<std::string> args(argv, argv + argc);  // each rank sees --ranks but is a rank already
      return scan_multi_gpu::ranks::launch_ranks("/proc/self/exe", args, ranks);
    }
  } catch (const tut::UsageError& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 2;
  } catch (const scan_multi_gpu::ranks::RankUsageError& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 1;
  }
  return tut::run_chapter(argc, argv, spec);
}

}  // namespace multi_gpu_program

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return multi_gpu_program::run(argc, argv); }
#endif
