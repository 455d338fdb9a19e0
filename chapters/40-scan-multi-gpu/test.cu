// GPU tests for chapter 40. On one GPU: the scan at P = 1 (chapter 17's scan alone), the shard and carry logic
// at P = 2, 3, 4 with the shards on one device and the collective replaced by DeviceGather (NCCL refuses two
// ranks on one device), NCCL's all-gather with one rank, the program's command line, the runs the runner makes
// (profile mode: one checked and one timed run). With two GPUs or more: the NCCL path at P = 2 and at every
// visible GPU, and device memory freed on its own device. Every result is compared with the CPU reference. The
// scan cases run with both shard scans: chapter 17's (the stage) and chapter 18's int32-sum stage (copy-bound).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include <sys/wait.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "device_buffer.cuh"
#include "gpu_test.cuh"

namespace {

namespace mg = scan_multi_gpu;

constexpr std::uint64_t kTile = 15360;  // chapter 17's tile (192 threads x 80 int32), and chapter 18's for int32

// Both shard scans, with a name for the failure messages.
constexpr mg::ShardScan kBothScans[] = {mg::ShardScan::kLandingZone, mg::ShardScan::kCopyBound};
std::string scan_name(mg::ShardScan which) {
  return which == mg::ShardScan::kLandingZone ? "chapter 17's scan per shard" : "chapter 18's scan per shard";
}

int visible_gpus() {
  int count = 0;
  TUT_CUDA_CHECK(cudaGetDeviceCount(&count));
  return count;
}

// The sizes every P is tested at: the shared adversarial sizes, n < P and n = P (empty shards, shards of one
// element), sizes around chapter 17's tile and its look-back window, n not divisible by P, and a few millions.
std::vector<std::uint64_t> shard_test_sizes() {
  std::vector<std::uint64_t> sizes = tut::testing::adversarial_sizes(
      {3, 4, 5, 7, kTile - 1, kTile, kTile + 1, 2 * kTile + 1, 4 * kTile + 3, 33 * kTile * 3 + 1,
       3 * (1u << 20) + 7, (1u << 24) + 5});
  std::vector<std::uint64_t> capped;
  for (std::uint64_t n : sizes)
    if (n <= tut::testing::max_test_elements()) capped.push_back(n);
  return capped;
}

std::vector<std::int32_t> cpu_scan(const std::vector<std::int32_t>& in) {
  std::vector<std::int32_t> out(in.size());
  tut::scan::cpu_inclusive_scan(in.data(), out.data(), in.size());
  return out;
}

// One scan of `set` through `exchange` with the shard scan `which`, on poisoned outputs and workspaces, checked
// both ways.
void scan_and_check(mg::ShardSet& set, mg::TotalsExchange& exchange, const std::vector<std::int32_t>& expected,
                    const std::string& what, mg::ShardScan which) {
  set.poison();
  mg::inclusive_scan(set.shards(), exchange, which);
  set.synchronize();
  INFO(what << ", " << scan_name(which));
  const tut::CheckResult cpu = set.check_against(expected);
  CHECK_MESSAGE(cpu.ok, "CPU reference: " << cpu.message());
  const tut::CheckResult gpus = set.check_on_devices();
  CHECK_MESSAGE(gpus.ok, "check on the GPUs: " << gpus.message());
}

// P shards of seeded random input (made on the GPU) on `devices`, at every test size, with both shard scans.
void check_random_sizes(const std::vector<int>& devices, mg::TotalsExchange& exchange) {
  const int P = static_cast<int>(devices.size());
  for (std::uint64_t n : shard_test_sizes()) {
    const std::uint64_t seed = tut::testing::test_seed() + n + P;
    mg::ShardSet set(n, devices);
    set.fill_random(seed);
    const std::vector<std::int32_t> expected = cpu_scan(tut::random_integers<std::int32_t>(n, seed));
    for (mg::ShardScan which : kBothScans)
      scan_and_check(set, exchange, expected, "P = " + std::to_string(P) + ", n = " + std::to_string(n), which);
  }
}

std::vector<int> same_device(int P) { return std::vector<int>(P, 0); }

int run_program(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"40-scan-multi-gpu"};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  return multi_gpu_program::run(static_cast<int>(all.size()), argv.data());
}

