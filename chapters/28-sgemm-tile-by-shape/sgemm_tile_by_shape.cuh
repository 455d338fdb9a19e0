// Chapter 28: SGEMM at every shape, part 1: the tile configuration chosen per shape.
//
// Chapter 27's kernel (sgemm_tuned.cuh, included, not copied) is the building block. Its stage, a
// 128 x 256 tile at one block per SM, is the fastest where C has many tiles (4096^3: 512 tiles, 4 per SM of
// 132), and loses where it has few (1024^3: 32 tiles for 132 SMs) or where the last round of blocks is
// nearly empty (3072^3: 288 tiles = 2.18 per SM, so the busiest SMs run 3 and the others 2). The second
// configuration, 64 x 128 at 4 blocks per SM, holds as many accumulators per SM (32768) in blocks a quarter
// the size: 4x as many blocks fall more evenly on the SMs (3072^3: 1152 blocks, 9 on the busiest SM where
// 8.73 is the mean), and where there are fewer blocks than SMs, each one is a quarter of the work. The model
// of shape_model.hpp picks one per shape from the SM count and each configuration's blocks per SM, both read
// from the device once in the set-up, and its measured efficiencies.
//
// The first GPU run (H100) also measured 128 x 128 (2 per SM), 192 x 128 and 96 x 128 (the 3/4-wave tiles):
// none won at any shape (README "Calibration"), so they are not candidates any more.
//
// The stage's plan per GPU (docs/tuning-per-gpu.md, TileDispatcher::plan_stage): where the model predicts one tile
// faster than the other by more than its own error (kModelError), the model's tile; where not, a measured search of
// both on the problem's operands at set-up, cached per GPU and shape class. The launch looks the plan up.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cuda_check.cuh"
#include "device.cuh"
#include "gemm/gemm_plan.cuh"
#include "shape_model.hpp"
#include "sgemm_tuned.cuh"

namespace sgemm_shapes {

// The candidates; the first is the default that any other plan must beat by kSwitchMargin. Their
// efficiencies are the fitted ones of shape_model.hpp (measured on the H100; README "Calibration").
//                                              BM   BN  BK  WM  WN lanesM stages groupM minBlocks
struct Tile128x256 {  // chapter 27's stage: 16 x 8 per thread, 256 threads, 1 block per SM
  using Config = sgemm_tuned::TileConfig<128, 256, 16, 64, 64, 4, 3, 1, 1>;
  static constexpr const char* kName = "128x256";
  static constexpr TileEfficiency kEfficiency = kEfficiency128x256;
};
// 8 x 8 per thread, 128 threads. __launch_bounds__ asks for 3 blocks per SM (168 registers); ptxas (CUDA 13.0,
// sm_90) uses 127, so the occupancy calculator gives 4 (the H100 run read 4). Asking for 4 makes it spill.
// Chapter 29's partial-sum kernel of this tile uses 159 (float4 path): 3 per SM.
struct Tile64x128 {
  using Config = sgemm_tuned::TileConfig<64, 128, 16, 32, 64, 4, 3, 1, 3>;
  static constexpr const char* kName = "64x128";
  static constexpr TileEfficiency kEfficiency = kEfficiency64x128;
};
using Tiles = std::tuple<Tile128x256, Tile64x128>;

// sm_90's 227 KiB per block holds every candidate; sm_75's 64 KiB does not hold 128x256 (72.8 KiB).
static_assert(Tile128x256::Config::kSharedBytes <= 227 * 1024 && Tile64x128::Config::kSharedBytes <= 227 * 1024,
              "every candidate fits in an sm_90 block");

// Blocks of chapter 27's kernel for this configuration that one SM holds at once (registers, shared memory,
// threads), from the occupancy calculator on the current device. 0: the configuration does not fit.
template <class Cfg>
int resident_blocks_per_sm() {
  int blocks = 0;
  TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks, sgemm_tuned::sgemm_tuned_kernel<Cfg, true>, Cfg::kThreads, Cfg::kSharedBytes));
  return blocks;
}

// Shared-memory opt-in of both forms (float4 and 4-byte) of the configuration's kernel: the one-time set-up.
template <class Cfg>
void prepare_tile_kernels() {
  sgemm_tuned::prepare_kernel<Cfg, true>();
  sgemm_tuned::prepare_kernel<Cfg, false>();
}

