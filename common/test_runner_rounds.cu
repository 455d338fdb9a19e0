// GPU test of the runner's --rounds: every variant set up and checked before any is timed, then the rows timed
// in alternating rounds, and each ratio given as its median over the rounds with their range. A fixture whose
// second variant does three times the work of the first must come out near 1/3, inside its own range, and a
// chapter that holds one variant at a time must refuse --rounds with a usage error.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "device_random.cuh"
#include "gpu_test.cuh"
#include "verify.hpp"

namespace {

__global__ void add_one_kernel(const std::int32_t* in, std::int32_t* out, std::size_t n) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = in[i] + 1;
}

// "one-pass" writes out = in + 1 once; "three-passes" writes it three times (the same result, three times the
// bytes). events: what the runner asked of the workload, in order.
class PassesWorkload final : public tut::Workload {
 public:
  explicit PassesWorkload(std::shared_ptr<std::vector<std::string>> events) : events_(std::move(events)) {}
  std::size_t device_bytes(const tut::Options& opt) const override { return 2 * opt.size * sizeof(std::int32_t); }
  void prepare(const tut::Options& opt, bool) override {
    n_ = opt.size;
    const std::vector<std::int32_t> host = tut::random_integers<std::int32_t>(n_, opt.seed);
    expected_.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) expected_[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(host[i]) + 1u);
    in_ = tut::DeviceBuffer<std::int32_t>(host);
    out_ = tut::DeviceBuffer<std::int32_t>(n_);
  }
  void setup(const std::string& variant) override { events_->push_back("setup " + variant); }
  void poison(cudaStream_t stream) override { out_.poison(stream); }
  void run(const std::string& variant, cudaStream_t stream) override {
    const int passes = variant == "three-passes" ? 3 : 1;
    for (int p = 0; p < passes; ++p) {
      add_one_kernel<<<264, 256, 0, stream>>>(in_.data(), out_.data(), n_);
      TUT_CHECK_LAUNCH();
    }
  }
  tut::CheckResult check(const std::string&) override { return tut::compare_exact(expected_, out_.download()); }
  tut::Work work(const std::string& variant) const override {
    return {(variant == "three-passes" ? 3.0 : 1.0) * 2.0 * static_cast<double>(n_) * sizeof(std::int32_t), 0.0};
  }
  void finish(const std::string& variant) override { events_->push_back("finish " + variant); }
  std::size_t memcpy_bytes() const override { return n_ * sizeof(std::int32_t); }

 private:
  std::shared_ptr<std::vector<std::string>> events_;
  std::size_t n_ = 0;
  tut::DeviceBuffer<std::int32_t> in_, out_;
  std::vector<std::int32_t> expected_;
};

tut::ChapterSpec passes_spec(std::shared_ptr<std::vector<std::string>> events) {
  tut::ChapterSpec spec;
  spec.id = "rounds-fixture";
  spec.title = "one pass against three";
  spec.default_size = "2^22";
  for (const char* name : {"one-pass", "three-passes"}) {
    tut::VariantSpec v;
    v.name = name;
    v.description = std::string("fixture: ") + name;
    spec.variants.push_back(v);
  }
  spec.ratio_to = "one-pass";
  spec.make_workload = [events] { return std::make_unique<PassesWorkload>(events); };
  return spec;
}

tut::Options options(int rounds) {
  tut::Options opt;
  opt.size = std::uint64_t{1} << 22;  // 16 MiB each way: DRAM-bound, a few tens of microseconds a pass
  opt.seed = tut::testing::test_seed();
  opt.budget_ms = 60;
  opt.rounds = rounds;
  return opt;
}

const tut::Result& row(const std::vector<tut::Result>& rows, const std::string& name) {
  for (const auto& r : rows)
    if (r.variant == name) return r;
  throw std::runtime_error("no row " + name);
}

}  // namespace

TEST_CASE("--rounds: set-up and checks first, then alternating rounds; each ratio with its range over them") {
  auto events = std::make_shared<std::vector<std::string>>();
  const std::vector<tut::Result> rows = tut::measure_chapter(passes_spec(events), options(7));
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].variant == "cudaMemcpy");
  for (const auto& r : rows) CHECK_MESSAGE(!r.failed, r.check);
  // Both variants set up before either is finished (timed in between).
  CHECK(*events == std::vector<std::string>{"setup one-pass", "setup three-passes", "finish one-pass",
                                            "finish three-passes"});
  const tut::Result& one = row(rows, "one-pass");
  const tut::Result& three = row(rows, "three-passes");
  CHECK(one.rounds == 7);
  CHECK(one.speed_vs_ref == 1.0);  // itself, in every round
  CHECK(one.speed_min == 1.0);
  CHECK(one.speed_max == 1.0);
  CHECK(three.rounds == 7);
  CHECK(three.speed_min <= three.speed_vs_ref);
  CHECK(three.speed_vs_ref <= three.speed_max);
  CHECK(three.speed_vs_ref > 0.2);  // three times the bytes: near 1/3
  CHECK(three.speed_vs_ref < 0.5);
  CHECK(three.speed_max < 0.6);
  for (const auto& r : rows) CHECK(r.time.reps >= 7);  // at least one repetition a round, pooled
  CHECK(rows[0].pct_memcpy == 100.0);
  // The share of the copy, paired by round too: one pass moves the copy's bytes, at a copy's pace or near it.
  CHECK(one.pct_memcpy > 30.0);
  CHECK(one.pct_memcpy < 200.0);
}

TEST_CASE("one block each without --rounds: no paired range; set-up and finish variant after variant") {
  auto events = std::make_shared<std::vector<std::string>>();
  const std::vector<tut::Result> rows = tut::measure_chapter(passes_spec(events), options(1));
  CHECK(*events == std::vector<std::string>{"setup one-pass", "finish one-pass", "setup three-passes",
                                            "finish three-passes"});
  for (const auto& r : rows) {
    CHECK(r.rounds == 0);
    CHECK(r.speed_min == 0.0);
  }
  CHECK(row(rows, "three-passes").speed_vs_ref < 0.5);
}

TEST_CASE("a chapter that holds one variant at a time refuses --rounds with a usage error") {
  auto events = std::make_shared<std::vector<std::string>>();
  tut::ChapterSpec spec = passes_spec(events);
  spec.one_variant_at_a_time = true;
  CHECK_THROWS_AS(tut::measure_chapter(spec, options(3)), tut::UsageError);
  CHECK(events->empty());
  CHECK(tut::testing::run_chapter_with(spec, {"--rounds", "3"}) == 2);
  CHECK(tut::testing::run_chapter_with(spec, {"--rounds", "1", "--budget-ms", "20"}) == 0);
}
