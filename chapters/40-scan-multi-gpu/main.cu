// Chapter 40: the inclusive int32 scan over several GPUs of one host, one process, NCCL for the exchange.
// For each GPU count (1, 2, 4, ... up to --gpus, and --gpus itself) the program measures, in one run:
//   the whole scan (events on GPU 0's stream, which waits for every other GPU at the end),
//   and each part alone: the reduce and the scan of one shard on GPU 0, and the exchange (the all-gather and
//   the totals' trip to the host, timed on the host);
// the bound of that GPU count from those parts (reduce + exchange + scan of one shard), each measured time
// as a share of its bound, GB/s per GPU and in total, and the timeline of one run on every GPU.
// Input is made and checked on the GPUs (any size the GPUs hold together), and checked against the CPU
// reference too where the host can hold it.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "cuda_check.cuh"
#include "device.cuh"
#include "report.hpp"
#include "scan_multi_gpu.cuh"
#include "scan_reference.cuh"
#include "shard_set.cuh"
#include "timing.cuh"

namespace multi_gpu_program {

namespace mg = scan_multi_gpu;

const char* const kChapter = "40-scan-multi-gpu";
const char* const kTitle = "inclusive int32 scan over the GPUs of one host: reduce, NCCL all-gather, scan with carry";
const char* const kStage = "scan-multi-gpu";

// Host memory below which the program also checks against the CPU reference (input, reference and one
// shard's output on the host: about 12 bytes per element), as a share of the machine's physical memory.
constexpr double kCpuCheckHostShare = 0.5;

std::vector<tut::ExtraOption> extra_options() {
  return {{"gpus", "GPUs to use, 1 .. the visible count (0: all visible)", 0, 0, 1024},
          {"weak", "1: --size is per GPU (weak scaling: n = size x GPUs); 0: the same n on every GPU count", 0, 0, 1},
          {"last-weight",
           "the last GPU's shard in percent of each other GPU's (100: even split; it does not reduce, so about "
           "(1 + reduce/scan time) x 100 balances)",
           100, 1, 1000}};
}

// One GPU count's measurements.
struct Row {
  int gpus = 0;
  std::size_t n = 0;
  int last_weight = 100;
  std::size_t shard = 0;       // elements of shard 0 (the largest of an even split)
  std::size_t last_shard = 0;  // elements of the last shard
  bool fits = true;
  tut::TimingStats whole, reduce, exchange, scan;  // reduce/exchange: only for gpus > 1
  tut::TimingStats scan_last;                      // the last shard's scan, on the last GPU alone (uneven split)
  double bound_ms = 0.0;
  std::string check = "skipped";
  bool failed = false;
  // One run's timeline, per GPU, in ms from that GPU's start: reduce done, totals on the host, scan launched,
  // scan done.
  std::vector<std::vector<double>> timeline;
};

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
  TUT_CUDA_CHECK(cudaSetDevice(device));
  std::size_t free_b = 0, total_b = 0;
  TUT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  return free_b;
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

tut::TimingPlan plan_from(const tut::Options& opt) {
  tut::TimingPlan p;
  p.warmup = opt.warmup;
  p.reps = opt.reps;
  p.budget_ms = opt.budget_ms;
  p.flush_l2 = opt.flush_l2;
  if (opt.profile) p.min_reps = p.max_reps = 1;
  return p;
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

// Events: begin on GPU 0's stream, every other shard's stream waits for it; at the end GPU 0's stream waits for
// every other shard's. So the events of time_gpu on GPU 0's stream time the whole scan on every GPU.
class FanOutIn {
 public:
  explicit FanOutIn(const std::vector<mg::Shard>& shards) : shards_(shards), events_(shards.size()) {
    for (std::size_t p = 0; p < shards.size(); ++p) {
      TUT_CUDA_CHECK(cudaSetDevice(shards[p].device));
      TUT_CUDA_CHECK(cudaEventCreateWithFlags(&events_[p], cudaEventDisableTiming));
    }
    TUT_CUDA_CHECK(cudaSetDevice(shards[0].device));
  }
  ~FanOutIn() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  FanOutIn(const FanOutIn&) = delete;
  FanOutIn& operator=(const FanOutIn&) = delete;
  void fan_out() {
    TUT_CUDA_CHECK(cudaSetDevice(shards_[0].device));
    TUT_CUDA_CHECK(cudaEventRecord(events_[0], shards_[0].stream));
    for (std::size_t p = 1; p < shards_.size(); ++p) {
      TUT_CUDA_CHECK(cudaSetDevice(shards_[p].device));
      TUT_CUDA_CHECK(cudaStreamWaitEvent(shards_[p].stream, events_[0], 0));
    }
  }
  void fan_in() {
    for (std::size_t p = 1; p < shards_.size(); ++p) {
      TUT_CUDA_CHECK(cudaSetDevice(shards_[p].device));
      TUT_CUDA_CHECK(cudaEventRecord(events_[p], shards_[p].stream));
    }
    TUT_CUDA_CHECK(cudaSetDevice(shards_[0].device));
    for (std::size_t p = 1; p < shards_.size(); ++p)
      TUT_CUDA_CHECK(cudaStreamWaitEvent(shards_[0].stream, events_[p], 0));
  }

 private:
  const std::vector<mg::Shard>& shards_;
  std::vector<cudaEvent_t> events_;
};

// One instrumented run: events at each step's end on every GPU, times relative to that GPU's start.
std::vector<std::vector<double>> timeline_of_one_run(const std::vector<mg::Shard>& shards, mg::TotalsExchange& exchange) {
  constexpr int kMarks = 5;  // start, reduce done, totals on the host, scan launched, scan done
  const std::size_t P = shards.size();
  std::vector<std::vector<cudaEvent_t>> ev(P, std::vector<cudaEvent_t>(kMarks));
  for (std::size_t p = 0; p < P; ++p) {
    TUT_CUDA_CHECK(cudaSetDevice(shards[p].device));
    for (auto& e : ev[p]) TUT_CUDA_CHECK(cudaEventCreate(&e));
  }
  const auto mark = [&](std::size_t p, int k) {
    TUT_CUDA_CHECK(cudaSetDevice(shards[p].device));
    TUT_CUDA_CHECK(cudaEventRecord(ev[p][k], shards[p].stream));
  };
  FanOutIn fan(shards);
  fan.fan_out();
  for (std::size_t p = 0; p < P; ++p) mark(p, 0);
  mg::enqueue_shard_totals(shards);
  for (std::size_t p = 0; p < P; ++p) mark(p, 1);
  exchange.enqueue(shards);
  mg::enqueue_totals_download(shards);
  for (std::size_t p = 0; p < P; ++p) mark(p, 2);
  mg::scan_shards_with_carries(shards, [&](std::size_t p) { mark(p, 3); });
  for (std::size_t p = 0; p < P; ++p) mark(p, 4);
  std::vector<std::vector<double>> t(P, std::vector<double>(kMarks - 1));
  for (std::size_t p = 0; p < P; ++p) {
    TUT_CUDA_CHECK(cudaSetDevice(shards[p].device));
    TUT_CUDA_CHECK(cudaEventSynchronize(ev[p][kMarks - 1]));
    for (int k = 1; k < kMarks; ++k) {
      float ms = 0.f;
      TUT_CUDA_CHECK(cudaEventElapsedTime(&ms, ev[p][0], ev[p][k]));
      t[p][k - 1] = ms;
    }
    for (auto& e : ev[p]) cudaEventDestroy(e);
  }
  TUT_CUDA_CHECK(cudaSetDevice(shards[0].device));
  return t;
}

// Check of one run: on the GPUs always, against the CPU reference where the host holds it.
void check_row(mg::ShardSet& set, mg::TotalsExchange& exchange, const tut::Options& opt, Row& row) {
  set.poison();
  mg::inclusive_scan(set.shards(), exchange);
  set.synchronize();
  tut::CheckResult on_gpus = set.check_on_devices();
  if (!on_gpus.ok) {
    row.check = on_gpus.message();
    row.failed = true;
    return;
  }
  row.check = "ok";
  if (12.0 * static_cast<double>(row.n) > kCpuCheckHostShare * host_physical_bytes()) return;  // the GPUs' check
  std::vector<std::int32_t> expected;
  {
    const std::vector<std::int32_t> host = tut::random_integers<std::int32_t>(row.n, opt.seed);
    expected.resize(row.n);
    tut::scan::cpu_inclusive_scan(host.data(), expected.data(), row.n);
  }
  const tut::CheckResult on_cpu = set.check_against(expected);
  if (!on_cpu.ok) {
    row.check = on_cpu.message() + " (CPU reference; the GPUs' check passed)";
    row.failed = true;
  }
}

Row measure_row(int gpus, std::size_t n, int last_weight, const tut::Options& opt) {
  Row row;
  row.gpus = gpus;
  row.n = n;
  row.last_weight = last_weight;
  const mg::Split split{n, gpus, last_weight};
  row.shard = split.count(0);
  row.last_shard = split.count(gpus - 1);
  if (!why_not_fit(n, gpus, last_weight).empty()) {
    row.fits = false;
    row.check = "does not fit";
    return row;
  }
  const tut::TimingPlan plan = plan_from(opt);
  mg::ShardSet set(n, first_devices(gpus), last_weight);
  set.fill_random(opt.seed);
  std::unique_ptr<mg::NcclCommunicators> comms;
  std::unique_ptr<mg::TotalsExchange> exchange;
  if (gpus > 1) {
    comms = std::make_unique<mg::NcclCommunicators>(first_devices(gpus));
    exchange = std::make_unique<mg::NcclAllGather>(*comms);
  } else {
    exchange = std::make_unique<mg::DeviceGather>();  // never called with one shard
  }
  const std::vector<mg::Shard>& shards = set.shards();
  const mg::Shard& s0 = shards[0];
  const std::string range = std::string(kStage) + "/" + std::to_string(gpus) + "gpu";
  tut::NvtxRange nvtx(range);

  if (opt.check) check_row(set, *exchange, opt, row);

  // The whole scan, on GPU 0's clock.
  TUT_CUDA_CHECK(cudaSetDevice(s0.device));
  {
    FanOutIn fan(shards);
    row.whole = tut::time_gpu(
        [&](cudaStream_t) {
          fan.fan_out();
          mg::inclusive_scan(shards, *exchange);
          fan.fan_in();
        },
        plan, s0.stream);
  }
  if (gpus == 1 || opt.profile) {
    row.scan = row.whole;
    row.bound_ms = row.whole.median_ms;  // one GPU: the bound is the scan itself
    return row;
  }
  // Each part alone on GPU 0 (the others idle), and the exchange alone on all GPUs.
  TUT_CUDA_CHECK(cudaSetDevice(s0.device));
  row.reduce = tut::time_gpu(
      [&](cudaStream_t s) { mg::reduce_shard(s0.in, s0.count, s0.total, s0.workspace, s0.workspace_bytes, s); }, plan,
      s0.stream);
  row.scan = tut::time_gpu(
      [&](cudaStream_t s) { mg::single_pass::inclusive_scan(s0.in, s0.out, s0.count, s0.workspace, s, 0); }, plan,
      s0.stream);
  row.exchange = time_on_host(
      [&] {
        exchange->enqueue(shards);
        mg::enqueue_totals_download(shards);
        set.synchronize();
      },
      plan);
  // An uneven split: the last shard's scan, on the last GPU alone (with an even split it is never the longer).
  const mg::Shard& last = shards.back();
  double last_ms = 0.0;
  if (last_weight != 100) {
    TUT_CUDA_CHECK(cudaSetDevice(last.device));
    row.scan_last = tut::time_gpu(
        [&](cudaStream_t s) { mg::single_pass::inclusive_scan(last.in, last.out, last.count, last.workspace, s, 0); },
        plan, last.stream);
    last_ms = row.scan_last.median_ms;
  }
  TUT_CUDA_CHECK(cudaSetDevice(s0.device));
  // The last GPU scans only; the others reduce, then scan; all wait for the exchange in between.
  row.bound_ms = row.exchange.median_ms + std::max(row.reduce.median_ms + row.scan.median_ms, last_ms);
  row.timeline = timeline_of_one_run(shards, *exchange);
  return row;
}

// cudaMemcpy of n int32 on GPU 0, where it fits (the one-GPU ceiling of a single pass); 0 otherwise.
tut::Result memcpy_row(std::size_t n, const tut::Options& opt, double peak_gbps) {
  tut::Result r;
  r.chapter = kChapter;
  r.variant = "cudaMemcpy";
  r.reference = true;
  r.n = n;
  r.bytes = 2.0 * static_cast<double>(n) * sizeof(std::int32_t);
  const std::size_t bytes = n * sizeof(std::int32_t);
  TUT_CUDA_CHECK(cudaSetDevice(0));
  if (n == 0 || opt.profile || !mg::fits_in(2 * bytes, free_bytes_on(0))) return r;
  unsigned char *src = nullptr, *dst = nullptr;
  TUT_CUDA_CHECK(cudaMalloc(&src, bytes));
  TUT_CUDA_CHECK(cudaMalloc(&dst, bytes));
  TUT_CUDA_CHECK(cudaMemset(src, 0, bytes));
  r.time = tut::time_gpu(
      [&](cudaStream_t s) { TUT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s)); },
      plan_from(opt));
  cudaFree(src);
  cudaFree(dst);
  tut::derive_rates(r, peak_gbps, 0.0);
  r.pct_memcpy = 100.0;
  r.check = "-";
  return r;
}

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

