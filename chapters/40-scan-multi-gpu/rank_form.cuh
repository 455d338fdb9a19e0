// Chapter 40's rank form: one process per GPU, the way NCCL programs span hosts. Included by main.cu after
// its helpers (the options, the stage names, time_on_host, the text helpers).
//
// Each process is one rank: it finds its place (rank_bootstrap.hpp: TUT_RANK, mpirun's, srun's or torchrun's
// variables), checks its own GPU, meets the other ranks (rank 0's ncclUniqueId through a file or TCP, with a
// deadline), makes its communicator with ncclCommInitRank, and runs the same three steps as the one-process
// form on its one shard: ShardSet with one shard of P (Split, the same plan), reduce_shard unless it is the
// last rank, the all-gather (NcclRankAllGather: each rank enqueues its own call, no group), the carry from the
// same totals (carry_of), the scan. Rank 0 prints. A watchdog ends a rank with one line if any step (the
// rendezvous, NCCL's set-up, a collective) makes no progress within --rank-timeout seconds.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "rank_bootstrap.hpp"

namespace multi_gpu_program::rank_form {

namespace mg = scan_multi_gpu;
namespace rk = scan_multi_gpu::ranks;

// The rank form's rows: the stage's and chapter 18's per-shard scan, each on one GPU per process.
const char* const kRankStage = "scan-multi-gpu-ranks";
const char* const kRankCopyBoundStage = "scan-multi-gpu-copy-bound-ranks";
const char* rank_row_of(mg::ShardScan which) {
  return which == mg::ShardScan::kLandingZone ? kRankStage : kRankCopyBoundStage;
}

// One rank's communicator (NCCL's thin part): ncclCommInitRank with the id every rank received.
class RankCommunicator {
 public:
  RankCommunicator(const rk::UniqueId& id, int world, int rank) {
    static_assert(sizeof(ncclUniqueId) == std::tuple_size<rk::UniqueId>::value, "the id is 128 bytes");
    setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);  // as the one-process form
    ncclUniqueId nccl_id;
    std::memcpy(&nccl_id, id.data(), sizeof nccl_id);
    TUT_NCCL_CHECK(ncclCommInitRank(&comm_, world, nccl_id, rank));
  }
  ~RankCommunicator() {
    if (comm_) ncclCommDestroy(comm_);  // no check: a destructor must not throw
  }
  // After a failure on this rank: NCCL's resources go without waiting for the other ranks.
  void abort() noexcept {
    if (comm_) ncclCommAbort(comm_);
    comm_ = nullptr;
  }
  RankCommunicator(const RankCommunicator&) = delete;
  RankCommunicator& operator=(const RankCommunicator&) = delete;
  ncclComm_t get() const { return comm_; }

 private:
  ncclComm_t comm_ = nullptr;
};

inline rk::UniqueId make_nccl_id() {
  ncclUniqueId id;
  TUT_NCCL_CHECK(ncclGetUniqueId(&id));
  rk::UniqueId out;
  std::memcpy(out.data(), &id, sizeof id);
  return out;
}

// Every rank's `count` values of type T, rank by rank (ncclAllGather on `stream`, then on the host).
template <class T>
std::vector<T> all_gather(ncclComm_t comm, cudaStream_t stream, int world, const std::vector<T>& mine) {
  static_assert(sizeof(T) == 8, "gathered as 64-bit words");
  tut::DeviceBuffer<T> send(mine), receive(mine.size() * world);
  TUT_NCCL_CHECK(ncclAllGather(send.data(), receive.data(), mine.size(), ncclUint64, comm, stream));
  TUT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return receive.download();
}

// Every rank reaches this point before any goes on (on the GPU: an all-reduce of one word on `stream`).
class Barrier {
 public:
  void enqueue(ncclComm_t comm, cudaStream_t stream) {
    TUT_NCCL_CHECK(ncclAllReduce(word_.data(), word_.data(), 1, ncclUint32, ncclSum, comm, stream));
  }

 private:
  tut::DeviceBuffer<std::uint32_t> word_{std::vector<std::uint32_t>{0}};
};

std::int64_t value_of(const std::string& text) {
  try {
    return std::stoll(text);
  } catch (...) {
    return 0;
  }
}

