// Chapter 17: the decoupled look-back scan with the tile landing in shared memory (cp.async or bulk copies),
// rows in registers on top, and a pass 2 that scans the tile again. A plain run measures the stage (its tile shape
// chosen for this GPU by a plan: stage_plan.cuh), CUB and cudaMemcpy; the configurations measured to choose the
// stage are on demand (--variant NAME, --variant all).
#include <memory>
#include <string>
#include <vector>

#include "scan_reference.cuh"
#include "lab/landing_zone_options.cuh"  // the lesson's kernel and its options
#include "scan_lookback_landing_zone.cuh"
#include "stage_plan.cuh"
#include "landing_zone_units.hpp"
#include "../16-scan-decoupled-lookback-tuned/scan_decoupled_lookback_tuned.cuh"  // chapter 16's stage, on demand

namespace landing = scan_lookback_landing_zone;

// A configuration measured against the stage: run only when named (--variant NAME or all). Tuning: the
// lesson's kernel (scan_lookback_landing_zone.cuh); OptionsTuning: its general twin with bulk copies, offsets
// kept from pass 1 or programmatic launch (lab/landing_zone_options.cuh).
template <class Tuning>
tut::scan::ScanVariant config_variant(const std::string& name, const std::string& description) {
  return {name, description, landing::workspace_bytes_for<Tuning>,
          [](const std::int32_t* in, std::int32_t* out, std::size_t n, void* workspace, cudaStream_t stream) {
            landing::inclusive_scan_with<Tuning>(in, out, n, workspace, stream);
          },
          "", /*on_demand=*/true, landing::setup_inclusive_scan_with<Tuning>};
}
template <class OptionsTuning>
tut::scan::ScanVariant option_variant(const std::string& name, const std::string& description) {
  return {name, description, landing::workspace_bytes_for<OptionsTuning>,
          landing::inclusive_scan_options<OptionsTuning>, "", /*on_demand=*/true,
          landing::setup_inclusive_scan_options<OptionsTuning>};
}

// The stage: the plan's candidate for this GPU (stage_plan.cuh), chosen in the workload's set-up; the default shape
// until a plan runs (the tests that call the scan without the workload's set-up run that one).
tut::scan::ScanVariant planned_stage() {
  namespace plan = landing_zone_plan;
  const auto stage = std::make_shared<plan::PlannedStage>();
  tut::scan::ScanVariant v{
      "scan-lookback-landing-zone",
      "the stage: 192 threads x (48 int32 via cp.async + 32 in registers), pass 2 rescans, 6 blocks/SM, tiles from "
      "the atomic counter (= lookback-rescan-hybrid-cpasync-t192-s48-r32), or 128 threads at 9 blocks/SM "
      "(lookback-rescan-hybrid-cpasync-t128-s48-r32) where this GPU's plan says (the plan: line)",
      plan::workspace_bytes,
      [stage](const std::int32_t* in, std::int32_t* out, std::size_t n, void* workspace, cudaStream_t stream) {
        stage->scan(in, out, n, workspace, stream);
      },
      "", /*on_demand=*/false, plan::setup_candidates};
  v.plan = [stage](const std::int32_t* in, std::int32_t* out, std::size_t n, void* workspace) {
    stage->choice = plan::plan_stage(in, out, n, workspace).choice;
  };
  return v;
}