std::string row_name(int gpus, int max_gpus) {
  return gpus == max_gpus ? std::string(kStage) : std::string(kStage) + "-" + std::to_string(gpus) + "gpu";
}

void print_parts_table(std::ostream& os, const std::vector<Row>& rows, bool weak) {
  const Row* one = nullptr;
  for (const Row& r : rows)
    if (r.gpus == 1 && r.fits) one = &r;
  std::vector<std::vector<std::string>> cells;
  for (const Row& r : rows) {
    if (!r.fits) {
      cells.push_back({std::to_string(r.gpus), tut::format_size(r.n), tut::format_size(r.shard), "-", "-", "-", "-",
                       "-", "-", "-", "-", "-", "-", "does not fit"});
      continue;
    }
    const double w = r.whole.median_ms;
    const double total_gbps = tut::gigabytes_per_second(2.0 * static_cast<double>(r.n) * 4.0, w);
    const bool multi = r.gpus > 1;
    std::string vs = "-", bound_vs = "-";
    if (one && w > 0) {
      // strong scaling: speedup at the same n; weak scaling: the one-GPU time over this one (1 = perfect)
      vs = fixed(one->whole.median_ms / w, 2) + "x";
      if (!weak) bound_vs = fixed(one->whole.median_ms / r.bound_ms, 2) + "x";
    }
    std::string shard = tut::format_size(r.shard);
    if (multi && r.last_weight != 100) shard += " / last " + tut::format_size(r.last_shard);
    std::string scan = us(r.scan.median_ms);
    if (multi && r.last_weight != 100) scan += " / last " + us(r.scan_last.median_ms);
    cells.push_back({std::to_string(r.gpus), tut::format_size(r.n), shard,
                     multi ? us(r.reduce.median_ms) : "-", multi ? us(r.exchange.median_ms) : "-",
                     scan, us(r.bound_ms), us(w), w > 0 ? fixed(100.0 * r.bound_ms / w, 1) : "-",
                     fixed(total_gbps / r.gpus, 1), fixed(total_gbps, 1), vs, bound_vs, r.check});
  }
  tut::write_text_table(os, {"GPUs", "n", "shard", "reduce us", "exchange us", "scan us", "bound us", "whole us",
                             "% of bound", "GB/s/GPU", "GB/s total", weak ? "T1/T" : "vs 1 GPU", "bound vs 1 GPU",
                             "check"},
                        cells);
  os << "(reduce, scan: one shard on GPU 0 alone; exchange: ncclAllGather of one word per GPU and the totals' copy\n"
        " to the host, host-timed; bound = exchange + the longer of (reduce + scan of shard 0) and (scan of the\n"
        " last shard, which is not reduced), one GPU: the scan; % of bound = bound / whole;\n"
        " GB/s counts n int32 read once and written once: the reduce's extra read is not counted)\n";
  for (const Row& r : rows) {
    if (r.timeline.empty()) continue;
    os << "\ntimeline of one run on " << r.gpus << " GPUs, n = " << tut::format_size(r.n)
       << " (us from each GPU's start: reduce done | totals on the host | scan launched | scan done)\n";
    for (std::size_t p = 0; p < r.timeline.size(); ++p) {
      os << "  GPU " << p << ":";
      for (double t : r.timeline[p]) os << " " << std::setw(9) << us(t);
      os << (p + 1 == r.timeline.size() ? "   (the last GPU does not reduce)" : "") << "\n";
    }
  }
}