// The chapter's workload, counting what the runner asks of it.
struct Calls {
  int setup = 0, poison = 0, run = 0, check = 0, finish = 0;
};
class CountingWorkload final : public tut::Workload {
 public:
  CountingWorkload(std::unique_ptr<tut::Workload> inner, std::shared_ptr<Calls> calls)
      : inner_(std::move(inner)), calls_(std::move(calls)) {}
  std::size_t device_bytes(const tut::Options& o) const override { return inner_->device_bytes(o); }
  std::size_t host_bytes(const tut::Options& o) const override { return inner_->host_bytes(o); }
  void prepare(const tut::Options& o, bool r) override { inner_->prepare(o, r); }
  void setup(const std::string& v) override { ++calls_->setup, inner_->setup(v); }
  void poison(cudaStream_t s) override { ++calls_->poison, inner_->poison(s); }
  void run(const std::string& v, cudaStream_t s) override { ++calls_->run, inner_->run(v, s); }
  tut::CheckResult check(const std::string& v) override { return ++calls_->check, inner_->check(v); }
  tut::Work work(const std::string& v) const override { return inner_->work(v); }
  void finish(const std::string& v) override { ++calls_->finish, inner_->finish(v); }
  std::size_t memcpy_bytes() const override { return inner_->memcpy_bytes(); }

 private:
  std::unique_ptr<tut::Workload> inner_;
  std::shared_ptr<Calls> calls_;
};

// The chapter measured through the runner with `args`; `calls` counts the workload's calls.
std::vector<tut::Result> measure_counting(const std::vector<std::string>& args, std::shared_ptr<Calls> calls) {
  tut::ChapterSpec spec = multi_gpu_program::chapter_spec();
  const auto make = spec.make_workload;
  spec.make_workload = [make, calls] { return std::make_unique<CountingWorkload>(make(), calls); };
  std::vector<const char*> argv = {"40-scan-multi-gpu"};
  for (const auto& a : args) argv.push_back(a.c_str());
  const tut::Options opt = tut::parse_options(static_cast<int>(argv.size()), argv.data(), spec.default_size,
                                              spec.extra_options);
  return tut::measure_chapter(spec, opt);
}

}  // namespace

TEST_CASE("40: the split covers [0, n) in order, shard sizes differ by at most one, n < P leaves empty shards") {
  for (int P : {1, 2, 3, 4, 8})
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{8},
                          std::size_t{1025}, (std::size_t{3} << 33) + 1}) {
      CAPTURE(P);
      CAPTURE(n);
      const mg::Split split{n, P};
      CHECK(split.begin(0) == 0);
      CHECK(split.begin(P) == n);
      for (int p = 0; p < P; ++p) {
        CHECK(split.begin(p) <= split.begin(p + 1));
        CHECK(split.count(p) <= split.count(0));
        CHECK(split.count(0) - split.count(p) <= 1);
        CHECK(split.count(p) == n / P + (static_cast<std::size_t>(p) < n % P ? 1 : 0));  // the first n % P get one more
      }
      CHECK(split.largest() == split.count(0));
    }
  CHECK(mg::Split{2, 4}.count(2) == 0);  // n < P: the last shards are empty
  CHECK(mg::Split{4, 4}.count(3) == 1);  // n = P: shards of one element
}