// What one rank is and holds.
struct RankState {
  rk::RankEnv me;
  tut::Options opt;
  mg::Split split;
  std::unique_ptr<rk::Watchdog> dog;
  std::unique_ptr<RankCommunicator> comm;
  std::unique_ptr<mg::ShardSet> set;
  std::unique_ptr<mg::NcclRankAllGather> exchange;
  Barrier* barrier = nullptr;
  const mg::Shard& shard() const { return set->shards()[0]; }
  ncclComm_t c() const { return comm->get(); }
  void step(const std::string& what) { dog->progress(what); }
};

// The exact check, across ranks: each rank checks the steps inside its shard and the one from the previous
// rank's last output (gathered) to its first; rank 0 learns every rank's result (gathered) and reports the
// first failing rank's first bad element. Where the host holds the whole array (small n), each rank also
// compares its shard with the CPU reference.
tut::CheckResult check_across_ranks(RankState& st) {
  st.step("the check");
  const mg::Shard& s = st.shard();
  std::uint32_t last = 0;
  const bool has = st.set->last_output(last);
  const auto lasts = all_gather<std::uint64_t>(st.c(), s.stream, st.me.world_size, {has ? 1u : 0u, last});
  std::uint32_t previous_last = 0;
  for (int r = st.me.rank - 1; r >= 0; --r)
    if (lasts[2 * r]) {
      previous_last = static_cast<std::uint32_t>(lasts[2 * r + 1]);
      break;
    }
  tut::CheckResult mine = st.set->check_on_devices(previous_last);
  constexpr std::size_t kCpuCheckLimit = std::size_t{1} << 26;  // beyond, the check on the GPUs alone (exact)
  if (mine.ok && st.split.n <= kCpuCheckLimit) {
    std::vector<std::int32_t> expected(st.split.n);
    const std::vector<std::int32_t> host = tut::random_integers<std::int32_t>(st.split.n, st.opt.seed);
    tut::scan::cpu_inclusive_scan(host.data(), expected.data(), st.split.n);
    mine = st.set->check_against(expected);
    if (!mine.ok) mine.detail += " (CPU reference; the GPUs' check passed)";
  }
  st.step("the check's gather");
  const auto all = all_gather<std::uint64_t>(
      st.c(), s.stream, st.me.world_size,
      {mine.ok ? 1u : 0u, mine.bad_count, mine.first_bad, static_cast<std::uint64_t>(value_of(mine.expected)),
       static_cast<std::uint64_t>(value_of(mine.actual))});
  tut::CheckResult r;
  for (int q = 0; q < st.me.world_size; ++q) {
    const std::uint64_t* w = &all[5 * q];
    if (w[0]) continue;
    if (r.ok) {
      r.ok = false;
      r.first_bad = w[2];
      r.expected = std::to_string(static_cast<std::int64_t>(w[3]));
      r.actual = std::to_string(static_cast<std::int64_t>(w[4]));
      r.detail = "first on rank " + std::to_string(q);
    }
    r.bad_count += w[1];
  }
  return r;
}

// One timed repetition on this rank: barrier, then the three steps; ms from the barrier to this rank's last
// kernel. The whole run's time is the slowest rank's (every rank learns it).
struct RepTimer {
  mg::OwnedEvent start = mg::OwnedEvent::create(cudaEventDefault);
  mg::OwnedEvent stop = mg::OwnedEvent::create(cudaEventDefault);
};

double one_rep(RankState& st, mg::ShardScan which, RepTimer& t) {
  const mg::Shard& s = st.shard();
  st.barrier->enqueue(st.c(), s.stream);
  TUT_CUDA_CHECK(cudaEventRecord(t.start.get(), s.stream));
  mg::inclusive_scan(st.set->shards(), *st.exchange, which);
  TUT_CUDA_CHECK(cudaEventRecord(t.stop.get(), s.stream));
  TUT_CUDA_CHECK(cudaEventSynchronize(t.stop.get()));
  float ms = 0.f;
  TUT_CUDA_CHECK(cudaEventElapsedTime(&ms, t.start.get(), t.stop.get()));
  return ms;
}

// The slowest rank's time of each repetition.
std::vector<double> slowest(RankState& st, const std::vector<double>& mine) {
  const auto all = all_gather<double>(st.c(), st.shard().stream, st.me.world_size, mine);
  std::vector<double> worst(mine.size(), 0.0);
  for (int q = 0; q < st.me.world_size; ++q)
    for (std::size_t i = 0; i < mine.size(); ++i) worst[i] = std::max(worst[i], all[q * mine.size() + i]);
  return worst;
}