// The stage, then every configuration measured to choose it (under the names they were measured with, in
// chapter 16's program). staged-<copy>-t<threads>-i<items>: the whole tile in shared memory, per-vector
// offsets kept; hybrid-...-s<staged>-r<register items>: rows in registers on top; rescan-...: pass 2 scans
// the rows again (the lesson's design).
std::vector<tut::scan::ScanVariant> landing_zone_variants() {
  using landing::Launch;
  using landing::Offsets;
  using landing::OptionsTuning;
  using landing::Staging;
  using landing::TileOrder;
  using landing::Tuning;
  constexpr auto kCp = Staging::kCpAsync;
  constexpr auto kBulk = Staging::kBulkCopy;
  constexpr auto kCounter = TileOrder::kAtomicCounter;
  constexpr auto kIndex = TileOrder::kBlockIndex;
  constexpr auto kKept = Offsets::kKept;
  constexpr auto kRescan = Offsets::kRecomputed;
  return {
      planned_stage(),
      // 1. The whole tile in shared memory, offsets kept.
      option_variant<OptionsTuning<256, 32, 0, 0, kCp, kCounter, kKept>>("lookback-staged-cpasync-t256-i32",
                                                                         "256 threads x 32 int32 via cp.async"),
      option_variant<OptionsTuning<256, 32, 0, 0, kBulk, kCounter, kKept>>("lookback-staged-bulk-t256-i32",
                                                                           "sm_90+: 256 x 32 int32 via bulk copies"),
      option_variant<OptionsTuning<128, 32, 0, 0, kCp, kCounter, kKept>>("lookback-staged-cpasync-t128-i32",
                                                                         "128 threads x 32 int32 via cp.async"),
      option_variant<OptionsTuning<128, 48, 0, 0, kCp, kCounter, kKept>>("lookback-staged-cpasync-t128-i48",
                                                                         "128 threads x 48 int32 via cp.async"),
      option_variant<OptionsTuning<128, 48, 0, 0, kBulk, kCounter, kKept>>("lookback-staged-bulk-t128-i48",
                                                                           "sm_90+: 128 x 48 int32 via bulk copies"),
      option_variant<OptionsTuning<64, 96, 0, 0, kCp, kCounter, kKept>>("lookback-staged-cpasync-t64-i96",
                                                                        "64 threads x 96 int32 via cp.async"),
      option_variant<OptionsTuning<32, 128, 0, 0, kCp, kCounter, kKept>>("lookback-staged-cpasync-t32-i128",
                                                                         "32 threads x 128 int32 via cp.async"),
      option_variant<OptionsTuning<128, 48, 0, 0, kCp, kIndex, kKept>>("lookback-staged-cpasync-t128-i48-blockidx",
                                                                       "staged t128-i48 with tile = blockIdx.x"),
      // 2. Rows in registers on top (hybrids), offsets kept.
      option_variant<OptionsTuning<128, 48, 8, 0, kCp, kCounter, kKept>>("lookback-hybrid-cpasync-t128-s48-r8",
                                                                         "128 x (48 via cp.async + 8 in registers)"),
      option_variant<OptionsTuning<128, 48, 16, 0, kCp, kCounter, kKept>>("lookback-hybrid-cpasync-t128-s48-r16",
                                                                          "128 x (48 via cp.async + 16 in registers)"),
      // 3. Pass 2 scans the rows again: registers hold data only (the lesson's kernel from here on).
      config_variant<Tuning<128, 48, 0, 9>>("lookback-rescan-cpasync-t128-i48",
                                            "staged t128-i48, offsets recomputed in pass 2, 9 blocks/SM"),
      config_variant<Tuning<128, 48, 16, 9>>("lookback-rescan-hybrid-cpasync-t128-s48-r16",
                                             "128 x (48 via cp.async + 16 in registers), 9 blocks/SM"),
      config_variant<Tuning<128, 48, 24, 9>>("lookback-rescan-hybrid-cpasync-t128-s48-r24",
                                             "128 x (48 via cp.async + 24 in registers), 9 blocks/SM"),
      config_variant<Tuning<128, 48, 32, 9>>("lookback-rescan-hybrid-cpasync-t128-s48-r32",
                                             "128 x (48 via cp.async + 32 in registers), 9 blocks/SM"),
      config_variant<Tuning<128, 48, 40, 8>>("lookback-rescan-hybrid-cpasync-t128-s48-r40",
                                             "128 x (48 via cp.async + 40 in registers), 8 blocks/SM"),
      config_variant<Tuning<128, 40, 24, 10>>("lookback-rescan-hybrid-cpasync-t128-s40-r24",
                                              "128 x (40 via cp.async + 24 in registers), 10 blocks/SM"),
      option_variant<OptionsTuning<128, 48, 32, 9, kBulk>>("lookback-rescan-hybrid-bulk-t128-s48-r32",
                                                           "sm_90+: 128 x (48 via bulk copies + 32 in registers)"),
      config_variant<Tuning<128, 48, 32, 9, kIndex>>("lookback-rescan-hybrid-cpasync-t128-s48-r32-blockidx",
                                                     "rescan t128-s48-r32 with tile = blockIdx.x"),
      // 4. Block sizes, 48 + 32 items per thread, as many blocks per SM as registers and shared memory allow.
      config_variant<Tuning<64, 48, 32, 18>>("lookback-rescan-hybrid-cpasync-t64-s48-r32",
                                             "64 x (48 + 32), 17 blocks/SM (shared memory)"),
      config_variant<Tuning<96, 48, 32, 12>>("lookback-rescan-hybrid-cpasync-t96-s48-r32",
                                             "96 x (48 + 32), 11 blocks/SM (shared memory)"),
      config_variant<Tuning<160, 48, 32, 7>>("lookback-rescan-hybrid-cpasync-t160-s48-r32",
                                             "160 x (48 + 32), 7 blocks/SM"),
      config_variant<landing_zone_plan::StageTuning>("lookback-rescan-hybrid-cpasync-t192-s48-r32",
                                                     "192 x (48 + 32), 6 blocks/SM: the stage's default shape, fixed"),
      config_variant<Tuning<224, 48, 32, 5>>("lookback-rescan-hybrid-cpasync-t224-s48-r32",
                                             "224 x (48 + 32), 5 blocks/SM"),
      config_variant<Tuning<256, 48, 32, 4>>("lookback-rescan-hybrid-cpasync-t256-s48-r32",
                                             "256 x (48 + 32), 4 blocks/SM"),
      config_variant<Tuning<160, 48, 32, 7, kIndex>>("lookback-rescan-hybrid-cpasync-t160-s48-r32-blockidx",
                                                     "rescan t160-s48-r32 with tile = blockIdx.x"),
      config_variant<Tuning<192, 48, 32, 6, kIndex>>("lookback-rescan-hybrid-cpasync-t192-s48-r32-blockidx",
                                                     "the stage with tile = blockIdx.x (CUB's choice)"),
      // 5. The look-back's backoff (the default: 64 ns, doubling up to 512 ns).
      config_variant<Tuning<128, 48, 32, 9, kCounter, 16, 128>>(
          "lookback-rescan-hybrid-cpasync-t128-s48-r32-sleep16-128", "rescan t128-s48-r32, backoff 16-128 ns"),
      config_variant<Tuning<128, 48, 32, 9, kCounter, 128, 1024>>(
          "lookback-rescan-hybrid-cpasync-t128-s48-r32-sleep128-1024", "rescan t128-s48-r32, backoff 128-1024 ns"),
      // 6. Programmatic dependent launch (sm_90+): the scan starts while the status reset is still running.
      option_variant<OptionsTuning<128, 48, 32, 9, kCp, kCounter, kRescan, Launch::kProgrammatic>>(
          "lookback-rescan-hybrid-cpasync-t128-s48-r32-pdl",
          "rescan t128-s48-r32, launched to overlap the status reset (waits before taking a tile)"),
      option_variant<OptionsTuning<128, 48, 32, 9, kCp, kIndex, kRescan, Launch::kProgrammatic>>(
          "lookback-rescan-hybrid-cpasync-t128-s48-r32-blockidx-pdl",
          "the same with tile = blockIdx.x: loads the tile first, waits for the reset before the look-back"),
  };
}