TEST_CASE("40: an uneven split gives the last shard last_weight percent of each other shard") {
  for (int P : {2, 3, 4})
    for (int w : {1, 50, 99, 101, 142, 300, 1000})
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{1025}, std::size_t{1} << 30,
                            (std::size_t{3} << 33) + 7}) {
        CAPTURE(P);
        CAPTURE(w);
        CAPTURE(n);
        const mg::Split split{n, P, w};
        CHECK(split.begin(0) == 0);
        CHECK(split.begin(P) == n);
        for (int p = 0; p + 1 < P; ++p) {
          CHECK(split.begin(p) <= split.begin(p + 1));
          CHECK(split.count(0) - split.count(p) <= 1);
        }
        // last = floor(n w / ((P - 1) 100 + w)), in exact integer arithmetic
        const unsigned __int128 weights = static_cast<unsigned __int128>(P - 1) * 100 + w;
        CHECK(split.count(P - 1) == static_cast<std::size_t>(static_cast<unsigned __int128>(n) * w / weights));
        CHECK(split.largest() == std::max(split.count(0), split.count(P - 1)));
      }
  const mg::Split two{3000, 2, 150};  // 1200 and 1800
  CHECK(two.count(0) == 1200);
  CHECK(two.count(1) == 1800);
}

TEST_CASE("40: the GPU's generator makes exactly tut::random_integers' values, for any part of the array") {
  tut::require_supported_gpu();
  const std::uint64_t seed = tut::testing::test_seed();
  const std::vector<std::int32_t> host = tut::random_integers<std::int32_t>(3 * 1000003 + 5, seed);
  for (std::size_t first : {std::size_t{0}, std::size_t{1}, std::size_t{1000003}})
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{1025}, std::size_t{2 * 1000003}}) {
      CAPTURE(first);
      CAPTURE(count);
      tut::DeviceBuffer<std::int32_t> d(count + 1);
      d.poison();  // the element past `count` must keep the poison: the generator writes exactly `count`
      tut::fill_random_integers_on_device(d.data(), count, seed, first);
      TUT_CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<std::int32_t> got = d.download();
      std::int32_t poison = 0;
      std::memset(&poison, tut::kPoisonByte, sizeof poison);
      CHECK(got[count] == poison);
      got.resize(count);
      const std::vector<std::int32_t> want(host.begin() + first, host.begin() + first + count);
      CHECK(tut::compare_exact(want, got).ok);
    }
}

TEST_CASE("40: one shard (P = 1): chapter 17's scan alone, and chapter 18's, match the CPU reference") {
  tut::require_supported_gpu();
  mg::DeviceGather unused;
  check_random_sizes(same_device(1), unused);
}

TEST_CASE("40: P = 2, 3, 4 shards on one GPU with the collective-free exchange match the CPU reference") {
  tut::require_supported_gpu();
  for (int P : {2, 3, 4}) {
    mg::DeviceGather gather;
    check_random_sizes(same_device(P), gather);
  }
}

TEST_CASE("40: uneven splits (the last shard 0.5x, 1.42x, 3x the others) on one GPU match the CPU reference") {
  tut::require_supported_gpu();
  for (int P : {2, 3})
    for (int w : {50, 142, 300}) {
      mg::DeviceGather gather;
      for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{5}, std::uint64_t{1025}, 3 * kTile + 1,
                              std::uint64_t{1000003}}) {
        const std::uint64_t seed = tut::testing::test_seed() + n + 7 * w;
        mg::ShardSet set(n, same_device(P), w);
        set.fill_random(seed);
        const std::vector<std::int32_t> expected = cpu_scan(tut::random_integers<std::int32_t>(n, seed));
        const std::string what =
            "P = " + std::to_string(P) + ", last weight " + std::to_string(w) + "%, n = " + std::to_string(n);
        for (mg::ShardScan which : kBothScans) scan_and_check(set, gather, expected, what, which);
      }
    }
}

