// What main.cu, compiled once into the units library (meson.build), gives the GPU test: the chapter's variants and,
// for the test's look inside the stage, the kernel header's host functions it calls, wrapped in plain functions.
// The test calls these instead of including fft_two_pass.cuh or stage_plan.cuh: a header's inline function that
// sets up or launches a kernel template would compile that kernel again in the test, even where nothing calls it.
// main.cu includes this file too, so that each definition is checked against its declaration.
#pragma once

#include <cstddef>
#include <vector>

#include "fft_chapter.cuh"

// The stage first (planned for this GPU), the two-pass path at every length it has, chapter 37's stage, then the
// launch-shape candidates w8 and w16.
std::vector<tut::fft::FftVariant> two_pass_variants();
// The same with their one-time set-up done on the current device (for tests that launch directly).
std::vector<tut::fft::FftVariant> two_pass_variants_set_up();
tut::ChapterSpec chapter_spec();

namespace two_pass_units {

// fft_two_pass::setup_fft_two_pass(): the set-up of every configuration and of the shorter lengths' stages.
void setup_fft_two_pass();
// fft_two_pass::stage_choice(log2n): the stage's plan candidates at 2^log2n, the default first (after set-up).
tut::fft::FftChoice stage_choice(int log2n);
// fft_cluster::clusters_supported() and fft_two_pass::cluster_fits(log2n): whether the current device has
// thread-block clusters, and whether they hold chapter 37's stage kernel at 2^log2n (15 or 16).
bool clusters_supported();
bool cluster_fits(int log2n);
// fft_two_pass::opt_in_shared_bytes(): the opt-in shared memory per block of the current device, in bytes.
int opt_in_shared_bytes();
// fft_two_pass::stage_workspace_bytes(log2n, batch): the stage's workspace.
std::size_t stage_workspace_bytes(int log2n, long long batch);
// fft_two_pass::StageTwoPass::shared_bytes(log2n): shared memory per block of the stage's larger pass at 2^log2n.
std::size_t stage_two_pass_shared_bytes(int log2n);
// The stage's two-pass configuration (StageTwoPass) as an on-demand variant "stage-two-pass", 2^12 .. 2^22: its
// workspace_bytes, set_up and launch.
tut::fft::FftVariant stage_two_pass_variant();
// A configuration that nothing but the test of a launch before set-up uses, TwoPass<Shape<16>, 12, 13>, as the
// variant "fresh", 2^12 .. 2^13: its per-device record is empty whatever the other cases set up.
tut::fft::FftVariant fresh_two_pass_variant();

}  // namespace two_pass_units
