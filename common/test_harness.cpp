// Host tests of the harness: run everywhere, CI included, no GPU needed.
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "cli.hpp"
#include "doctest.hpp"
#include "report.hpp"
#include "stats.hpp"
#include "test_locks.hpp"
#include "verify.hpp"

using namespace tut;

namespace {
Options parse(std::vector<std::string> args, const std::vector<ExtraOption>& extra = {}) {
  args.insert(args.begin(), "prog");
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  return parse_options(static_cast<int>(argv.size()), argv.data(), "2^20", extra);
}
}  // namespace

TEST_CASE("parse_size accepts the documented forms") {
  CHECK(parse_size("1048576") == 1048576u);
  CHECK(parse_size("2^20") == 1048576u);
  CHECK(parse_size("1M") == 1048576u);
  CHECK(parse_size("1m") == 1048576u);
  CHECK(parse_size("4K") == 4096u);
  CHECK(parse_size("1G") == (1ull << 30));
  CHECK(parse_size("3*2^20") == 3u * 1048576u);
  CHECK(parse_size("2^31+5") == (1ull << 31) + 5);
  CHECK(parse_size("2^20-1") == 1048575u);
  CHECK(parse_size("0") == 0u);
  CHECK(parse_size(" 2^10 ") == 1024u);
}

TEST_CASE("parse_size rejects bad sizes with a UsageError") {
  for (const char* bad : {"", "-1", "-5", "abc", "1X", "1.5", "2^", "^3", "2^64", "99999999999999999999",
                          "1T*1T*1T", "5-6", "12abc", "--3"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_size(bad), UsageError);
  }
}

TEST_CASE("format_size writes powers of two readably") {
  CHECK(format_size(0) == "0");
  CHECK(format_size(1000) == "1000");
  CHECK(format_size(1u << 28) == "2^28");
  CHECK(format_size(3u << 20) == "3*2^20");
  CHECK(format_size((1u << 20) + 1) == "1048577");
}

TEST_CASE("parse_options: defaults and every flag") {
  Options d = parse({});
  CHECK(d.size == (1u << 20));
  CHECK_FALSE(d.size_given);
  CHECK(d.check);
  CHECK(d.format == OutputFormat::table);

  Options o = parse({"--size", "2^10", "--reps", "7", "--warmup", "3", "--seed", "42", "--variant", "a,b",
                     "-v", "c", "--no-check", "--format", "csv", "--flush-l2", "--budget-ms", "50"});
  CHECK(o.size == 1024u);
  CHECK(o.size_given);
  CHECK(o.reps == 7);
  CHECK(o.warmup == 3);
  CHECK(o.seed == 42u);
  CHECK(o.variants == std::vector<std::string>{"a", "b", "c"});
  CHECK_FALSE(o.check);
  CHECK(o.format == OutputFormat::csv);
  CHECK(o.flush_l2);
  CHECK(o.budget_ms == 50.0);

  CHECK(parse({"--size=1M"}).size == (1u << 20));
  CHECK(parse({"-n", "4K"}).size == 4096u);
  CHECK(parse({"--json"}).format == OutputFormat::json);
  CHECK(parse({"--csv"}).format == OutputFormat::csv);
  CHECK(parse({"--list"}).list);
  CHECK(parse({"--help"}).help);
  CHECK(d.rounds == 1);
  CHECK(parse({"--rounds", "7"}).rounds == 7);
  CHECK(parse({"-h"}).help);
}

TEST_CASE("parse_options: profile mode is one warm-up and one timed run") {
  Options p = parse({"--profile", "--reps", "50", "--rounds", "5"});
  CHECK(p.profile);
  CHECK(p.warmup == 1);
  CHECK(p.reps == 1);
  CHECK(p.rounds == 1);
}