TEST_CASE("40: inputs whose sums wrap int32 at every step, across shard boundaries") {
  tut::require_supported_gpu();
  const std::size_t n = 3 * kTile + 5;
  std::vector<std::vector<std::int32_t>> inputs = {std::vector<std::int32_t>(n, INT32_MAX),
                                                   std::vector<std::int32_t>(n, INT32_MIN)};
  std::vector<std::int32_t> alternating(n);
  for (std::size_t i = 0; i < n; ++i) alternating[i] = i % 2 ? INT32_MIN : -1;
  inputs.push_back(alternating);
  for (int P : {1, 2, 3, 4}) {
    mg::DeviceGather gather;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      mg::ShardSet set(n, same_device(P));
      set.upload(inputs[k]);
      const std::string what = "wrapping input " + std::to_string(k) + ", P = " + std::to_string(P);
      for (mg::ShardScan which : kBothScans) scan_and_check(set, gather, cpu_scan(inputs[k]), what, which);
    }
  }
}

TEST_CASE("40: the check on the GPUs finds a wrong element inside a shard and at a shard boundary") {
  tut::require_supported_gpu();
  const std::size_t n = 2 * kTile + 1001;
  mg::DeviceGather gather;
  mg::ShardSet set(n, same_device(3));
  set.fill_random(tut::testing::test_seed());
  mg::inclusive_scan(set.shards(), gather);
  set.synchronize();
  REQUIRE(set.check_on_devices().ok);
  const mg::Shard& s1 = set.shards()[1];
  for (std::size_t local : {std::size_t{0}, std::size_t{17}, s1.count - 1}) {
    CAPTURE(local);
    std::int32_t value = 0;
    TUT_CUDA_CHECK(cudaMemcpy(&value, s1.out + local, sizeof value, cudaMemcpyDeviceToHost));
    const std::int32_t wrong = value ^ 0x100;
    TUT_CUDA_CHECK(cudaMemcpy(s1.out + local, &wrong, sizeof wrong, cudaMemcpyHostToDevice));
    const tut::CheckResult r = set.check_on_devices();
    CHECK_FALSE(r.ok);
    CHECK(r.first_bad == set.begin_of(1) + local);
    TUT_CUDA_CHECK(cudaMemcpy(s1.out + local, &value, sizeof value, cudaMemcpyHostToDevice));
  }
  CHECK(set.check_on_devices().ok);
}

TEST_CASE("40: past 2^31 elements per shard (two shards on one GPU, 64-bit reduce and scan; both shard scans)") {
  tut::require_supported_gpu();
  const std::size_t n = 2 * (std::size_t{1} << 31) + 2051;  // shards of 2^31 + 1026 and 2^31 + 1025
  if (n > tut::testing::max_test_elements()) {
    MESSAGE("skipped under compute-sanitizer (size cap)");
    return;
  }
  const std::size_t device_bytes = 2 * mg::shard_device_bytes(mg::Split{n, 2}.largest(), 2);
  const tut::testing::MemoryLease lease =
      tut::testing::claim_memory("40 at n = 2^32 + 2051 on one GPU", device_bytes, 12 * n);
  if (!lease) return;
  const std::uint64_t seed = tut::testing::test_seed() + 31;
  mg::DeviceGather gather;
  mg::ShardSet set(n, same_device(2));
  set.fill_random(seed);
  const std::vector<std::int32_t> expected = cpu_scan(tut::random_integers<std::int32_t>(n, seed));
  for (mg::ShardScan which : kBothScans) scan_and_check(set, gather, expected, "n = 2^32 + 2051, P = 2", which);
}

// NCCL's own kernels are not what the compute-sanitizer runs check (and they take minutes under them): the
// NCCL cases skip there; every kernel of ours runs through DeviceGather above.
static bool skip_nccl_under_sanitizer() {
  if (!tut::testing::under_sanitizer()) return false;
  MESSAGE("NCCL case skipped under compute-sanitizer");
  return true;
}