// The whole scan timed like the runner times a variant (warm-up, then repetitions to the budget), with the
// repetition count decided from the slowest rank's first time, so every rank runs the same number.
tut::TimingStats time_whole(RankState& st, mg::ShardScan which) {
  const tut::TimingPlan plan = tut::timing_plan(st.opt);
  RepTimer t;
  st.step("the warm-up runs");
  for (int i = 0; i < plan.warmup; ++i) (void)one_rep(st, which, t);
  st.step("the timed runs");
  const double first = slowest(st, {one_rep(st, which, t)})[0];
  const int reps = plan.reps > 0 ? plan.reps : tut::adaptive_reps(first, plan.budget_ms, plan.min_reps, plan.max_reps);
  std::vector<double> mine;
  for (int i = 1; i < reps; ++i) {
    mine.push_back(one_rep(st, which, t));
    st.step("the timed runs");
  }
  std::vector<double> samples = {first};
  if (!mine.empty()) {
    const std::vector<double> rest = slowest(st, mine);
    samples.insert(samples.end(), rest.begin(), rest.end());
  }
  return tut::summarize(samples);
}

// The parts, as the one-process form measures them: the reduce and the scan of rank 0's shard on its GPU
// alone, the exchange (the all-gather and the totals' copy to the host, host-timed on rank 0, every rank
// taking part); the bound from them.
struct RankParts {
  tut::TimingStats reduce, exchange, scan;
  double bound_ms = 0.0;
};

RankParts measure_parts(RankState& st, mg::ShardScan which) {
  RankParts parts;
  tut::TimingPlan plan = tut::timing_plan(st.opt);
  plan.timed_range.clear();
  const mg::Shard& s = st.shard();
  st.step("the parts");
  if (st.me.rank == 0) {  // the others wait at the exchange below (inside --rank-timeout)
    parts.reduce = tut::time_gpu(
        [&](cudaStream_t q) { mg::reduce_shard(s.in, s.count, s.total, s.workspace, s.workspace_bytes, q); }, plan,
        s.stream);
    parts.scan = tut::time_gpu(
        [&](cudaStream_t q) { mg::scan_with_carry(which, s.in, s.out, s.count, s.workspace, q, 0); }, plan, s.stream);
  }
  st.step("the exchange's timing");
  tut::TimingPlan fixed = plan;  // the same count on every rank: each repetition is a collective
  fixed.reps = plan.reps > 0 ? plan.reps : 50;
  fixed.min_reps = fixed.max_reps = fixed.reps;
  parts.exchange = time_on_host(
      [&] {
        st.exchange->enqueue(st.set->shards());
        mg::enqueue_totals_download(st.set->shards());
        st.set->synchronize();
      },
      fixed);
  parts.bound_ms = parts.exchange.median_ms + parts.reduce.median_ms + parts.scan.median_ms;
  return parts;
}

std::string agreement_of(const tut::Options& o, const mg::Split& split) {
  std::ostringstream a;
  a << "n=" << split.n << ",weight=" << split.last_weight << ",seed=" << o.seed << ",reps=" << o.reps
    << ",warmup=" << o.warmup << ",budget=" << o.budget_ms << ",check=" << o.check << ",profile=" << o.profile
    << ",variants=";
  for (const std::string& v : o.variants) a << v << ";";
  return a.str();
}

// Why this rank cannot run ("" when it can): its GPU, and its shard's room on it.
std::string local_problem(const rk::RankEnv& me, const mg::Split& split) {
  const std::string who;  // the rendezvous names the rank
  int visible = 0;
  const cudaError_t e = cudaGetDeviceCount(&visible);
  if (e != cudaSuccess) return who + "no usable GPU (" + cudaGetErrorString(e) + ")";
  if (me.local_rank >= visible)
    return who + "GPU " + std::to_string(me.local_rank) + " missing (" + std::to_string(visible) + " visible" +
           (std::getenv("CUDA_VISIBLE_DEVICES") ? std::string(", CUDA_VISIBLE_DEVICES=") +
                                                      std::getenv("CUDA_VISIBLE_DEVICES")
                                                : std::string()) +
           ")";
  try {
    tut::require_supported_gpu(me.local_rank);
    const std::size_t need = mg::shard_device_bytes(split.count(me.rank), split.shards);
    const std::size_t free_b = free_bytes_on(me.local_rank);
    if (!mg::fits_in(need, free_b))
      return who + "its shard of " + tut::format_size(split.count(me.rank)) + " elements does not fit in GPU " +
             std::to_string(me.local_rank) + " (" + std::to_string(need >> 20) + " MiB + 1 GiB kept free, " +
             std::to_string(free_b >> 20) + " MiB free)";
  } catch (const std::exception& x) {
    return who + x.what();
  }
  return "";
}

