// GPU tests for chapter 17: the scan-chapter tests for the stage and every on-demand configuration, plus sizes
// at each configuration's tile boundaries, repeated runs on one workspace, buffers that are not 16-byte
// aligned (the element-by-element path) and the carry-in of the stage's launcher.
#include "landing_zone_units.hpp"  // main.cu, compiled once into the units library: the test compiles no kernel
#include "lookback_testing.cuh"     // chapter 15's helpers (the include path is set in meson.build)
#include "plan_testing.cuh"
#include "scan_testing.cuh"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

// The sizes of 2^28 and more (lookback_testing::scan_sizes_where(true)) run for one configuration per code path:
// cp.async with rows in registers and the rescan (the stage), the whole tile staged with offsets kept, bulk
// copies, and tile = blockIdx.x with programmatic launch. The index arithmetic is the same code for every shape.
const std::vector<std::string> kOneConfigPerPath = {
    "scan-lookback-landing-zone", "lookback-staged-cpasync-t128-i48", "lookback-rescan-hybrid-bulk-t128-s48-r32",
    "lookback-rescan-hybrid-cpasync-t128-s48-r32-blockidx-pdl"};  // (CUB: chapters 05-13 and 15 check it)

// Every variant's tile (threads x (staged + register items)), to test the sizes around it for the variants
// that have it.
using lookback_testing::TileOf;
const std::vector<TileOf> kTiles = {
    {4096, {"lookback-staged-cpasync-t128-i32", "lookback-staged-cpasync-t32-i128"}},
    {5120, {"lookback-rescan-hybrid-cpasync-t64-s48-r32"}},
    {6144,
     {"lookback-staged-cpasync-t128-i48", "lookback-staged-bulk-t128-i48", "lookback-staged-cpasync-t64-i96",
      "lookback-staged-cpasync-t128-i48-blockidx", "lookback-rescan-cpasync-t128-i48"}},
    {7168, {"lookback-hybrid-cpasync-t128-s48-r8"}},
    {7680, {"lookback-rescan-hybrid-cpasync-t96-s48-r32"}},
    {8192,
     {"lookback-staged-cpasync-t256-i32", "lookback-staged-bulk-t256-i32", "lookback-hybrid-cpasync-t128-s48-r16",
      "lookback-rescan-hybrid-cpasync-t128-s48-r16", "lookback-rescan-hybrid-cpasync-t128-s40-r24"}},
    {9216, {"lookback-rescan-hybrid-cpasync-t128-s48-r24"}},
    {10240,
     {"lookback-rescan-hybrid-cpasync-t128-s48-r32", "lookback-rescan-hybrid-bulk-t128-s48-r32",
      "lookback-rescan-hybrid-cpasync-t128-s48-r32-blockidx", "lookback-rescan-hybrid-cpasync-t128-s48-r32-sleep16-128",
      "lookback-rescan-hybrid-cpasync-t128-s48-r32-sleep128-1024", "lookback-rescan-hybrid-cpasync-t128-s48-r32-pdl",
      "lookback-rescan-hybrid-cpasync-t128-s48-r32-blockidx-pdl"}},
    {11264, {"lookback-rescan-hybrid-cpasync-t128-s48-r40"}},
    {12800, {"lookback-rescan-hybrid-cpasync-t160-s48-r32", "lookback-rescan-hybrid-cpasync-t160-s48-r32-blockidx"}},
    {15360,
     {"scan-lookback-landing-zone", "lookback-rescan-hybrid-cpasync-t192-s48-r32",
      "lookback-rescan-hybrid-cpasync-t192-s48-r32-blockidx"}},
    {17920, {"lookback-rescan-hybrid-cpasync-t224-s48-r32"}},
    {20480, {"lookback-rescan-hybrid-cpasync-t256-s48-r32"}},
};

// This process plans in a folder of its own (no test reads a plan another run cached).
const tut::testing::ScopedPlanDir kTestPlans;

// A size where the stage's plan is measured on an H100 or H200 (more than one wave of tiles; both candidates keep
// the copy's bytes in flight), and the stage alone, through the chapter's workload (set-up, plan, checked run).
constexpr std::uint64_t kMeasuredPlanSize = std::uint64_t{1} << 26;
void check_stage_at(std::uint64_t n) {
  tut::testing::check_all_variants(tut::testing::only_variants(chapter_spec(), {"scan-lookback-landing-zone"}), {n});
}

// Sizes for the repeated-run tests: smaller under a sanitizer, which runs kernels tens of times slower.
std::vector<std::uint64_t> repeated_run_sizes() {
  if (tut::testing::under_sanitizer()) return {1, 4097, 12 * 15360 + 17};
  return {1, 4097, 100 * 15360 + 17, (std::uint64_t{1} << 22) + 3};
}

}  // namespace

TEST_CASE("every variant matches the CPU reference at adversarial sizes below 2^28") {
  tut::testing::check_all_variants(chapter_spec(), lookback_testing::scan_sizes_where(false));
}

TEST_CASE("one configuration per code path at 2^28, 2^30 + 1025 and 2^31 + 1025 (64-bit indexing)") {
  tut::testing::check_all_variants(tut::testing::only_variants(chapter_spec(), kOneConfigPerPath),
                                   lookback_testing::scan_sizes_where(true));
}

TEST_CASE("17: sizes at the tile boundaries of every configuration") {
  lookback_testing::check_tile_boundaries(chapter_spec(), kTiles, landing_zone_variants().size());
}