TEST_CASE("40: NCCL's all-gather with one rank returns the rank's own total") {
  tut::require_supported_gpu();
  if (skip_nccl_under_sanitizer()) return;
  mg::NcclCommunicators comms({0});
  mg::NcclAllGather allgather(comms);
  mg::ShardSet set(5, {0});
  const std::uint32_t value = 0xdeadbeefu;
  TUT_CUDA_CHECK(cudaMemcpy(set.shards()[0].total, &value, sizeof value, cudaMemcpyHostToDevice));
  allgather.enqueue(set.shards());
  mg::enqueue_totals_download(set.shards());
  set.synchronize();
  CHECK(set.shards()[0].totals_host[0] == value);
  CHECK(std::string(std::getenv("NCCL_NVLS_ENABLE") ? std::getenv("NCCL_NVLS_ENABLE") : "") != "");
}

TEST_CASE("40: with two GPUs or more, the NCCL path at P = 2 and at every visible GPU") {
  tut::require_supported_gpu();
  if (skip_nccl_under_sanitizer()) return;
  const int gpus = visible_gpus();
  if (gpus < 2) {
    MESSAGE("skipped: one GPU visible (the NCCL path at P > 1 needs two)");
    return;
  }
  for (int P : {2, gpus}) {
    std::vector<int> devices = multi_gpu_program::first_devices(P);
    mg::NcclCommunicators comms(devices);
    mg::NcclAllGather allgather(comms);
    check_random_sizes(devices, allgather);
    if (P == gpus) break;
  }
}

TEST_CASE("40: profile mode makes exactly one checked run and one timed run; a plain run checks once, then times") {
  tut::require_supported_gpu();
  const std::vector<std::string> one_gpu = {"--size", std::to_string(3 * kTile + 7), "--gpus", "1"};
  const auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), one_gpu.begin(), one_gpu.end());
    return args;
  };
  {
    auto calls = std::make_shared<Calls>();
    const auto rows = measure_counting(with({"--profile", "--variant", "scan-multi-gpu"}), calls);
    REQUIRE(rows.size() == 1);  // no cudaMemcpy row in profile mode
    CHECK(rows[0].variant == "scan-multi-gpu");
    CHECK(rows[0].check == "ok");
    CHECK(rows[0].time.reps == 1);
    CHECK(calls->setup == 1);
    CHECK(calls->poison == 1);
    CHECK(calls->check == 1);
    CHECK(calls->run == 2);  // the checked run (also the warm-up) and the timed run
    CHECK(calls->finish == 1);
  }
  {
    auto calls = std::make_shared<Calls>();
    const auto rows =
        measure_counting(with({"--profile", "--no-check", "--warmup", "1", "--variant", "scan-multi-gpu"}), calls);
    REQUIRE(rows.size() == 1);
    CHECK(calls->check == 0);
    CHECK(calls->poison == 0);
    CHECK(calls->run == 2);  // without the checked run: the --warmup run, then the one timed run
  }
  {
    auto calls = std::make_shared<Calls>();
    const auto rows = measure_counting(with({"--reps", "3", "--warmup", "1"}), calls);
    REQUIRE(rows.size() == 2);  // cudaMemcpy, then the one-GPU row (which is the --gpus row)
    CHECK(rows[0].variant == "cudaMemcpy");
    CHECK(rows[1].variant == "scan-multi-gpu");
    CHECK(rows[1].check == "ok");
    CHECK(rows[1].time.reps == 3);
    CHECK(calls->run == 1 + 1 + 3);  // checked, warm-up, timed
    CHECK(calls->poison == 1);
  }
}

