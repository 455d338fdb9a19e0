#include <algorithm>
#include <functional>
#include <iostream>
#include <sstream>

#include "cuda_check.cuh"
#include "device.cuh"
#include "device_buffer.cuh"
#include "green_context.cuh"
#include "plan_cache.hpp"
#include "runner.cuh"
#include "timing.cuh"

namespace tut {
namespace {

const VariantSpec* find_variant(const ChapterSpec& spec, const std::string& name) {
  for (const auto& v : spec.variants)
    if (v.name == name) return &v;
  return nullptr;
}

// The variants to run, in the chapter's order: the selected ones (by default every variant that is not
// on demand; "all" selects every one, "default" the ones a plain run selects, so that "default,NAME" adds one
// on-demand variant) plus the references, which every run measures so that ratios come from the same process.
// Profile mode with an explicit selection runs only what was named.
std::vector<const VariantSpec*> selected_variants(const ChapterSpec& spec, const Options& opt) {
  auto named_keyword = [&](const char* k) {
    return std::find(opt.variants.begin(), opt.variants.end(), k) != opt.variants.end();
  };
  const bool all = named_keyword("all");
  const bool defaults = opt.variants.empty() || named_keyword("default");
  for (const auto& name : opt.variants)
    if (name != "all" && name != "default" && !find_variant(spec, name)) {
      std::string known;
      for (const auto& v : spec.variants) known += (known.empty() ? "" : ", ") + v.name;
      throw UsageError("unknown variant '" + name + "' (known: " + known + ")");
    }
  std::vector<const VariantSpec*> out;
  for (const auto& v : spec.variants) {
    bool named = std::find(opt.variants.begin(), opt.variants.end(), v.name) != opt.variants.end();
    bool chosen = all || named || (defaults && !v.on_demand) || (v.reference && !opt.profile);
    if (chosen) out.push_back(&v);
  }
  return out;
}

std::string command_line(int argc, char** argv) {
  std::string c;
  for (int i = 0; i < argc; ++i) c += (i ? " " : "") + std::string(argv[i]);
  return c;
}

}  // namespace

TimingPlan timing_plan(const Options& opt) {
  TimingPlan p;
  p.warmup = opt.warmup;
  p.reps = opt.reps;
  p.budget_ms = opt.budget_ms;
  p.flush_l2 = opt.flush_l2;
  p.timed_range = "timed";
  if (opt.profile) p.min_reps = p.max_reps = 1;
  return p;
}

std::vector<Result> measure_chapter(const ChapterSpec& chapter, const Options& opt, DeviceInfo* info_out) {
  (void)selected_variants(chapter, opt);  // unknown variants: before touching the GPU
  const int rounds = opt.profile ? 1 : opt.rounds;
  if (rounds > 1 && chapter.one_variant_at_a_time)
    throw UsageError("--rounds: " + chapter.id + " sets up one variant at a time and cannot alternate them");
  require_supported_gpu();
  DeviceInfo info = query_device();
  // --sms N: everything below (set-up and plans, the references, the stage) runs on N SMs; the banner and every
  // model that counts SMs see N (the model's peaks: FP32 scales with the SMs, the DRAM peak does not).
  const ScopedGreenContext green(info.device, opt.sms);
  if (green.sm_count() > 0) {
    info.device_sm_count = info.sm_count;
    info.sm_count = green.sm_count();
    info.peak_fp32_gflops = info.peak_fp32_gflops * info.sm_count / info.device_sm_count;
  }
  plan_settings().replan = opt.replan;  // the tuned stages' setup() plans with these (docs/tuning-per-gpu.md)
  plan_lines().clear();
  if (info_out) *info_out = info;
  ChapterSpec spec = chapter;
  if (spec.resolve) spec.resolve(spec, opt);
  auto variants = selected_variants(spec, opt);

  auto workload = spec.make_workload();
  const std::string what = spec.id + " at --size " + format_size(opt.size);
  std::size_t need = workload->device_bytes(opt);
  require_device_memory(need, what);
  workload->prepare(opt, opt.check);
  const TimingPlan plan = timing_plan(opt);

  // NVTX: one range for the chapter, one nested range per variant, and inside it a range "timed" around the
  // timed repetitions only (time_gpu), so that `ncu --nvtx --nvtx-include "<chapter>/<variant>/timed/"`
  // (ncu's syntax for nested push/pop ranges) selects exactly the launches of one variant's timed run: not
  // its checked run, its warm-up or its set-up.
  NvtxRange chapter_range(spec.id);
  std::vector<Result> rows;
  // What each row times, and (--rounds) the median of each of its rounds.
  std::vector<std::function<void(cudaStream_t)>> runs;
  std::vector<std::vector<double>> round_ms;
  // The cudaMemcpy reference: the same bytes, device to device, in the same process.
  const std::size_t copy_bytes = workload->memcpy_bytes();
  DeviceBuffer<unsigned char> copy_src, copy_dst;
  if (copy_bytes > 0 && !opt.profile && static_cast<double>(2 * copy_bytes) < 0.9 * free_device_bytes()) {
    copy_src = DeviceBuffer<unsigned char>(copy_bytes);
    copy_dst = DeviceBuffer<unsigned char>(copy_bytes);
    copy_src.zero();
    Result r;
    r.chapter = spec.id;
    r.variant = "cudaMemcpy";
    r.reference = true;
    r.n = opt.size;
    r.bytes = 2.0 * static_cast<double>(copy_bytes);
    r.pct_memcpy = 100.0;
    r.check = "-";
    rows.push_back(r);
    runs.push_back([&](cudaStream_t s) {
      TUT_CUDA_CHECK(cudaMemcpyAsync(copy_dst.data(), copy_src.data(), copy_bytes, cudaMemcpyDeviceToDevice, s));
    });
  }
  std::vector<const VariantSpec*> row_variant(rows.size(), nullptr);  // nullptr: cudaMemcpy

  // Times row i: one block of repetitions (the whole plan, or one round's share of it).
  auto time_row = [&](std::size_t i, const TimingPlan& p, std::vector<double>* samples) {
    NvtxRange range(rows[i].variant);
    return time_gpu(runs[i], p, 0, samples);
  };

  // Set-up and the checked run of a variant: before any of its timed or profiled runs.
  auto set_up_and_check = [&](const VariantSpec* v, Result& r) {
    NvtxRange range(v->name);
    workload->setup(v->name);
    if (opt.check) {
      workload->poison(0);
      workload->run(v->name, 0);
      TUT_CUDA_CHECK(cudaDeviceSynchronize());
      CheckResult c = with_buffer_checks(workload->check(v->name));  // and no guard or watched input damaged
      if (c.ok) {
        r.check = "ok";
      } else if (!v->known_defect.empty()) {
        r.check = "known defect: " + v->known_defect + " (" + c.message() + ")";
      } else {
        r.check = c.message();
        r.failed = true;
      }
    } else {
      r.check = "skipped";
    }
  };

  auto new_row = [&](const VariantSpec* v) {
    Result r;
    r.chapter = spec.id;
    r.variant = v->name;
    r.reference = v->reference;
    r.n = opt.size;
    Work w = workload->work(v->name);
    if (w.n > 0) r.n = w.n;
    r.bytes = w.bytes;
    r.flops = w.flops;
    rows.push_back(r);
    row_variant.push_back(v);
    runs.push_back([&workload, v](cudaStream_t s) { workload->run(v->name, s); });
    return rows.size() - 1;
  };

  if (rounds <= 1) {
    // One block each, in the chapter's order: cudaMemcpy, then each variant from its set-up to its finish.
    if (!rows.empty()) rows[0].time = time_row(0, plan, nullptr);
    for (const VariantSpec* v : variants) {
      const std::size_t i = new_row(v);
      set_up_and_check(v, rows[i]);
      TimingPlan variant_plan = plan;
      if (opt.profile && opt.check) variant_plan.warmup = 0;  // the checked run was the one warm-up
      rows[i].time = time_row(i, variant_plan, nullptr);
      workload->finish(v->name);
    }
  } else {
    // --rounds: every variant set up and checked first; then `rounds` rounds, each timing every row once with its
    // share of the plan, starting one row later each round so that no row always follows the same one.
    for (const VariantSpec* v : variants) set_up_and_check(v, rows[new_row(v)]);
    TimingPlan round_plan = plan;
    round_plan.budget_ms = plan.budget_ms / rounds;
    round_plan.min_reps = std::max(1, (plan.min_reps + rounds - 1) / rounds);
    if (plan.reps > 0) round_plan.reps = std::max(1, (plan.reps + rounds - 1) / rounds);
    std::vector<std::vector<double>> samples(rows.size());
    round_ms.assign(rows.size(), {});
    for (int round = 0; round < rounds; ++round)
      for (std::size_t j = 0; j < rows.size(); ++j) {
        const std::size_t i = (j + static_cast<std::size_t>(round)) % rows.size();
        round_ms[i].push_back(time_row(i, round_plan, &samples[i]).median_ms);
      }
    for (std::size_t i = 0; i < rows.size(); ++i) {
      rows[i].time = summarize(samples[i]);
      if (row_variant[i]) workload->finish(row_variant[i]->name);
    }
  }

  double memcpy_gbps = 0.0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Result& r = rows[i];
    if (!row_variant[i]) {
      derive_rates(r, info.peak_dram_gbps, 0.0);
      memcpy_gbps = r.gbps;
      r.pct_memcpy = 100.0;
      continue;
    }
    const Work w = workload->work(r.variant);
    derive_rates(r, info.peak_dram_gbps, memcpy_gbps, info.peak_fp32_gflops);
    if (!round_ms.empty() && !row_variant[0] && r.bytes > 0) {  // --rounds: the share of the copy paired too
      const RatioStats copy_over_this = paired_ratios(round_ms[i], round_ms[0]);  // this row's time / the copy's
      if (copy_over_this.rounds > 0) r.pct_memcpy = 100.0 * (r.bytes / rows[0].bytes) / copy_over_this.median;
    }
    if (w.devices > 1) {  // shares of all the GPUs used: their peak, their cudaMemcpy
      r.pct_peak_dram /= w.devices;
      r.pct_peak_fp32 /= w.devices;
      r.pct_memcpy /= w.devices;
    }
  }

