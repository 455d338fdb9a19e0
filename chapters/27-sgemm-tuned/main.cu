// Chapter 27: the tuned SGEMM for sm_90. Chapter 26's kernel as a template over its tile shapes,
// pipeline depth and block order; the stage is the configuration that measured fastest, the other
// candidates stay runnable (--variant all) so the choice can be re-measured on any GPU. Chapter 26's stage
// on demand, to compare in one run.
#include <string>
#include <vector>

#include "../26-sgemm-double-buffering/sgemm_double_buffering.cuh"
#include "gemm/gemm_workload.cuh"
#include "sgemm_tuned.cuh"

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

// A variant and the shared memory per block its kernel needs (the tests skip a candidate the GPU cannot
// hold: sm_75 allows 64 KiB per block).
struct TunedVariant {
  tut::gemm::GemmVariant variant;
  int shared_bytes;
};

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

void sgemm_stage(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                 cudaStream_t stream) {
  static const bool stage_fits = [] {
    int device = 0, optin = 0;
    TUT_CUDA_CHECK(cudaGetDevice(&device));
    TUT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    return StageConfig::kSharedBytes <= optin;
  }();
  if (stage_fits)
    sgemm_tuned::sgemm<StageConfig>(m, n, k, alpha, A, B, beta, C, stream);
  else
    sgemm_tuned::sgemm<StageFallbackConfig>(m, n, k, alpha, A, B, beta, C, stream);
}

std::vector<TunedVariant> tuned_candidates() {
  return {
      {{"sgemm-tuned",
        "the chosen configuration: " + shape_text<StageConfig>() + "; where a block cannot have that much shared "
        "memory (sm_75), " + shape_text<StageFallbackConfig>(),
        sgemm_stage, ""},
       StageFallbackConfig::kSharedBytes},
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