TEST_CASE("40: the copy-bound rows run only when named, each checked, beside the stage's") {
  tut::require_supported_gpu();
  const std::vector<std::string> one_gpu = {"--size", std::to_string(5 * kTile + 3), "--gpus", "1", "--reps", "2",
                                            "--warmup", "1"};
  {
    auto calls = std::make_shared<Calls>();
    const auto rows = measure_counting(one_gpu, calls);
    REQUIRE(rows.size() == 2);  // cudaMemcpy and the stage: the copy-bound row is on demand
    CHECK(rows[1].variant == "scan-multi-gpu");
  }
  {
    std::vector<std::string> args = one_gpu;
    args.insert(args.end(), {"--variant", "all"});
    auto calls = std::make_shared<Calls>();
    const auto rows = measure_counting(args, calls);
    REQUIRE(rows.size() == 3);
    CHECK(rows[1].variant == "scan-multi-gpu");
    CHECK(rows[2].variant == "scan-multi-gpu-copy-bound");
    CHECK(rows[1].check == "ok");
    CHECK(rows[2].check == "ok");
    CHECK(calls->setup == 2);
  }
}

TEST_CASE("40: every GPU count is a row of the runner, with its n, its GPUs' shares and its check") {
  tut::require_supported_gpu();
  if (tut::testing::under_sanitizer()) {
    MESSAGE("skipped under compute-sanitizer (NCCL for more than one GPU)");
    return;
  }
  const int gpus = visible_gpus();
  auto calls = std::make_shared<Calls>();
  const std::size_t per_gpu = 2 * kTile + 3;
  const auto rows = measure_counting({"--size", std::to_string(per_gpu), "--weak", "1", "--reps", "2", "--warmup", "1"},
                                     calls);
  std::vector<int> counts;
  for (int g = 1; g < gpus; g *= 2) counts.push_back(g);
  counts.push_back(gpus);
  REQUIRE(rows.size() == counts.size() + 1);  // cudaMemcpy first
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const tut::Result& r = rows[i + 1];
    CAPTURE(r.variant);
    CHECK(r.variant == multi_gpu_program::row_name(counts[i], gpus));
    CHECK(r.n == per_gpu * counts[i]);  // --weak 1: n = size x GPUs
    CHECK(r.check == "ok");
    CHECK(r.ref_name == multi_gpu_program::row_name(1, gpus));
  }
  CHECK(calls->setup == static_cast<int>(counts.size()));
  CHECK(calls->finish == static_cast<int>(counts.size()));
}

TEST_CASE("40: ScopedDevice gives the device back; a DeviceBuffer is freed on the device it was allocated on") {
  tut::require_supported_gpu();
  const int gpus = visible_gpus();
  const int other = gpus > 1 ? 1 : 0;
  TUT_CUDA_CHECK(cudaSetDevice(0));
  {
    tut::ScopedDevice on(other);
    int current = -1;
    TUT_CUDA_CHECK(cudaGetDevice(&current));
    CHECK(current == other);
  }
  int current = -1;
  TUT_CUDA_CHECK(cudaGetDevice(&current));
  CHECK(current == 0);
  void* raw = nullptr;
  {
    tut::DeviceBuffer<unsigned char> buffer;
    {
      tut::ScopedDevice on(other);
      buffer = tut::DeviceBuffer<unsigned char>(std::size_t{1} << 20);
    }
    raw = buffer.data();
    tut::DeviceBuffer<unsigned char> moved(std::move(buffer));  // moved with device 0 current: still `other`'s
    cudaPointerAttributes before{};
    TUT_CUDA_CHECK(cudaPointerGetAttributes(&before, raw));
    CHECK(before.device == other);
  }  // freed here with device 0 current
  CHECK(cudaGetLastError() == cudaSuccess);  // the destructor's cudaFree did not fail
  TUT_CUDA_CHECK(cudaGetDevice(&current));
  CHECK(current == 0);  // and gave device 0 back
  cudaPointerAttributes after{};
  if (cudaPointerGetAttributes(&after, raw) == cudaSuccess) CHECK(after.type == cudaMemoryTypeUnregistered);
  (void)cudaGetLastError();
}