TEST_CASE("parse_options: chapter-specific options") {
  std::vector<ExtraOption> extra = {{"block", "threads per block", 64, 32, 1024}};
  CHECK(parse({}, extra).extra.at("block") == 64);
  CHECK(parse({"--block", "256"}, extra).extra.at("block") == 256);
  CHECK_THROWS_AS(parse({"--block", "16"}, extra), UsageError);
  CHECK_THROWS_AS(parse({"--block", "2048"}, extra), UsageError);
  CHECK_THROWS_AS(parse({"--block", "x"}, extra), UsageError);
}

TEST_CASE("parse_options rejects every bad command line") {
  const std::vector<std::vector<std::string>> bad = {
      {"--size", "-1"},     {"--size", "abc"},   {"--size"},           {"--bogus"},
      {"extra"},            {"--reps", "0"},     {"--reps", "-3"},     {"--reps", "x"},
      {"--warmup", "-1"},   {"--seed", "-2"},    {"--format", "xml"},  {"--variant", ""},
      {"--variant", ","},   {"--no-check=1"},    {"--budget-ms", "0"}, {"--size", "2^64"},
      {"--rounds", "0"},    {"--rounds", "x"},   {"--rounds"},         {"--rounds", "1001"},
  };
  for (const auto& args : bad) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    CAPTURE(joined);
    CHECK_THROWS_AS(parse(args), UsageError);
  }
}

TEST_CASE("usage errors are one line") {
  try {
    parse({"--size", "-7"});
    FAIL("expected a UsageError");
  } catch (const UsageError& e) {
    std::string m = e.what();
    CHECK(m.find('\n') == std::string::npos);
    CHECK(m.find("-7") != std::string::npos);
  }
}

TEST_CASE("summarize: median, min, max") {
  TimingStats s = summarize({5, 1, 3});
  CHECK(s.median_ms == 3);
  CHECK(s.min_ms == 1);
  CHECK(s.max_ms == 5);
  CHECK(s.reps == 3);
  CHECK(summarize({4, 1, 2, 3}).median_ms == doctest::Approx(2.5));
  CHECK(summarize({}).reps == 0);
}

TEST_CASE("paired_ratios: the ratio of each round, then their median, min and max") {
  const RatioStats r = paired_ratios({2, 2, 2}, {1, 2, 4});  // ratios 2, 1, 0.5
  CHECK(r.median == 1.0);
  CHECK(r.min == 0.5);
  CHECK(r.max == 2.0);
  CHECK(r.rounds == 3);
  // Paired, not pooled: the reference's slow round meets this row's slow round.
  const RatioStats p = paired_ratios({1.0, 2.0}, {1.1, 2.2});
  CHECK(p.min == doctest::Approx(1 / 1.1));
  CHECK(p.max == doctest::Approx(1 / 1.1));
  for (const RatioStats& none : {paired_ratios({}, {}), paired_ratios({1, 2}, {1}), paired_ratios({1, 0}, {1, 1}),
                                 paired_ratios({1, 1}, {1, std::nan("")})})
    CHECK(none.rounds == 0);
}

TEST_CASE("bandwidth arithmetic") {
  CHECK(gigabytes_per_second(2e9, 1000.0) == doctest::Approx(2.0));
  CHECK(gigabytes_per_second(1e9, 1.0) == doctest::Approx(1000.0));
  CHECK(gigabytes_per_second(1e9, 0.0) == 0.0);
  CHECK(gigaflops_per_second(5e9, 10.0) == doctest::Approx(500.0));
  // H100 SXM: HBM3 memory clock 2619 MHz on a 5120-bit bus -> 3352 GB/s.
  CHECK(peak_dram_gbps(2619000, 5120) == doctest::Approx(3352.32));
  CHECK(adaptive_reps(10.0, 1000.0, 5, 1000) == 100);
  CHECK(adaptive_reps(500.0, 1000.0, 5, 1000) == 5);
  CHECK(adaptive_reps(0.001, 1000.0, 5, 1000) == 1000);

  Result r;
  r.bytes = 2e9;
  r.time = summarize({1.0});
  derive_rates(r, 4000.0, 1000.0);
  CHECK(r.gbps == doctest::Approx(2000.0));
  CHECK(r.pct_peak_dram == doctest::Approx(50.0));
  CHECK(r.pct_memcpy == doctest::Approx(200.0));
}