// The rows this run measures: the stage, and chapter 18's per-shard scan when named (or --variant all).
std::vector<mg::ShardScan> selected_scans(const tut::Options& opt) {
  std::vector<mg::ShardScan> scans;
  const auto named = [&](const std::string& v) {
    return std::find(opt.variants.begin(), opt.variants.end(), v) != opt.variants.end();
  };
  const bool all = named("all");
  for (const std::string& v : opt.variants)
    if (v != "all" && v != kStage && v != kCopyBoundStage && v != kRankStage && v != kRankCopyBoundStage)
      throw tut::UsageError("--variant " + v + ": the rank form runs " + kStage + " and " + kCopyBoundStage);
  if (opt.variants.empty() || all || named(kStage) || named(kRankStage)) scans.push_back(mg::ShardScan::kLandingZone);
  if (all || named(kCopyBoundStage) || named(kRankCopyBoundStage))
    scans.push_back(mg::ShardScan::kCopyBound);
  return scans;
}

// The rank form's program: returns the exit status (0, 1 failure, 2 usage); every rank that fails prints one
// line naming itself.
inline int run_rank(int argc, char** argv, const rk::RankEnv& me, const std::string& default_size,
                    const std::vector<tut::ExtraOption>& extra) {
  const std::string program = argc > 0 ? argv[0] : kChapter;
  const std::string who = "rank " + std::to_string(me.rank) + " of " + std::to_string(me.world_size);
  RankState st;
  const auto say = [&](const std::string& what) {
    // the bootstrap's messages already name the rank
    const bool named = what.rfind("rank ", 0) == 0;
    std::cerr << program << ": error: " << (named ? "" : who + ": ") << what << "\n";
    if (st.comm) st.comm->abort();  // a failed rank does not wait for the others to tear NCCL down
  };
  st.me = me;
  try {
    st.opt = tut::parse_options(argc, argv, default_size, extra);
    if (st.opt.help || st.opt.list) {
      if (me.rank == 0)
        std::cout << "the rank form runs " << kRankStage << " (and " << kRankCopyBoundStage << " with --variant all)\n";
      return 0;
    }
    const tut::Options& opt = st.opt;
    if (opt.extra.at("gpus") != 0 && opt.extra.at("gpus") != me.world_size)
      throw tut::UsageError("--gpus " + std::to_string(opt.extra.at("gpus")) + " in the rank form: each of the " +
                            std::to_string(me.world_size) + " ranks uses one GPU (leave --gpus out)");
    const std::vector<mg::ShardScan> scans = selected_scans(opt);
    const bool weak = opt.extra.at("weak") != 0;
    if (weak && opt.size > (std::size_t{1} << 50))
      throw tut::UsageError("--size " + tut::format_size(opt.size) + " per GPU does not fit in any GPU's memory");
    const std::size_t n = weak ? opt.size * static_cast<std::size_t>(me.world_size) : opt.size;
    st.split = mg::Split{n, me.world_size, static_cast<int>(opt.extra.at("last-weight"))};
    const double timeout_s = static_cast<double>(opt.extra.at("rank-timeout"));

    // Any step that makes no progress for --rank-timeout seconds ends this rank with one line.
    // (2 s more than the rendezvous's own deadline, whose message says more.)
    st.dog = std::make_unique<rk::Watchdog>(timeout_s + 2.0, [program, who](const std::string& m) {
      std::fprintf(stderr, "%s: error: %s: %s\n", program.c_str(), who.c_str(), m.c_str());
      std::fflush(stderr);
      _exit(1);
    });
    st.step("the rendezvous");
    rk::RendezvousRequest q;
    q.me = me;
    q.agreement = agreement_of(opt, st.split);
    q.local_problem = local_problem(me, st.split);
    q.timeout_s = timeout_s;
    q.make_id = make_nccl_id;
    const rk::UniqueId id = rk::rendezvous(q);

    st.step("ncclCommInitRank");
    TUT_CUDA_CHECK(cudaSetDevice(me.local_rank));
    st.comm = std::make_unique<RankCommunicator>(id, me.world_size, me.rank);
    rk::remove_rendezvous_files(me);  // every rank is past the rendezvous: NCCL's set-up needed them all
    st.step("the set-up");
    st.set = std::make_unique<mg::ShardSet>(st.split, me.rank, std::vector<int>{me.local_rank});
    st.set->fill_random(opt.seed);
    st.exchange = std::make_unique<mg::NcclRankAllGather>(st.comm->get());
    Barrier barrier;
    st.barrier = &barrier;

    const tut::DeviceInfo info = tut::query_device(me.local_rank);
    std::vector<tut::Result> rows;
    std::vector<RankParts> parts;
    for (mg::ShardScan which : scans) {
      tut::Result r;
      r.chapter = kChapter;
      r.variant = rank_row_of(which);
      r.n = n;
      r.bytes = 2.0 * static_cast<double>(n) * sizeof(std::int32_t);
      if (opt.check) {
        st.set->poison();
        RepTimer t;
        st.step("the checked run");
        (void)one_rep(st, which, t);
        const tut::CheckResult c = check_across_ranks(st);
        r.check = c.message();
        r.failed = !c.ok;
      } else {
        r.check = "skipped";
      }
      r.time = time_whole(st, which);
      tut::derive_rates(r, info.peak_dram_gbps * me.world_size, 0.0, 0.0);
      parts.push_back(opt.profile ? RankParts{} : measure_parts(st, which));
      rows.push_back(r);
    }
    st.step("the end");
    if (me.rank == 0) {
      std::string command;
      for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
      if (opt.format == tut::OutputFormat::table)
        std::cout << kChapter << ": " << kTitle << " (rank form: " << me.world_size << " processes)\n"
                  << tut::device_banner(info) << "\n";
      tut::write_results(std::cout, opt.format, info, kChapter, command, rows, opt.extra);
      if (opt.format == tut::OutputFormat::table) {
        const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
        std::cout << "ranks: " << me.world_size << " processes, one GPU each (variables: " << me.source
                  << "; rendezvous " << me.rendezvous.text() << "); NCCL " << mg::nccl_version_text()
                  << "; NCCL_NVLS_ENABLE=" << (nvls ? nvls : "unset") << "\n";
        std::vector<std::vector<std::string>> cells;
        for (std::size_t i = 0; i < rows.size(); ++i) {
          const RankParts& p = parts[i];
          const bool measured = !opt.profile;
          cells.push_back({rows[i].variant, tut::format_size(n), tut::format_size(st.split.count(0)),
                           measured ? us(p.reduce.median_ms) : "-", measured ? us(p.exchange.median_ms) : "-",
                           measured ? us(p.scan.median_ms) : "-", measured ? us(p.bound_ms) : "-",
                           us(rows[i].time.median_ms),
                           measured ? fixed(100.0 * p.bound_ms / rows[i].time.median_ms, 1) : "-"});
        }
        tut::write_text_table(std::cout, {"row", "n", "shard", "reduce us", "exchange us", "scan us", "bound us",
                                          "whole us", "% of bound"},
                              cells);
        std::cout << "(whole: the slowest rank's time from a barrier to its scan's end, per repetition; reduce, scan:\n"
                     " rank 0's shard on its GPU alone; exchange: one ncclAllGather of one word per rank and the\n"
                     " totals' copy to the host, host-timed on rank 0; bound = reduce + exchange + scan)\n";
      }
    }
    const bool failed = std::any_of(rows.begin(), rows.end(), [](const tut::Result& r) { return r.failed; });
    if (failed && me.rank == 0) say("a row produced wrong results (see the check column)");
    return failed ? 1 : 0;
  } catch (const tut::UsageError& e) {
    say(e.what());
    return 2;
  } catch (const rk::RankUsageError& e) {
    say(e.what());
    return 2;
  } catch (const rk::BootstrapError& e) {
    say(e.what());
    return 1;
  } catch (const tut::CudaError& e) {
    say(std::string("CUDA ") + e.what());
    return 1;
  } catch (const std::exception& e) {
    say(e.what());
    return 1;
  }
}

}  // namespace multi_gpu_program::rank_form