  // Ratios against the chosen reference, measured above in the same process.
  const Result* ref = nullptr;
  for (const auto& r : rows)
    if (r.variant == spec.ratio_to) ref = &r;
  if (ref && ref->time.median_ms > 0) {
    const double ref_ms = ref->time.median_ms;
    const std::string ref_name = ref->variant;
    const std::size_t ref_index = static_cast<std::size_t>(ref - rows.data());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      Result& r = rows[i];
      if (r.variant == "cudaMemcpy") continue;
      r.speed_vs_ref = r.time.median_ms > 0 ? ref_ms / r.time.median_ms : 0.0;
      r.ref_name = ref_name;
      if (!round_ms.empty()) {  // paired within each round: both sides at the same clocks
        const RatioStats paired = paired_ratios(round_ms[ref_index], round_ms[i]);
        if (paired.rounds > 0) {
          r.speed_vs_ref = paired.median;
          r.speed_min = paired.min;
          r.speed_max = paired.max;
          r.rounds = paired.rounds;
        }
      }
    }
  }
  return rows;
}

int run_chapter(int argc, char** argv, const ChapterSpec& spec) {
  const std::string program = argc > 0 ? argv[0] : spec.id;
  try {
    Options opt = parse_options(argc, argv, spec.default_size, spec.extra_options);
    if (opt.help) {
      std::cout << usage_text(program, spec.id + ": " + spec.title, spec.default_size, spec.extra_options);
      return 0;
    }
    if (opt.list) {
      write_variant_list(std::cout, opt.format, spec.variants);
      return 0;
    }
    (void)selected_variants(spec, opt);  // reject unknown variants before touching the GPU
    DeviceInfo info;
    std::vector<Result> rows = measure_chapter(spec, opt, &info);
    // Which plan each tuned stage ran and why, one line each (docs/tuning-per-gpu.md).
    std::string plans;
    for (const auto& line : plan_lines()) plans += line + "\n";
    if (opt.format == OutputFormat::table) {
      std::cout << spec.id << ": " << spec.title << "\n" << device_banner(info) << plans << "\n";
    } else {
      std::istringstream banner(opt.format == OutputFormat::csv ? device_banner(info) + plans : plans);
      for (std::string line; std::getline(banner, line);) std::cerr << "# " << line << "\n";
    }
    write_results(std::cout, opt.format, info, spec.id, command_line(argc, argv), rows, opt.extra);
    if (opt.format == OutputFormat::table && spec.summary) spec.summary(std::cout, info, opt, rows);
    bool failed = std::any_of(rows.begin(), rows.end(), [](const Result& r) { return r.failed; });
    if (failed) std::cerr << program << ": error: a variant produced wrong results (see the check column)\n";
    return failed ? 1 : 0;
  } catch (const UsageError& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 2;
  } catch (const DeviceOutOfMemory& e) {
    std::cerr << program << ": error: the problem does not fit in device memory (" << e.what()
              << "); choose a smaller --size\n";
    return 2;
  } catch (const NoUsableGpu& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 1;
  } catch (const CudaError& e) {
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

}  // namespace tut