TEST_CASE("17: repeated runs on one workspace give the same, correct result") {
  lookback_testing::check_repeated_runs_all(landing_zone_variants(), repeated_run_sizes());
}

TEST_CASE("17: buffers that are not 16-byte aligned take the element-by-element path") {
  for (const auto& variant : landing_zone_variants()) lookback_testing::check_repeated_runs(variant, 5 * 8192 + 3, 1);
  const auto stage = landing_zone_variants().front();
  for (std::size_t offset : {2u, 3u, 4u}) lookback_testing::check_repeated_runs(stage, 20 * 15360 + 1, offset);
}

TEST_CASE("17: buffers 16 bytes past a 256-byte boundary keep the cp.async and bulk-copy paths") {
  // 4 elements = 16 bytes: aligned enough for int4, cp.async and cp.async.bulk, but not for a 128-byte line.
  const std::uint64_t n = tut::testing::under_sanitizer() ? 12 * 15360 + 4 * 1024 + 12 : 160 * 15360 + 4 * 1024 + 12;
  for (const auto& variant : landing_zone_variants()) lookback_testing::check_repeated_runs(variant, n, 4);
}

TEST_CASE("17: n = 0 enqueues nothing") {
  lookback_testing::check_empty_scans(landing_zone_variants());
}

// The launcher's carry_in (what a multi-GPU scan passes to continue the scan of the previous device's part) is
// added to every output, with wrap-around. Tile 0 starts from it, so every look-back carries it.
TEST_CASE("17: carry_in is added to every output") {
  tut::require_supported_gpu();
  namespace lz = landing_zone_units;  // scan_lookback_landing_zone's stage entry points, from main.cu
  lz::setup_inclusive_scan();
  for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{15360 + 1}, std::uint64_t{40 * 15360 + 17}}) {
    for (std::int32_t carry : {std::int32_t{0}, std::int32_t{12345}, std::int32_t{-7}, std::int32_t{INT32_MAX}}) {
      CAPTURE(n);
      CAPTURE(carry);
      const std::vector<std::int32_t> host = tut::random_integers<std::int32_t>(n, tut::testing::test_seed() + n);
      std::vector<std::int32_t> expected(n);
      tut::scan::cpu_inclusive_scan(host.data(), expected.data(), n);
      for (auto& e : expected)
        e = static_cast<std::int32_t>(static_cast<std::uint32_t>(e) + static_cast<std::uint32_t>(carry));
      tut::DeviceBuffer<std::int32_t> in(host);
      tut::DeviceBuffer<std::int32_t> out(n);
      tut::DeviceBuffer<unsigned char> workspace(lz::workspace_bytes(n));
      for (int run = 0; run < 2; ++run) {  // a poisoned workspace, then the one the first run left
        out.poison();
        if (run == 0) workspace.poison();
        lz::inclusive_scan(in.data(), out.data(), n, workspace.data(), 0, carry);
        TUT_CUDA_CHECK(cudaDeviceSynchronize());
        const tut::CheckResult result = tut::compare_exact(expected, out.download());
        CHECK_MESSAGE(result.ok, result.message());
      }
    }
  }
}

// The one-time set-up leaves the launch: without setup_inclusive_scan_with<T>() (or the lab options' set-up) on
// this device the launch throws and enqueues nothing; after it the scan is correct. Tunings of their own, which
// no other test sets up.
TEST_CASE("17: a launch before its set-up throws; after set-up it is correct") {
  // Tuning<64, 16, 8, 0> (1536-element tiles) and its options twin with bulk copies, from main.cu.
  const tut::scan::ScanVariant fresh = landing_zone_units::fresh_config_variant();
  tut::scan::check_setup_required(fresh, "scan_lookback_landing_zone", "setup_inclusive_scan_with<Tuning>",
                                  33 * 1536 + 7);
  const tut::scan::ScanVariant fresh_options = landing_zone_units::fresh_option_variant();
  tut::scan::check_setup_required(fresh_options, "scan_lookback_landing_zone (lab options)",
                                  "setup_inclusive_scan_options<Tuning>", 33 * 1536 + 7);
}

// The plan (stage_plan.cuh): each candidate is a variant of its own (tested above like every variant), each is what
// the stage runs when a cached plan names it, and a cached plan naming a shape the stage does not have is ignored
// with one line and measured again.
TEST_CASE("17: the plan's candidates are the chapter's variants, and the stage runs each one a cached plan names") {
  tut::require_supported_gpu();
  const std::vector<std::string> candidates = landing_zone_units::plan_candidates();  // landing_zone_plan::kCandidates
  for (const auto& c : candidates) {
    CAPTURE(c);
    const auto variants = landing_zone_variants();
    CHECK(std::any_of(variants.begin(), variants.end(), [&](const auto& v) { return v.name == c; }));
  }
  tut::testing::check_each_cached_choice(candidates, [] { check_stage_at(kMeasuredPlanSize); });
}

TEST_CASE("17: a cached plan naming a candidate the stage does not have is ignored and planned again") {
  tut::require_supported_gpu();
  tut::testing::check_unknown_candidate_is_replanned([] { check_stage_at(kMeasuredPlanSize); });
}

TEST_CASE("17: one wave of tiles is the model's: the default shape, nothing measured") {
  tut::require_supported_gpu();
  const tut::testing::ScopedPlanDir dir;
  const std::string line = tut::testing::plan_line_of([] { check_stage_at(15360 + 1); });
  CHECK(line.find(": lookback-rescan-hybrid-cpasync-t192-s48-r32 (model: one wave of tiles") != std::string::npos);
  CHECK(dir.files().empty());
}
