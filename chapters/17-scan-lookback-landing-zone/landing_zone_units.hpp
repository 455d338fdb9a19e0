// What main.cu, compiled once into the units library (meson.build), gives the GPU test: the chapter's variants and
// the stage's entry points the test calls directly, as plain functions. The test calls these instead of including
// the kernel headers: a header's inline function that sets up or launches a kernel template would compile that
// kernel again in the test, even where nothing calls it. main.cu includes this file too, so that each definition
// is checked against its declaration.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "scan_reference.cuh"  // tut::scan::ScanVariant, tut::ChapterSpec

tut::ChapterSpec chapter_spec();
// The stage, then every configuration measured to choose it.
std::vector<tut::scan::ScanVariant> landing_zone_variants();

namespace landing_zone_units {

// landing_zone_plan::kCandidates (stage_plan.cuh): the stage plan's candidates, the default first.
std::vector<std::string> plan_candidates();

// The stage's entry points (scan_lookback_landing_zone::setup_inclusive_scan, workspace_bytes, inclusive_scan:
// DefaultTuning); carry_in is added to every output.
void setup_inclusive_scan();
std::size_t workspace_bytes(std::size_t n);
void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                    cudaStream_t stream, std::int32_t carry_in);

// Tunings of their own, which only the test of a launch before its set-up uses (nothing else sets them up):
// Tuning<64, 16, 8, 0> as "fresh-t64-s16-r8" (the lesson's kernel), and OptionsTuning<64, 16, 8, 0, kBulkCopy> as
// "fresh-options" (the lab options' kernel), both "test-only tuning" and on demand.
tut::scan::ScanVariant fresh_config_variant();
tut::scan::ScanVariant fresh_option_variant();

}  // namespace landing_zone_units