// One candidate as the dispatcher sees it: its model, its one-time set-up and its launch.
using TileLaunch = void (*)(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                            cudaStream_t stream);
struct TileKernel {
  TileModel model;  // blocks_per_sm filled by set_up(); split_blocks_per_sm by chapter 29's set-up
  int shared_bytes = 0;
  void (*prepare)() = nullptr;
  int (*occupancy)() = nullptr;
  TileLaunch launch = nullptr;
};

template <class Tile>
TileKernel tile_kernel() {
  using Cfg = typename Tile::Config;
  TileKernel t;
  t.model = {Tile::kName, Cfg::kBlockM, Cfg::kBlockN, Cfg::kBlockK, Cfg::kStages, 0, Tile::kEfficiency, 0};
  t.shared_bytes = Cfg::kSharedBytes;
  t.prepare = prepare_tile_kernels<Cfg>;
  t.occupancy = resident_blocks_per_sm<Cfg>;
  t.launch = sgemm_tuned::launch_prepared<Cfg>;
  return t;
}

template <class... Tile>
std::vector<TileKernel> tile_kernels(std::tuple<Tile...>*) {
  return {tile_kernel<Tile>()...};
}
inline std::vector<TileKernel> all_tile_kernels() { return tile_kernels(static_cast<Tiles*>(nullptr)); }

// The GPU's numbers for the model, read once from the device (SMs, FP32 and DRAM peaks).
inline GpuModel gpu_model() {
  int device = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  const tut::DeviceInfo info = tut::query_device(device);
  GpuModel g;
  g.sms = info.sm_count;
  // An unknown FP32 lane count leaves the peak at 0: the model then counts 128 lanes per SM (sm_80+).
  g.peak_fp32_gflops = info.peak_fp32_gflops > 0 ? info.peak_fp32_gflops
                                                 : info.sm_count * 128.0 * 2.0 * info.sm_clock_khz * 1e-6;
  g.peak_dram_gbps = info.peak_dram_gbps > 0 ? info.peak_dram_gbps : 1000.0;
  return g;
}

// The candidates with their blocks per SM on this device, and the GPU's numbers; filled once by set_up().
// Candidates the device cannot hold (0 blocks per SM, or more shared memory than a block may have) stay in
// the list, marked unusable: the model skips them and their own variant refuses with one sentence.
class TileDispatcher {
 public:
  TileDispatcher() : kernels_(all_tile_kernels()) {}

  void set_up() {
    if (ready_) return;
    int device = 0, optin = 0;
    TUT_CUDA_CHECK(cudaGetDevice(&device));
    TUT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    gpu_ = gpu_model();
    usable_.clear();
    models_.clear();
    for (std::size_t i = 0; i < kernels_.size(); ++i) {
      TileKernel& t = kernels_[i];
      if (t.shared_bytes > optin) continue;
      t.prepare();  // the opt-in must come first: the occupancy of a kernel over 48 KiB depends on it
      t.model.blocks_per_sm = t.occupancy();
      if (t.model.blocks_per_sm <= 0) continue;
      usable_.push_back(static_cast<int>(i));
      models_.push_back(t.model);
    }
    if (usable_.empty()) throw std::runtime_error("no tile configuration of chapter 28 fits this GPU");
    ready_ = true;
  }

  // Chapter 29: the blocks per SM of the partial-sum kernel of candidate i (the occupancy calculator on that
  // kernel, in its set-up), which the model counts for i's split plans. After set_up().
  void set_split_blocks_per_sm(std::size_t i, int blocks) {
    require_ready();
    kernels_.at(i).model.split_blocks_per_sm = blocks;
    for (std::size_t u = 0; u < usable_.size(); ++u)
      if (static_cast<std::size_t>(usable_[u]) == i) models_[u].split_blocks_per_sm = blocks;
  }

  // Whether candidate i is in the model (fits this GPU); after set_up().
  bool usable(std::size_t i) const {
    require_ready();
    return std::find(usable_.begin(), usable_.end(), static_cast<int>(i)) != usable_.end();
  }

  const std::vector<TileKernel>& kernels() const { return kernels_; }
  const std::vector<TileModel>& models() const { return models_; }  // the usable ones, in order
  int kernel_of(const Plan& p) const { return usable_.at(static_cast<std::size_t>(p.config)); }
  const GpuModel& gpu() const { return gpu_; }
  bool ready() const { return ready_; }

  // The rule (max_splits 1: chapter 28; chapter 29 passes more).
  Plan plan(int m, int n, int k, int max_splits = 1, bool beta_nonzero = true) const {
    require_ready();
    return choose(models_, gpu_, m, n, k, max_splits, beta_nonzero);
  }

