// What main.cu, compiled once into the units library (meson.build), gives the GPU test: the chapter's variants with
// the shared memory per block each needs, and which of the stage's candidates this GPU holds. The test declares
// nothing of its own and includes no kernel header, so it compiles none of the kernels again; main.cu includes this
// file too, so that each definition is checked against its declaration.
#pragma once

#include <string>
#include <vector>

#include "gemm/gemm_workload.cuh"
#include "runner.cuh"

// A variant and the shared memory per block its kernel needs (the tests skip a candidate the GPU cannot
// hold: sm_75 allows 64 KiB per block).
struct TunedVariant {
  tut::gemm::GemmVariant variant;
  int shared_bytes;
};

// The stage, then every candidate configuration and the two off-switches.
std::vector<TunedVariant> tuned_candidates();

// The stage's candidates, among `all`, that this GPU can hold (shared memory per block), the default first.
std::vector<std::string> stage_candidates_that_fit(const std::vector<TunedVariant>& all);

tut::ChapterSpec chapter_spec();