TEST_CASE("40: the program runs and checks itself; bad input exits 2") {
  tut::require_supported_gpu();
  const int gpus = visible_gpus();
  std::vector<std::string> quick = {"--reps", "2", "--warmup", "1", "--budget-ms", "10"};
  if (tut::testing::under_sanitizer()) quick.insert(quick.end(), {"--gpus", "1"});  // no NCCL (see above)
  const auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), quick.begin(), quick.end());
    return args;
  };
  CHECK(run_program(with({"--size", "1025"})) == 0);
  CHECK(run_program(with({"--size", std::to_string(3 * kTile + 7), "--format", "json"})) == 0);
  CHECK(run_program(with({"--size", "1000", "--weak", "1"})) == 0);
  CHECK(run_program(with({"--size", "0"})) == 0);
  CHECK(run_program(with({"--size", "4097", "--last-weight", "142"})) == 0);
  CHECK(run_program({"--last-weight", "0"}) == 2);
  CHECK(run_program({"--gpus", std::to_string(gpus + 1)}) == 2);       // more GPUs than visible
  CHECK(run_program({"--gpus", "1", "--size", "2^40"}) == 2);          // 8 TiB: fits in no GPU
  CHECK(run_program({"--size", "2^38", "--weak", "1"}) == 2);          // past all GPUs together
  CHECK(run_program({"--size", "2^62", "--weak", "1"}) == 2);        // no overflow of size x GPUs
  CHECK(run_program({"--size", "2^63"}) == 2);
  CHECK(run_program({"--variant", "no-such-variant"}) == 2);
  CHECK(run_program(with({"--size", "1025", "--profile", "--variant", "scan-multi-gpu"})) == 0);
  CHECK(run_program(with({"--size", std::to_string(3 * kTile + 7), "--variant", "scan-multi-gpu-copy-bound"})) == 0);
  CHECK(run_program(with({"--size", "4097", "--last-weight", "142", "--variant", "all"})) == 0);
  CHECK(run_program({"--list", "--format", "json"}) == 0);
  CHECK(run_program({"--gpus", "-1"}) == 2);
  CHECK(run_program({"--weak", "2"}) == 2);
}

// ---- The rank form: the program itself, started as ranks (TUT_CH40_PROGRAM: meson gives its path) ---------
namespace {

struct Ran {
  int rc = -1;
  std::string output;  // stdout and stderr together
  double seconds = 0;
};

// `command` through the shell, with its output.
Ran run_shell(const std::string& command) {
  Ran r;
  const auto t0 = std::chrono::steady_clock::now();
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  for (std::size_t k; (k = fread(buf, 1, sizeof buf, pipe)) > 0;) r.output.append(buf, k);
  const int status = pclose(pipe);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// The chapter's program, or empty (with a message) where meson did not say where it is.
std::string program_path() {
  const char* p = std::getenv("TUT_CH40_PROGRAM");
  if (!p || !*p) MESSAGE("TUT_CH40_PROGRAM is not set (run through meson test): the rank form's cases skip");
  return p ? p : "";
}

int count_of(const std::string& text, const std::string& what) {
  int k = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++k;
  return k;
}

}  // namespace

TEST_CASE("40: the rank form on two GPUs (one process per GPU) checks ok at every test size, both shard scans") {
  tut::require_supported_gpu();
  if (skip_nccl_under_sanitizer()) return;
  const std::string program = program_path();
  if (program.empty()) return;
  if (visible_gpus() < 2) {
    MESSAGE("NOT RUN: the two-rank run needs two GPUs and " << visible_gpus() << " is visible");
    return;
  }
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1025}, 3 * kTile + 7,
                          (std::uint64_t{1} << 24) + 5}) {
    CAPTURE(n);
    const Ran r = run_shell(program + " --ranks 2 --size " + std::to_string(n) +
                            " --variant all --reps 2 --warmup 1 --format csv --rank-timeout 60");
    INFO(r.output);
    CHECK(r.rc == 0);
    CHECK(count_of(r.output, "scan-multi-gpu-ranks") == 1);
    CHECK(count_of(r.output, "scan-multi-gpu-copy-bound-ranks") == 1);
    CHECK(count_of(r.output, ",ok") == 2);  // both rows' check column
  }
  // the table form, with an uneven split, and --weak
  const Ran table = run_shell(program + " --ranks 2 --size 4097 --last-weight 142 --reps 2 --warmup 1");
  INFO(table.output);
  CHECK(table.rc == 0);
  CHECK(table.output.find("% of bound") != std::string::npos);
  CHECK(run_shell(program + " --ranks 2 --size 1000 --weak 1 --reps 2 --warmup 1").rc == 0);
}

