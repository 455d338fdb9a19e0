// GPU tests for chapter 02: every experiment's kernels against their CPU references, with poisoned
// outputs, at awkward sizes; the residency each experiment relies on, from the occupancy calculator;
// and the programs' command lines.
#define TUT_CHAPTER_NO_MAIN
#include "bandwidth.cu"
#include "barrier.cu"
#include "exchange.cu"
#include "fma.cu"
#include "latency.cu"
#include "mimd.cu"

#include "gpu_test.cuh"

using tut::testing::adversarial_sizes;
using tut::testing::check_all_variants;
using tut::testing::run_chapter_with;
using tut::testing::under_sanitizer;

namespace {

// Step counts for the chain experiments: the loop remainders (unrolled by 16 to 128 steps) and a
// few whole iterations. Compute-sanitizer runs kernels far slower, so it gets the short ones.
std::vector<std::uint64_t> step_counts(std::vector<std::uint64_t> longer) {
  std::vector<std::uint64_t> s = {0, 1, 2, 15, 16, 17, 31, 33, 127, 128, 129};
  if (!under_sanitizer()) s.insert(s.end(), longer.begin(), longer.end());
  return s;
}

// Runs an experiment's main() path (run_experiment) with these arguments.
int run_main(const tut::ChapterSpec& spec, const principles::SummaryFn& summary, std::vector<std::string> args) {
  args.insert(args.begin(), spec.id);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return principles::run_experiment(static_cast<int>(args.size()), argv.data(), spec, summary);
}

}  // namespace

// ---- Experiment 1 -------------------------------------------------------------------------------
TEST_CASE("02 fma: every chain count computes the article's chain, to the bit") {
  const auto spec = fma_experiment::spec();
  check_all_variants(spec, step_counts({1023, 1025, 4097}), {{"blocks-per-sm", 1}});
  // The default launch (a full wave of resident blocks) at a length that is not a whole iteration.
  check_all_variants(spec, {129, under_sanitizer() ? 257u : 8193u});
}

TEST_CASE("02 fma: peak formula and clock probe") {
  tut::require_supported_gpu();
  const tut::DeviceInfo d = tut::query_device();
  const principles::Fp32Lanes lanes = principles::fp32_lanes_per_sm(d.cc_major, d.cc_minor);
  CHECK(lanes.lanes > 0);
  if (!lanes.known) MESSAGE("compute capability " << d.cc_major << "." << d.cc_minor << " is not in the lanes table");
  const double mhz = fma_experiment::measured_sm_clock_mhz();
  MESSAGE("SM clock under FMA load: " << mhz << " MHz; boost clock " << d.sm_clock_khz / 1000 << " MHz");
  CHECK(mhz > 100.0);
  CHECK(mhz < 1.5 * d.sm_clock_khz / 1000.0);
}

// ---- Experiment 2 -------------------------------------------------------------------------------
TEST_CASE("02 latency: FMA chains and pointer chases at every warp count") {
  const auto spec = latency_experiment::spec();
  // A small chase array keeps the tests quick (it then lives in L2; the check is the same).
  check_all_variants(spec, step_counts({1025, 4097}), {{"chase-mib", 4}});
  check_all_variants(spec, {0, 129}, {{"chase-mib", 1}, {"chains", 8}});
}

TEST_CASE("02 latency: each variant puts the asked-for warps on every SM") {
  tut::require_supported_gpu();
  const tut::DeviceInfo d = tut::query_device();
  for (int chains : {1, 8}) {
    for (const auto& v : latency_experiment::variants()) {
      latency_experiment::setup_variant(v, chains);
      const principles::Residency r = latency_experiment::residency(v, chains);
      INFO(v.name << " with " << chains << " chain(s): " << r.resident << " resident blocks of " << r.block_threads
                  << " threads (" << r.unconstrained << " without the " << r.dynamic_smem
                  << " bytes of dynamic shared memory)");
      CHECK(r.blocks_per_sm * r.block_threads == v.warps * principles::kWarpSize);
      // The shared memory caps residency at the asked-for blocks and takes nothing more away.
      CHECK(r.resident == std::min(r.blocks_per_sm, r.unconstrained));
      // On the target GPU (H100/H200: 64 warps and 65536 registers per SM) every warp count fits.
      if (d.cc_major == 9 && d.cc_minor == 0) CHECK(r.as_intended());
    }
  }
}

TEST_CASE("02 latency: bad options") {
  const auto spec = latency_experiment::spec();
  CHECK(run_chapter_with(spec, {"--chains", "3"}) == 2);
  CHECK(run_chapter_with(spec, {"--chase-mib", "3"}) == 2);
  CHECK(run_chapter_with(spec, {"--size", "2^41"}) == 2);
}

// ---- Experiment 3 -------------------------------------------------------------------------------
TEST_CASE("02 barrier: barriers leave the chains unchanged at every ratio and residency") {
  const auto spec = barrier_experiment::spec();
  check_all_variants(spec, step_counts({63, 64, 65, 1025, 4097}));
  check_all_variants(spec, {65}, {{"warps-per-sm", 4}});
  check_all_variants(spec, {65}, {{"warps-per-sm", 32}});
}

