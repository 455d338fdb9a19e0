// Chapter 27: the tuned SGEMM for sm_90. Chapter 26's kernel as a template over its tile shapes,
// pipeline depth and block order; the stage is the configuration that measured fastest, or on another GPU the one
// its plan measures fastest among three (TunedStage below); the other candidates stay runnable (--variant all) so
// the choice can be re-measured on any GPU. Chapter 26's stage on demand, to compare in one run.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../26-sgemm-double-buffering/sgemm_double_buffering.cuh"
#include "gemm/gemm_plan.cuh"
#include "gemm/gemm_workload.cuh"
#include "sgemm_tuned.cuh"
#include "tuned_candidates.hpp"

namespace {

// The candidates. Name: tuned-<block M x N x K>-w<warp M x N>-t<thread M x N>-s<stages>[-g<band>]. (The two
// ablation variants, tuned-two-barriers and tuned-no-copy-plan, are the stage's configuration: see below.)
//                                     BM   BN  BK  WM  WN lanesM stages groupM minBlocks
using Tile128x128x8_W32x64_S2 = sgemm_tuned::TileConfig<128, 128, 8, 32, 64, 4, 2, 1, 2>;
using Tile128x128x8_W32x64_S3 = sgemm_tuned::TileConfig<128, 128, 8, 32, 64, 4, 3, 1, 2>;
using Tile128x128x16_W32x64_S3 = sgemm_tuned::TileConfig<128, 128, 16, 32, 64, 4, 3, 1, 2>;
using Tile128x128x16_W32x64_S3_G8 = sgemm_tuned::TileConfig<128, 128, 16, 32, 64, 4, 3, 8, 2>;
using Tile128x128x16_W64x32_S3 = sgemm_tuned::TileConfig<128, 128, 16, 64, 32, 8, 3, 1, 2>;
using Tile128x128x16_W32x64_S4 = sgemm_tuned::TileConfig<128, 128, 16, 32, 64, 4, 4, 1, 1>;
using Tile128x128x32_W32x64_S3 = sgemm_tuned::TileConfig<128, 128, 32, 32, 64, 4, 3, 1, 2>;
using Tile128x128x8_W64x64_S3 = sgemm_tuned::TileConfig<128, 128, 8, 64, 64, 4, 3, 1, 2>;
using Tile128x256x8_W64x64_S3 = sgemm_tuned::TileConfig<128, 256, 8, 64, 64, 4, 3, 1, 1>;
using Tile256x128x8_W64x64_S3 = sgemm_tuned::TileConfig<256, 128, 8, 64, 64, 4, 3, 1, 1>;
using Tile128x128x16_W64x64_S3 = sgemm_tuned::TileConfig<128, 128, 16, 64, 64, 4, 3, 1, 2>;
using Tile128x256x16_W64x64_S3 = sgemm_tuned::TileConfig<128, 256, 16, 64, 64, 4, 3, 1, 1>;
using Tile128x256x16_W64x64_S3_G8 = sgemm_tuned::TileConfig<128, 256, 16, 64, 64, 4, 3, 8, 1>;

template <class Cfg>
std::string shape_text() {
  return std::to_string(Cfg::kBlockM) + "x" + std::to_string(Cfg::kBlockN) + "x" + std::to_string(Cfg::kBlockK) +
         " block tile, " + std::to_string(Cfg::kThreads) + " threads, warp tile " + std::to_string(Cfg::kWarpM) +
         "x" + std::to_string(Cfg::kWarpN) + ", " + std::to_string(Cfg::kThreadM) + "x" +
         std::to_string(Cfg::kThreadN) + " per thread, " + std::to_string(Cfg::kStages) + " cp.async stages (" +
         std::to_string((Cfg::kSharedBytes * 10 + 512) / 1024 / 10) + "." +
         std::to_string((Cfg::kSharedBytes * 10 + 512) / 1024 % 10) + " KiB)" +
         (Cfg::kGroupM > 1 ? ", blocks in bands of " + std::to_string(Cfg::kGroupM) + " tile-rows" : "") +
         (Cfg::kOneBarrier ? "" : "; OFF: one barrier per slice (chapter 26's schedule: refill issued before the "
                                  "wait, into the buffer just read, and a second __syncthreads after the multiply)") +
         (Cfg::kPlannedCopies ? "" : "; OFF: the copy plan (chapter 26's copies: addresses and bounds tests "
                                     "recomputed for every element of every slice, every slice guarded)");
}

// A configuration with its off-switches set (sgemm_tuned.cuh, TileConfig): the ablation variants below are
// the stage's configuration with one mechanism turned off.
template <class Cfg, bool OneBarrier, bool PlannedCopies>
using WithSwitches = sgemm_tuned::TileConfig<Cfg::kBlockM, Cfg::kBlockN, Cfg::kBlockK, Cfg::kWarpM, Cfg::kWarpN,
                                             Cfg::kLanesM, Cfg::kStages, Cfg::kGroupM, Cfg::kMinBlocksPerSm,
                                             OneBarrier, PlannedCopies>;

}  // namespace