TEST_CASE("40: the rank form's bad input ends every rank with one line and a non-zero exit, in bounded time") {
  tut::require_supported_gpu();
  if (skip_nccl_under_sanitizer()) return;
  const std::string program = program_path();
  if (program.empty()) return;
  const int gpus = visible_gpus();
  const std::string quick = " --size 1025 --reps 2 --warmup 1 --rank-timeout 5";
  {  // one rank more than GPUs: that rank's GPU is missing; every rank says so and ends
    const Ran r = run_shell(program + " --ranks " + std::to_string(gpus + 1) + quick);
    INFO(r.output);
    CHECK(r.rc == 1);
    CHECK(count_of(r.output, "error:") == gpus + 1);
    CHECK(count_of(r.output, "GPU " + std::to_string(gpus) + " missing") == gpus + 1);
    CHECK(r.seconds < 30);
  }
  char dir_template[] = "/tmp/tut40-gpu-test-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template;
  {  // mismatched world sizes (both ranks use GPU 0: the rendezvous refuses before NCCL)
    const Ran r = run_shell("(TUT_RANK=0 TUT_WORLD_SIZE=2 TUT_LOCAL_RANK=0 TUT_RENDEZVOUS=file:" + dir + "/w " +
                            program + quick + " & TUT_RANK=1 TUT_WORLD_SIZE=3 TUT_LOCAL_RANK=0 TUT_RENDEZVOUS=file:" +
                            dir + "/w " + program + quick + "; s=$?; wait $!; t=$?; [ $s -ne 0 ] && [ $t -ne 0 ])");
    INFO(r.output);
    CHECK(r.rc == 0);  // both ended non-zero
    CHECK(count_of(r.output, "error:") == 2);
    CHECK(count_of(r.output, "world size 3 but rank 0's is 2") == 2);
    CHECK(r.seconds < 30);
  }
  {  // a rendezvous that never completes: rank 1 alone, over TCP on the loopback
    const Ran r = run_shell("TUT_RANK=1 TUT_WORLD_SIZE=2 TUT_RENDEZVOUS=tcp:127.0.0.1:1 " + program + quick);
    INFO(r.output);
    CHECK(r.rc == 1);
    CHECK(count_of(r.output, "error:") == 1);
    CHECK(r.output.find("timed out") != std::string::npos);
    CHECK(r.seconds < 15);
  }
  {  // a corrupt rendezvous file, then malformed variables (usage: exit 2)
    std::ofstream(dir + "/corrupt") << "not a rendezvous record\n";
    const Ran r = run_shell("TUT_RANK=1 TUT_WORLD_SIZE=2 TUT_RENDEZVOUS=" + dir + "/corrupt " + program + quick);
    INFO(r.output);
    CHECK(r.rc == 1);
    CHECK(r.output.find("corrupt") != std::string::npos);
    CHECK(run_shell("TUT_RANK=2 TUT_WORLD_SIZE=2 TUT_RENDEZVOUS=" + dir + "/x " + program + quick).rc == 2);
    CHECK(run_shell("TUT_RANK=0 TUT_WORLD_SIZE=2 " + program + quick).rc == 2);
    CHECK(run_shell(program + " --ranks 2 --gpus 2").rc == 2);
  }
  std::filesystem::remove_all(dir);
}