TEST_CASE("verification catches a planted mismatch and reports it") {
  auto ref = random_integers<int>(1000, 7);
  auto out = ref;
  CHECK(compare_exact(ref, out).ok);
  out[123] ^= 1;
  out[500] += 9;
  CheckResult r = compare_exact(ref, out);
  CHECK_FALSE(r.ok);
  CHECK(r.bad_count == 2);
  CHECK(r.first_bad == 123);
  CHECK(r.expected == std::to_string(ref[123]));
  CHECK(r.actual == std::to_string(out[123]));
  CHECK(r.message().find("index 123") != std::string::npos);

  std::vector<int> shorter(999);
  CHECK_FALSE(compare_exact(ref, shorter).ok);
}

TEST_CASE("exact comparison over many chunks finds the lowest bad index") {
  std::vector<std::int32_t> a(std::size_t{3} << 22, 5), b = a;
  b[(std::size_t{2} << 22) + 3] = 0;
  b[(std::size_t{1} << 22) + 9] = 0;
  CheckResult r = compare_exact(a, b);
  CHECK(r.bad_count == 2);
  CHECK(r.first_bad == (std::size_t{1} << 22) + 9);
}

TEST_CASE("relative comparison of floats rejects NaN and large errors") {
  std::vector<float> ref = random_floats(4096, 3), out = ref;
  CHECK(compare_relative(ref.data(), out.data(), ref.size(), 1e-6).ok);
  out[10] *= 1.0f + 1e-7f;
  CHECK(compare_relative(ref.data(), out.data(), ref.size(), 1e-5).ok);
  out[20] = std::nanf("");
  CheckResult nan = compare_relative(ref.data(), out.data(), ref.size(), 1e-5);
  CHECK_FALSE(nan.ok);
  CHECK(nan.first_bad == 20);
  out[20] = ref[20] + 10.0f;
  CHECK_FALSE(compare_relative(ref.data(), out.data(), ref.size(), 1e-5).ok);
}

TEST_CASE("seeded random inputs are reproducible, varied and cover the int32 range") {
  auto a = random_integers<std::int32_t>(100000, 1), b = random_integers<std::int32_t>(100000, 1);
  auto c = random_integers<std::int32_t>(100000, 2);
  CHECK(a == b);
  CHECK(a != c);
  bool neg = false, big = false;
  for (auto v : a) {
    neg |= v < -(1 << 30);
    big |= v > (1 << 30);
  }
  CHECK(neg);
  CHECK(big);
  auto r = random_integers<int>(10000, 5, -3, 3);
  for (int v : r) CHECK((v >= -3 && v <= 3));
}