// TunedVariant: a variant and the shared memory per block its kernel needs (tuned_candidates.hpp, which declares
// what the GPU test calls of this file).

template <class Cfg>
TunedVariant candidate(const std::string& name) {
  return {{name, shape_text<Cfg>(), sgemm_tuned::sgemm<Cfg>, "", /*on_demand=*/true}, Cfg::kSharedBytes};
}

// The stage: the configuration chosen by measurement (see README.md, "The candidates, and what ptxas and the SASS predict").
using StageConfig = Tile128x256x16_W64x64_S3;  // fastest at 4096 and 8192 on the H200, 2026-11-23 (README)
// Its 72.8 KiB of shared memory per block do not fit on sm_75 (64 KiB); there the stage runs this one.
using StageFallbackConfig = Tile128x128x16_W32x64_S3;
static_assert(StageFallbackConfig::kSharedBytes <= 64 * 1024, "the fallback must fit every supported GPU");
// The stage with one mechanism off each, to measure what that mechanism buys (variants tuned-two-barriers and
// tuned-no-copy-plan; nothing else differs: same tile, stages, block order and element-to-thread map).
using StageTwoBarriersConfig = WithSwitches<StageConfig, /*OneBarrier=*/false, /*PlannedCopies=*/true>;
using StageNoCopyPlanConfig = WithSwitches<StageConfig, /*OneBarrier=*/true, /*PlannedCopies=*/false>;
static_assert(StageConfig::kOneBarrier && StageConfig::kPlannedCopies, "the stage runs with every mechanism on");

// The stage's plan per GPU (docs/tuning-per-gpu.md). Its candidates, the default first: the stage's configuration
// (the fastest at 4096^3 and 8192^3 on the H200 and the H100), the 8 x 8 one with 32-deep slices that tied it on the
// H100 at 4096^3, and the fallback, the only one of the three that fits sm_75's 64 KiB per block. The model leaves
// out what this GPU cannot hold; where more than one fits, a measured search of those at the run's shape decides,
// cached per GPU and shape class ("27 sgemm M 2^12 N 2^12 K 2^12").
const std::vector<std::string> kStageCandidates = {"tuned-128x256x16-w64x64-t16x8-s3", "tuned-128x128x32-w32x64-t8x8-s3",
                                                   "tuned-128x128x16-w32x64-t8x8-s3"};

int optin_shared_bytes() {
  int device = 0, optin = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return optin;
}

// The stage's candidates, among `all`, that this GPU can hold (shared memory per block), the default first.
std::vector<std::string> stage_candidates_that_fit(const std::vector<TunedVariant>& all) {
  std::vector<std::string> fit;
  for (const auto& name : kStageCandidates)
    for (const auto& c : all)
      if (c.variant.name == name && c.shared_bytes <= optin_shared_bytes()) fit.push_back(name);
  return fit;
}

class TunedStage {
 public:
  // The candidates, taken by name from the chapter's variants (`all`).
  explicit TunedStage(const std::vector<TunedVariant>& all) {
    for (const auto& name : kStageCandidates) {
      const auto it = std::find_if(all.begin(), all.end(), [&](const TunedVariant& c) { return c.variant.name == name; });
      if (it == all.end()) throw std::logic_error("chapter 27's stage: no variant " + name);
      candidates_.push_back(*it);
    }
  }

  // The plan for the problem's shape on this GPU, at set-up.
  void plan(const tut::gemm::GemmOperands& op) {
    const std::vector<std::string> fit = stage_candidates_that_fit(candidates_);
    tut::PlanRequest r;
    r.key = tut::plan_key_here("27 sgemm " + tut::gemm::shape_class(op.m, op.n, op.k), TUT_THIS_BUILD_ID());
    r.candidates = fit;
    r.model = [&]() -> std::optional<tut::Plan> {
      if (fit.size() == 1)
        return tut::Plan{fit[0], "model: the only one of the " + std::to_string(candidates_.size()) +
                                     " candidates that fits this GPU's " + std::to_string(optin_shared_bytes() / 1024) +
                                     " KiB of shared memory per block"};
      if (op.m <= 0 || op.n <= 0) return tut::Plan{fit[0], "model: an empty C, nothing runs"};
      return std::nullopt;  // the candidates' measured times are close (README): the model cannot tell them apart
    };
    r.measure = [&](const std::vector<std::string>& names) {
      std::vector<double> ms;
      for (const auto& name : names) ms.push_back(tut::gemm::search_ms(named(name).variant.launch, op));
      return ms;
    };
    planned_ = {op.m, op.n, op.k, tut::choose_plan(r).choice};
  }