int run(int argc, char** argv) {
  const std::string program = argc > 0 ? argv[0] : kChapter;
  try {
    const tut::Options opt = tut::parse_options(argc, argv, "2^28", extra_options());
    if (opt.help) {
      std::cout << tut::usage_text(program, std::string(kChapter) + ": " + kTitle, "2^28", extra_options());
      return 0;
    }
    if (opt.list) {
      std::cout << kStage << "\tthe scan on --gpus GPUs, with a row per GPU count 1, 2, 4, ... below it "
                             "(scan-multi-gpu-<k>gpu; the 1-GPU row is chapter 17's scan alone)\n";
      return 0;
    }
    for (const auto& v : opt.variants)
      if (v != kStage && v != "all") throw tut::UsageError("unknown variant '" + v + "' (known: " + kStage + ")");
    tut::require_supported_gpu(0);
    int visible = 0;
    TUT_CUDA_CHECK(cudaGetDeviceCount(&visible));
    const int requested = static_cast<int>(opt.extra.at("gpus"));
    if (requested > visible)
      throw tut::UsageError("--gpus " + std::to_string(requested) + " requested but only " + std::to_string(visible) +
                            " GPU" + (visible == 1 ? " is" : "s are") + " visible");
    const int max_gpus = requested > 0 ? requested : visible;
    for (int d = 1; d < max_gpus; ++d) tut::require_supported_gpu(d);
    const bool weak = opt.extra.at("weak") != 0;
    if (weak && opt.size > (std::size_t{1} << 50))
      throw tut::UsageError("--size " + tut::format_size(opt.size) + " per GPU does not fit in any GPU's memory");
    const auto n_for = [&](int gpus) { return weak ? opt.size * static_cast<std::size_t>(gpus) : opt.size; };
    const int last_weight = static_cast<int>(opt.extra.at("last-weight"));
    const std::string fit = why_not_fit(n_for(max_gpus), max_gpus, last_weight);
    if (!fit.empty()) throw tut::UsageError(fit);
    TUT_CUDA_CHECK(cudaSetDevice(0));
    const tut::DeviceInfo info = tut::query_device(0);
    const std::string nccl = mg::nccl_version_text();

    std::vector<int> counts;
    for (int g = 1; g < max_gpus; g *= 2) counts.push_back(g);
    counts.push_back(max_gpus);

    tut::NvtxRange chapter_range(kChapter);
    std::vector<tut::Result> results;
    const tut::Result copy = memcpy_row(n_for(1), opt, info.peak_dram_gbps);
    const double memcpy_gbps = copy.gbps;
    if (copy.time.reps > 0) results.push_back(copy);
    std::vector<Row> rows;
    for (int g : counts) rows.push_back(measure_row(g, n_for(g), last_weight, opt));
    TUT_CUDA_CHECK(cudaSetDevice(0));

    const Row* one = rows.front().gpus == 1 && rows.front().fits ? &rows.front() : nullptr;
    for (const Row& row : rows) {
      if (!row.fits) continue;
      tut::Result r;
      r.chapter = kChapter;
      r.variant = row_name(row.gpus, max_gpus);
      r.n = row.n;
      r.bytes = 2.0 * static_cast<double>(row.n) * sizeof(std::int32_t);
      r.time = row.whole;
      tut::derive_rates(r, info.peak_dram_gbps, memcpy_gbps);
      r.pct_peak_dram /= row.gpus;  // shares of all the GPUs used: their peak, their cudaMemcpy
      r.pct_memcpy /= row.gpus;
      if (one && one->whole.median_ms > 0) {
        r.speed_vs_ref = one->whole.median_ms / row.whole.median_ms;
        r.ref_name = row_name(1, max_gpus);
      }
      r.check = row.check;
      r.failed = row.failed;
      results.push_back(r);
    }
    std::map<std::string, long long> options = {{"gpus", max_gpus}, {"weak", weak ? 1 : 0}, {"last-weight", last_weight}};
    if (opt.format == tut::OutputFormat::table) {
      std::cout << kChapter << ": " << kTitle << "\n" << tut::device_banner(info) << "\n";
      std::cout << "GPUs: " << visible << " visible, " << max_gpus << " used; NCCL " << nccl
                << "; NCCL_NVLS_ENABLE=" << (std::getenv("NCCL_NVLS_ENABLE") ? std::getenv("NCCL_NVLS_ENABLE") : "unset")
                << "\n";
    } else if (opt.format == tut::OutputFormat::csv) {
      std::cerr << "# GPUs: " << visible << " visible, " << max_gpus << " used; NCCL " << nccl << "\n";
    }
    std::ostringstream command;
    for (int i = 0; i < argc; ++i) command << (i ? " " : "") << argv[i];
    tut::write_results(std::cout, opt.format, info, kChapter, command.str(), results, options);
    if (opt.format == tut::OutputFormat::table) {
      std::cout << "(% peak and % memcpy of a P-GPU row: shares of P GPUs' peak and of P times GPU 0's cudaMemcpy)\n\n";
      print_parts_table(std::cout, rows, weak);
    }
    const bool failed = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.failed; });
    if (failed) std::cerr << program << ": error: a GPU count produced wrong results (see the check column)\n";
    return failed ? 1 : 0;
  } catch (const tut::UsageError& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 2;
  } catch (const tut::DeviceOutOfMemory& e) {
    std::cerr << program << ": error: the problem does not fit in device memory (" << e.what()
              << "); choose a smaller --size or more --gpus\n";
    return 2;
  } catch (const tut::NoUsableGpu& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 1;
  } catch (const mg::NcclError& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 1;
  } catch (const tut::CudaError& e) {
    std::cerr << program << ": error: CUDA " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << program << ": error: out of host memory for this --size\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace multi_gpu_program

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return multi_gpu_program::run(argc, argv); }
#endif