TEST_CASE("CSV and JSON output") {
  Result r;
  r.chapter = "05-scan-baseline";
  r.variant = "default";
  r.n = 1024;
  r.bytes = 8192;
  r.time = summarize({1.0, 2.0, 3.0});
  r.check = "MISMATCH: \"quoted\", comma";
  derive_rates(r, 100.0, 50.0);
  std::ostringstream csv;
  write_csv(csv, {r});
  std::string text = csv.str();
  CHECK(text.rfind("chapter,variant,", 0) == 0);
  CHECK(text.find("05-scan-baseline,default,0,1024,8192,") != std::string::npos);
  CHECK(text.find("\"MISMATCH: \"\"quoted\"\", comma\"") != std::string::npos);

  DeviceInfo d;
  d.name = "Test \"GPU\"";
  std::ostringstream json;
  write_json(json, d, "05-scan-baseline", "prog --json", {r});
  std::string j = json.str();
  CHECK(j.find("\"name\": \"Test \\\"GPU\\\"\"") != std::string::npos);
  CHECK(j.find("\"median_ms\": 2") != std::string::npos);
  CHECK(j.find("\"variant\": \"default\"") != std::string::npos);

  std::ostringstream table;
  write_table(table, {r});
  CHECK(table.str().find("median ms") != std::string::npos);

  // --rounds: the ratio's range over the rounds in every format, and the table's note says what it is.
  Result paired = r;
  paired.speed_vs_ref = 1.05;
  paired.speed_min = 0.98;
  paired.speed_max = 1.125;
  paired.rounds = 9;
  paired.ref_name = "cublas";
  std::ostringstream paired_csv, paired_json, paired_table;
  write_csv(paired_csv, {paired});
  CHECK(paired_csv.str().find(",speed_min,speed_max,rounds\n") != std::string::npos);
  CHECK(paired_csv.str().find(",0.98,1.125,9\n") != std::string::npos);
  write_json(paired_json, d, "59-bf16-gemm-by-shape", "prog --rounds 9", {paired});
  CHECK(paired_json.str().find("\"speed_min\": 0.98, \"speed_max\": 1.125, \"rounds\": 9") != std::string::npos);
  write_table(paired_table, {paired});
  CHECK(paired_table.str().find("1.050x (0.980-1.125)") != std::string::npos);
  CHECK(paired_table.str().find("median over 9 rounds") != std::string::npos);
  std::ostringstream unpaired_table;
  write_table(unpaired_table, {r});
  CHECK(unpaired_table.str().find("rounds") == std::string::npos);

  // JSON has no NaN or infinity: a value that is not finite is written as null, and nothing else is.
  Result bad = r;
  bad.time = summarize({0.0});
  bad.gbps = std::nan("");
  bad.gflops = std::numeric_limits<double>::infinity();
  bad.speed_vs_ref = -std::numeric_limits<double>::infinity();
  d.peak_dram_gbps = std::nan("");
  std::ostringstream nonfinite;
  write_json(nonfinite, d, "05-scan-baseline", "prog --json", {r, bad});
  const std::string nj = nonfinite.str();
  CHECK(nj.find("\"gbps\": null") != std::string::npos);
  CHECK(nj.find("\"gflops\": null") != std::string::npos);
  CHECK(nj.find("\"speed_vs_ref\": null") != std::string::npos);
  CHECK(nj.find("\"peak_dram_gbps\": null") != std::string::npos);
  CHECK(nj.find("\"median_ms\": 0,") != std::string::npos);   // zero is a number, not null
  CHECK(nj.find("\"median_ms\": 2,") != std::string::npos);
  for (const char* bare : {"nan", "inf"}) CHECK(nj.find(bare) == std::string::npos);
}

TEST_CASE("--list as text, CSV and JSON") {
  std::vector<VariantSpec> vs(3);
  vs[0].name = "stage";
  vs[0].description = "the \"stage\", tuned";
  vs[1].name = "cub";
  vs[1].description = "CUB";
  vs[1].reference = true;
  vs[2].name = "article";
  vs[2].description = "as published";
  vs[2].on_demand = true;
  vs[2].known_defect = "drops the last tile";
  std::ostringstream text, csv, json;
  write_variant_list(text, OutputFormat::table, vs);
  CHECK(text.str() == "stage\tthe \"stage\", tuned\ncub (reference)\tCUB\n"
                      "article (on demand)\tas published [known defect: drops the last tile]\n");
  write_variant_list(csv, OutputFormat::csv, vs);
  CHECK(csv.str() == "name,description,reference,on_demand,known_defect\n"
                     "stage,\"the \"\"stage\"\", tuned\",0,0,\ncub,CUB,1,0,\narticle,as published,0,1,drops the last tile\n");
  write_variant_list(json, OutputFormat::json, vs);
  CHECK(json.str() ==
        "[\n  {\"name\": \"stage\", \"description\": \"the \\\"stage\\\", tuned\", \"reference\": false, "
        "\"on_demand\": false, \"known_defect\": \"\"},\n"
        "  {\"name\": \"cub\", \"description\": \"CUB\", \"reference\": true, \"on_demand\": false, "
        "\"known_defect\": \"\"},\n"
        "  {\"name\": \"article\", \"description\": \"as published\", \"reference\": false, "
        "\"on_demand\": true, \"known_defect\": \"drops the last tile\"}\n]\n");
  std::ostringstream empty;
  write_variant_list(empty, OutputFormat::json, {});
  CHECK(empty.str() == "[\n]\n");
}