TEST_CASE("02 barrier: the occupancy calculator confirms 1, 2 and 4 resident blocks per SM") {
  tut::require_supported_gpu();
  for (int warps : {4, 16, 32}) {
    for (const auto& v : barrier_experiment::variants()) {
      barrier_experiment::setup_variant(v);
      const principles::Residency r = barrier_experiment::residency(v, warps);
      INFO(v.name << " at " << warps << " warps/SM: blocks of " << r.block_threads << " threads, "
                  << r.dynamic_smem << " bytes of dynamic shared memory");
      CHECK(r.resident == v.blocks_per_sm);
      CHECK(r.resident_warps() == warps);
    }
  }
  CHECK(run_chapter_with(barrier_experiment::spec(), {"--warps-per-sm", "6"}) == 2);
}

// A kernel of this test alone, whose set-up no other test has run.
__global__ void kernel_never_set_up(float* out) { out[threadIdx.x] = 0.0f; }

TEST_CASE("02: residency before setup_shared_memory throws; after it, the calculator is asked") {
  tut::require_supported_gpu();
  int device = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  const std::string message =
      "02-gpu-principles: setup_shared_memory() was not called on device " + std::to_string(device);
  CHECK_THROWS_WITH_AS(principles::plan_residency(kernel_never_set_up, 128, 1), message.c_str(), std::logic_error);
  principles::setup_shared_memory(kernel_never_set_up);
  principles::setup_shared_memory(kernel_never_set_up);  // idempotent
  const principles::Residency r = principles::plan_residency(kernel_never_set_up, 128, 1);
  CHECK(r.resident == 1);
  CHECK(r.unconstrained > 1);
}

// ---- Experiment 4 -------------------------------------------------------------------------------
TEST_CASE("02 bandwidth: copies are exact at every width, block and size") {
  // 2^31 + 5 floats: indices past 2^31, a partial vector at the end (skipped if memory is short).
  check_all_variants(bandwidth_experiment::spec(), adversarial_sizes({3, 5, 7, (1u << 26) + 3, (1ull << 31) + 5}));
}

// ---- Experiment 5 -------------------------------------------------------------------------------
TEST_CASE("02 mimd: each thread runs its own path") {
  check_all_variants(mimd_experiment::spec(), step_counts({1025, 4097}));
}

TEST_CASE("02 exchange: full and halved buffers give the same exact transposes") {
  const auto spec = exchange_experiment::spec();
  const std::vector<std::uint64_t> sizes =
      adversarial_sizes({2047, 2048, 2049, 3 * 2048, 3 * 2048 + 1, (1u << 26) + 2048 + 7});
  for (long long rounds : {1LL, 2LL, 3LL}) {
    CAPTURE(rounds);
    check_all_variants(spec, sizes, {{"rounds", rounds}});
  }
  check_all_variants(spec, {(1ull << 31) + 2049}, {{"rounds", 2}});  // tiles past 2^31 elements
}

TEST_CASE("02 exchange: with tight shared memory, halving the buffer fits more blocks") {
  tut::require_supported_gpu();
  using exchange_experiment::find;
  exchange_experiment::setup_exchange();
  const std::size_t tight = exchange_experiment::tight_smem();
  const auto full = exchange_experiment::residency(find("full-buffer-tight-smem"), tight);
  const auto halved = exchange_experiment::residency(find("halved-buffer-tight-smem"), tight);
  MESSAGE("tight: " << tight << " bytes extra; full " << full.resident << " block(s)/SM, halved " << halved.resident);
  CHECK(full.resident == 1);
  CHECK(halved.resident >= 2);
  const auto full_default = exchange_experiment::residency(find("full-buffer"), tight);
  const auto halved_default = exchange_experiment::residency(find("halved-buffer"), tight);
  MESSAGE("default: full " << full_default.resident << " block(s)/SM, halved " << halved_default.resident);
  CHECK(full_default.resident > full.resident);
}

// ---- The programs' command lines ------------------------------------------------------------------
TEST_CASE("02: every program runs, prints its summary and rejects bad input") {
  struct Program {
    tut::ChapterSpec spec;
    principles::SummaryFn summary;
    std::string size;
  };
  const std::vector<Program> programs = {
      {fma_experiment::spec(), fma_experiment::summary, "64"},
      {latency_experiment::spec(), latency_experiment::summary, "64"},
      {barrier_experiment::spec(), barrier_experiment::summary, "64"},
      {bandwidth_experiment::spec(), bandwidth_experiment::summary, "1M"},
      {mimd_experiment::spec(), mimd_experiment::summary, "64"},
      {exchange_experiment::spec(), exchange_experiment::summary, "1M"},
  };
  for (const auto& p : programs) {
    CAPTURE(p.spec.id);
    std::vector<std::string> extra;
    if (p.spec.id == "02-gpu-principles-latency") extra = {"--chase-mib", "4"};
    std::vector<std::string> args = {"--size", p.size, "--reps", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    CHECK(run_main(p.spec, p.summary, args) == 0);
    std::vector<std::string> json = args;
    json.push_back("--json");
    CHECK(run_main(p.spec, p.summary, json) == 0);
    CHECK(run_main(p.spec, p.summary, {"--variant", "nope"}) == 2);
    CHECK(run_main(p.spec, p.summary, {"--size", "2^60"}) == 2);
    CHECK(run_main(p.spec, p.summary, {"--list"}) == 0);
    CHECK(run_chapter_with(p.spec, {"--size", p.size, "--profile", "--variant", p.spec.variants.front().name}) == 0);
  }
}