  // The plan's choice at its shape; elsewhere (a shape no plan saw) the model's: the first candidate that fits.
  const TunedVariant& choice(int m, int n, int k) const {
    if (planned_.at(m, n, k)) return named(planned_.choice);
    for (const auto& c : candidates_)
      if (c.shared_bytes <= optin_shared_bytes()) return c;
    throw std::runtime_error("no configuration of chapter 27's stage fits this GPU");
  }

  void launch(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
              cudaStream_t stream) const {
    choice(m, n, k).variant.launch(m, n, k, alpha, A, B, beta, C, stream);
  }

 private:
  const TunedVariant& named(const std::string& name) const {
    for (const auto& c : candidates_)
      if (c.variant.name == name) return c;
    throw std::logic_error("chapter 27's stage has no candidate " + name);
  }

  std::vector<TunedVariant> candidates_;
  tut::gemm::PlannedShape planned_;
};

TunedVariant tuned_stage(const std::vector<TunedVariant>& candidates) {
  const auto stage = std::make_shared<TunedStage>(candidates);
  tut::gemm::GemmVariant v{
      "sgemm-tuned",
      "the plan's choice for this GPU and shape (the plan: line) of " + kStageCandidates[0] + ", " +
          kStageCandidates[1] + " and " + kStageCandidates[2] + "; without a plan the first that fits: " +
          shape_text<StageConfig>() + "; where a block cannot have that much shared memory (sm_75), " +
          shape_text<StageFallbackConfig>(),
      [stage](int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
              cudaStream_t stream) { stage->launch(m, n, k, alpha, A, B, beta, C, stream); },
      ""};
  v.plan = [stage](const tut::gemm::GemmOperands& op) { stage->plan(op); };
  v.explain = [stage](int m, int n, int k) {
    const TunedVariant& c = stage->choice(m, n, k);
    return c.variant.name + ": " + c.variant.description;
  };
  return {v, StageFallbackConfig::kSharedBytes};
}

// The stage, then every candidate configuration and the two off-switches.
std::vector<TunedVariant> tuned_candidates() {
  std::vector<TunedVariant> out = {
      candidate<Tile128x128x8_W32x64_S2>("tuned-128x128x8-w32x64-t8x8-s2"),
      candidate<Tile128x128x8_W32x64_S3>("tuned-128x128x8-w32x64-t8x8-s3"),
      candidate<Tile128x128x16_W32x64_S3>("tuned-128x128x16-w32x64-t8x8-s3"),
      candidate<Tile128x128x16_W32x64_S3_G8>("tuned-128x128x16-w32x64-t8x8-s3-g8"),
      candidate<Tile128x128x16_W64x32_S3>("tuned-128x128x16-w64x32-t8x8-s3"),
      candidate<Tile128x128x16_W32x64_S4>("tuned-128x128x16-w32x64-t8x8-s4"),
      candidate<Tile128x128x32_W32x64_S3>("tuned-128x128x32-w32x64-t8x8-s3"),
      candidate<Tile128x128x8_W64x64_S3>("tuned-128x128x8-w64x64-t16x8-s3"),
      candidate<Tile128x128x16_W64x64_S3>("tuned-128x128x16-w64x64-t16x8-s3"),
      candidate<Tile128x256x8_W64x64_S3>("tuned-128x256x8-w64x64-t16x8-s3"),
      candidate<Tile256x128x8_W64x64_S3>("tuned-256x128x8-w64x64-t16x8-s3"),
      candidate<Tile128x256x16_W64x64_S3>("tuned-128x256x16-w64x64-t16x8-s3"),
      candidate<Tile128x256x16_W64x64_S3_G8>("tuned-128x256x16-w64x64-t16x8-s3-g8"),
      candidate<StageTwoBarriersConfig>("tuned-two-barriers"),
      candidate<StageNoCopyPlanConfig>("tuned-no-copy-plan"),
  };
  out.insert(out.begin(), tuned_stage(out));
  return out;
}

std::vector<tut::gemm::GemmVariant> tuned_variants() {
  std::vector<tut::gemm::GemmVariant> out;
  for (auto& c : tuned_candidates()) out.push_back(std::move(c.variant));
  // Chapter 26's stage (its own kernel, not a configuration of this one; its tests are chapter 26's).
  out.push_back({"sgemm-double-buffering", "chapter 26's stage, to compare in one run", sgemm_double_buffering::sgemm,
                 "", /*on_demand=*/true});
  return out;
}

tut::ChapterSpec chapter_spec() {
  return tut::gemm::make_gemm_chapter(
      "27-sgemm-tuned", "tuned SGEMM: tile shapes, pipeline depth and block order chosen by measurement",
      tuned_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