TEST_CASE("FP32 peak from SM count, lanes per SM and clock") {
  CHECK(fp32_lanes_per_sm_by_cc(7, 5) == 64);
  CHECK(fp32_lanes_per_sm_by_cc(8, 0) == 64);   // A100: half the FP32 lanes of GA10x
  CHECK(fp32_lanes_per_sm_by_cc(8, 6) == 128);
  CHECK(fp32_lanes_per_sm_by_cc(8, 9) == 128);
  CHECK(fp32_lanes_per_sm_by_cc(9, 0) == 128);
  CHECK(fp32_lanes_per_sm_by_cc(12, 0) == 128);
  CHECK(fp32_lanes_per_sm_by_cc(42, 0) == 0);   // unknown: no share of peak is reported
  // H100 SXM: 132 SMs x 128 lanes x 2 flop x 1980 MHz = 66908.16 GFLOP/s.
  CHECK(peak_fp32_gflops_from(132, 128, 1980000) == doctest::Approx(66908.16));
  Result r;
  r.flops = 2e12;
  r.time = summarize({100.0});  // 20000 GFLOP/s
  derive_rates(r, 0.0, 0.0, 40000.0);
  CHECK(r.gflops == doctest::Approx(20000.0));
  CHECK(r.pct_peak_fp32 == doctest::Approx(50.0));
  derive_rates(r, 0.0, 0.0);
  CHECK(r.pct_peak_fp32 == 0.0);
}