// The stage and its configurations (the tests loop over them), then chapter 16's stage on demand: the first table's
// row for the previous stage, timed in this process.
std::vector<tut::scan::ScanVariant> with_previous_stage() {
  std::vector<tut::scan::ScanVariant> variants = landing_zone_variants();
  variants.push_back({"scan-decoupled-lookback-tuned", "chapter 16's stage, to compare in one run",
                      scan_decoupled_lookback_tuned::workspace_bytes, scan_decoupled_lookback_tuned::inclusive_scan,
                      "", /*on_demand=*/true});
  return variants;
}

// What the GPU test calls directly (landing_zone_units.hpp says why it is wrapped here).
namespace landing_zone_units {

std::vector<std::string> plan_candidates() { return landing_zone_plan::kCandidates; }

void setup_inclusive_scan() { landing::setup_inclusive_scan(); }
std::size_t workspace_bytes(std::size_t n) { return landing::workspace_bytes(n); }
void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                    cudaStream_t stream, std::int32_t carry_in) {
  landing::inclusive_scan(d_in, d_out, n, d_workspace, stream, carry_in);
}

tut::scan::ScanVariant fresh_config_variant() {
  using Fresh = landing::Tuning<64, 16, 8, 0>;  // 1536-element tiles
  return config_variant<Fresh>("fresh-t64-s16-r8", "test-only tuning");
}
tut::scan::ScanVariant fresh_option_variant() {
  using FreshOptions = landing::OptionsTuning<64, 16, 8, 0, landing::Staging::kBulkCopy>;
  return option_variant<FreshOptions>("fresh-options", "test-only tuning");
}

}  // namespace landing_zone_units

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter("17-scan-lookback-landing-zone",
                                      "single-pass look-back scan: tiles land in shared memory, rows in registers",
                                      with_previous_stage());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