  void require_ready() const {
    if (!ready_)
      throw std::logic_error("the tile dispatcher was launched before its set-up (Workload::setup) ran");
  }

  // The name of candidate i as a plan and a --variant name it ("tile-64x128").
  std::string variant_name(std::size_t i) const { return {"tile-" + kernels_.at(i).model.name}; }

  // The plan's candidates on this GPU, the default first: the tiles that fit (after set_up()).
  std::vector<std::string> stage_candidates() const {
    require_ready();
    std::vector<std::string> names;
    for (int u : usable_) names.push_back(variant_name(static_cast<std::size_t>(u)));
    return names;
  }

  // The stage's plan for the problem's shape on this GPU, after set_up() and outside any timed run: the model's
  // tile where rank() tells the tiles apart; else each tile measured on the problem's operands (C is overwritten),
  // the faster kept, cached per GPU and shape class.
  void plan_stage(const tut::gemm::GemmOperands& op) {
    require_ready();
    const Ranking ranking = rank(models_, gpu_, op.m, op.n, op.k, 1, op.beta != 0.0f);
    tut::PlanRequest r;
    r.key = tut::plan_key_here("28 sgemm " + tut::gemm::shape_class(op.m, op.n, op.k), TUT_THIS_BUILD_ID());
    r.candidates = stage_candidates();
    r.model = [&]() -> std::optional<tut::Plan> {
      const std::string chosen = variant_name(static_cast<std::size_t>(usable_.at(static_cast<std::size_t>(ranking.chosen))));
      if (usable_.size() == 1) return tut::Plan{chosen, "model: the only tile configuration that fits this GPU"};
      if (op.m <= 0 || op.n <= 0) return tut::Plan{chosen, "model: an empty C, nothing runs"};
      if (ranking.decided)
        return tut::Plan{chosen, "model: " + compare(models_, ranking) + ": apart by more than the model's " +
                                     std::to_string(static_cast<int>(kModelError * 100)) + "%"};
      return std::nullopt;  // within the model's error of each other: measure
    };
    r.measure = [&](const std::vector<std::string>& names) {
      std::vector<double> ms;
      for (const auto& name : names)
        ms.push_back(tut::gemm::search_ms(
            [&](int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                cudaStream_t stream) { launch_kernel(kernel_named(name), m, n, k, alpha, A, B, beta, C, stream); },
            op));
      return ms;
    };
    planned_ = {op.m, op.n, op.k, tut::choose_plan(r).choice};
  }

  // What the stage runs at (m, n, k): the plan's tile where a plan saw that shape, else the model's (the rule).
  Plan stage_plan(int m, int n, int k, bool beta_nonzero = true) const {
    require_ready();
    if (planned_.at(m, n, k))
      for (std::size_t u = 0; u < usable_.size(); ++u)
        if (variant_name(static_cast<std::size_t>(usable_[u])) == planned_.choice)
          return predict(models_, static_cast<int>(u), gpu_, m, n, k, 1, beta_nonzero);
    return plan(m, n, k, 1, beta_nonzero);
  }

  // Candidate i, by itself (a --variant of its own).
  void launch_kernel(std::size_t i, int m, int n, int k, float alpha, const float* A, const float* B, float beta,
                     float* C, cudaStream_t stream) const {
    require_ready();
    for (int u : usable_)
      if (static_cast<std::size_t>(u) == i) {
        kernels_[i].launch(m, n, k, alpha, A, B, beta, C, stream);
        return;
      }
    throw std::runtime_error("tile configuration " + kernels_[i].model.name + " does not fit this GPU");
  }

 private:
  std::size_t kernel_named(const std::string& name) const {
    for (std::size_t i = 0; i < kernels_.size(); ++i)
      if (variant_name(i) == name) return i;
    throw std::logic_error("chapter 28 has no tile configuration " + name);
  }

  std::vector<TileKernel> kernels_;
  std::vector<int> usable_;
  std::vector<TileModel> models_;
  GpuModel gpu_;
  bool ready_ = false;
  tut::gemm::PlannedShape planned_;  // the stage's last plan
};

// The stage of chapter 28: the planned configuration over the whole of K.
inline void sgemm_tile_by_shape(const TileDispatcher& d, int m, int n, int k, float alpha, const float* A,
                                const float* B, float beta, float* C, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  const Plan p = d.stage_plan(m, n, k, beta != 0.0f);
  d.kernels()[static_cast<std::size_t>(d.kernel_of(p))].launch(m, n, k, alpha, A, B, beta, C, stream);
}

}  // namespace sgemm_shapes