// ---- The GPU tests' locks (test_locks.hpp) --------------------------------------------------------
namespace {

// Whether another process can take `path`'s lock now (a child tries without waiting and reports by exit code).
bool free_for_another_process(const std::string& path) {
  const pid_t child = fork();
  if (child == 0) _exit(tut::testing::FileLock::acquire(path, false).held() ? 0 : 1);
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Points the locks at a fresh directory for one test, and back on exit.
struct ScopedLockDir {
  std::string dir;
  explicit ScopedLockDir(const std::string& name, const char* slots) {
    char pattern[] = "/tmp/tut-locks-XXXXXX";
    dir = std::string(mkdtemp(pattern)) + "/" + name;
    setenv("TUT_TEST_LOCK_DIR", dir.c_str(), 1);
    setenv("TUT_GPU_TEST_SLOTS", slots, 1);
    unsetenv("TUT_TEST_LOCKS");
  }
  ~ScopedLockDir() {
    unsetenv("TUT_TEST_LOCK_DIR");
    unsetenv("TUT_GPU_TEST_SLOTS");
  }
};

}  // namespace

TEST_CASE("the large-case lock excludes other processes until it is released") {
  ScopedLockDir scope("large", "4");
  CHECK(tut::testing::lock_directory() == scope.dir);
  const std::string path = scope.dir + "/large-case";
  {
    tut::testing::FileLock lock = tut::testing::acquire_large_case_lock();
    REQUIRE(lock.held());
    CHECK_FALSE(free_for_another_process(path));
    tut::testing::FileLock moved = std::move(lock);  // the lock moves with its owner
    CHECK_FALSE(lock.held());
    CHECK_FALSE(free_for_another_process(path));
  }
  CHECK(free_for_another_process(path));
}

namespace {

// A child process that takes a GPU slot, holds it for `hold_ms` and exits 0 if it got one.
pid_t child_taking_a_slot(int hold_ms) {
  const pid_t child = fork();
  if (child == 0) {
    tut::testing::FileLock mine = tut::testing::acquire_gpu_slot();
    usleep(hold_ms * 1000);
    _exit(mine.held() ? 0 : 1);
  }
  return child;
}

bool exited_ok(pid_t child) {
  int status = 0;
  return waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

TEST_CASE("GPU slots: each process takes a free one; with all taken it waits") {
  // The holders are child processes: a forked child shares its parent's open locks, so the parent holds none.
  ScopedLockDir scope("slots", "2");
  CHECK(tut::testing::gpu_test_slots() == 2);
  const pid_t first = child_taking_a_slot(600);
  const pid_t second = child_taking_a_slot(600);
  usleep(200 * 1000);
  CHECK_FALSE(free_for_another_process(scope.dir + "/gpu-slot-0"));
  CHECK_FALSE(free_for_another_process(scope.dir + "/gpu-slot-1"));
  const pid_t third = child_taking_a_slot(0);
  usleep(200 * 1000);
  int status = 0;
  CHECK(waitpid(third, &status, WNOHANG) == 0);  // both slots taken: still waiting
  CHECK(exited_ok(first));
  CHECK(exited_ok(second));
  CHECK(exited_ok(third));  // it got a slot once one was free
  CHECK(free_for_another_process(scope.dir + "/gpu-slot-0"));
}

namespace {

// A child process that takes a slot on one of the spread GPUs, holds it for `hold_ms` and exits with the GPU it
// was given (CUDA_VISIBLE_DEVICES, a number here), or 99 when it was given none.
pid_t child_spread_to_a_gpu(int hold_ms) {
  const pid_t child = fork();
  if (child == 0) {
    tut::testing::FileLock mine = tut::testing::acquire_gpu_slot_on_some_gpu();
    usleep(hold_ms * 1000);
    const char* gpu = std::getenv("CUDA_VISIBLE_DEVICES");
    _exit(mine.held() && gpu ? std::atoi(gpu) : 99);
  }
  return child;
}

int exit_code(pid_t child) {
  int status = 0;
  return waitpid(child, &status, 0) == child && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("spread over GPUs: slot 0 of every GPU first, then slot 1; each process sees the GPU it took") {
  ScopedLockDir scope("spread", "2");
  setenv("TUT_SPREAD_GPUS", "5, 7", 1);
  CHECK(tut::testing::spread_gpus() == std::vector<std::string>{"5", "7"});
  setenv("TUT_TEST_ALL_GPUS", "1", 1);  // a test that drives every GPU itself is not spread
  CHECK(tut::testing::spread_gpus().empty());
  unsetenv("TUT_TEST_ALL_GPUS");
  const pid_t first = child_spread_to_a_gpu(600);
  usleep(150 * 1000);
  const pid_t second = child_spread_to_a_gpu(600);
  usleep(150 * 1000);
  const pid_t third = child_spread_to_a_gpu(0);
  CHECK(exit_code(third) == 5);  // both slot 0s taken: slot 1 of the first GPU
  CHECK(exit_code(first) == 5);
  CHECK(exit_code(second) == 7);
  CHECK(free_for_another_process(scope.dir + "/gpu-slot-0"));  // the one-GPU slots are not used
  setenv("TUT_SPREAD_GPUS", "5", 1);  // one GPU: nothing to spread over
  CHECK(tut::testing::spread_gpus().empty());
  unsetenv("TUT_SPREAD_GPUS");
}

TEST_CASE("locks off: TUT_TEST_LOCKS=0 takes nothing and leaves no margin") {
  ScopedLockDir scope("off", "4");
  setenv("TUT_TEST_LOCKS", "0", 1);
  CHECK(tut::testing::lock_directory().empty());
  CHECK_FALSE(tut::testing::acquire_gpu_slot().held());
  CHECK_FALSE(tut::testing::acquire_large_case_lock().held());
  CHECK(tut::testing::large_case_margin_bytes(false) == 0);
  unsetenv("TUT_TEST_LOCKS");
  CHECK(tut::testing::large_case_margin_bytes(false) == 3 * (tut::testing::kLargeCaseBytes + (std::size_t{1} << 29)));
  CHECK(tut::testing::large_case_margin_bytes(true) == 3 * 2 * tut::testing::kLargeCaseBytes);
}

TEST_CASE("memory_shortfall: the skip line of a small GPU or host, room for the other slots, and what fits") {
  ScopedLockDir scope("memory", "4");
  const std::size_t gib = std::size_t{1} << 30;
  // The 2^31 + 1025 scan case (about 16 GiB on the device) on a 16 GB GPU with 7.6 GiB free: skipped, one line.
  const std::string small_gpu = tut::testing::memory_shortfall("05 at n = 2^31", 16 * gib, 0, 76 * gib / 10, 30 * gib);
  CHECK(small_gpu == "05 at n = 2^31 skipped: needs 16.0 GiB of device memory, 7.6 GiB free on this GPU");
  CHECK(small_gpu.find('\n') == std::string::npos);
  // Host memory short: its own line.
  CHECK(tut::testing::memory_shortfall("x", 2 * gib, 24 * gib, 140 * gib, 16 * gib) ==
        "x skipped: needs 24.0 GiB of host memory, 16.0 GiB available on this machine");
  // An H200 with everything free: the large case fits.
  CHECK(tut::testing::memory_shortfall("x", 17 * gib, 0, 139 * gib, 125 * gib).empty());
  // A large case must leave 3 other slots x (1 GiB case + 0.5 GiB context) = 4.5 GiB: 10 GiB free is 9 GiB of
  // room, 4.5 after the margin, so a 5 GiB case skips; a small case of 0.9 GiB needs no margin.
  CHECK(tut::testing::memory_shortfall("x", 5 * gib, 0, 10 * gib, 125 * gib) ==
        "x skipped: needs 5.0 GiB of device memory and 4.5 GiB kept for the 3 other GPU tests that may run beside "
        "it, 10.0 GiB free on this GPU");
  // The 2^28 scan case (2 GiB) on an 8 GB GPU with 5.1 GiB free: the margin is what does not fit; alone
  // (TUT_GPU_TEST_SLOTS=1) it fits. The same on the host.
  CHECK(tut::testing::memory_shortfall("x", 2 * gib, 0, 51 * gib / 10, 14 * gib) ==
        "x skipped: needs 2.0 GiB of device memory and 4.5 GiB kept for the 3 other GPU tests that may run beside "
        "it, 5.1 GiB free on this GPU");
  CHECK(tut::testing::memory_shortfall("x", 0, 2 * gib, 80 * gib, 7 * gib) ==
        "x skipped: needs 2.0 GiB of host memory and 6.0 GiB kept for the 3 other GPU tests that may run beside "
        "it, 7.0 GiB available on this machine");
  setenv("TUT_GPU_TEST_SLOTS", "1", 1);
  CHECK(tut::testing::memory_shortfall("x", 2 * gib, 0, 51 * gib / 10, 14 * gib).empty());
  setenv("TUT_GPU_TEST_SLOTS", "4", 1);
  CHECK(tut::testing::memory_shortfall("x", 4 * gib, 0, 10 * gib, 125 * gib).empty());
  CHECK(tut::testing::memory_shortfall("x", 9 * gib / 10, 0, gib, 125 * gib).empty());
  // Uncoordinated (TUT_TEST_LOCKS=0): no margin, 90% of what is free.
  setenv("TUT_TEST_LOCKS", "0", 1);
  CHECK(tut::testing::memory_shortfall("x", 8 * gib, 0, 10 * gib, 125 * gib).empty());
  unsetenv("TUT_TEST_LOCKS");
  // Host memory unknown (UINT64_MAX): not checked.
  CHECK(tut::testing::memory_shortfall("x", gib, 500 * gib, 140 * gib, UINT64_MAX).empty());
  // Large means more than 1 GiB of either kind.
  CHECK_FALSE(tut::testing::is_large_case(gib, gib));
  CHECK(tut::testing::is_large_case(gib + 1, 0));
  CHECK(tut::testing::is_large_case(0, gib + 1));
}
