// Chapter 29: SGEMM at every shape, part 2: split-K, chosen by the same per-SM model as chapter 28's tiles.
//
// Where C has few tiles (128 x 4096 x 4096: 16 tiles of 128 x 256 for 132 SMs; 1024 x 1024 x 16384: 32)
// no tile choice fills the GPU: the parallelism is in K. Split-K cuts the K sum into `splits` ranges of whole
// slices; block (tile, split) computes one tile's partial sum over its range with chapter 27's main loop
// (accumulate_tile, included, not copied) and stores it, as it is, into its own slice of a workspace:
//     workspace[split][m][n] = A[:, range] * B[range, :]
// A second, memory-bound kernel sums the slices in split order and applies alpha and beta:
//     C = alpha * (slice 0 + slice 1 + ... ) + beta * C        (beta == 0: C is not read)
// No atomics: every partial sum has one writer and the order of the sum is fixed, so the result is the same
// bits on every run. The cost is the workspace, splits x m x n floats, written once and read once.
//
// The stage is the dispatcher: chapter 28's model, with splits 1 .. kMaxSplits added to its choices (a split
// multiplies the blocks by `splits` and divides each block's K; the reduction's bytes and launch are added
// to the prediction), over both of chapter 28's tiles: 64 x 128 at 4 blocks per SM splits finer than
// 128 x 256. With splits == 1 it is chapter 28's stage: one kernel, no workspace. The plan is made in the
// set-up and looked up by the launch. Where the model cannot tell the tiles' best plans apart, the stage's plan per
// GPU measures them (stage_plan.cuh) and sets the tile the dispatcher then runs at that shape.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "cli.hpp"
#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "sgemm_tile_by_shape.cuh"
#include "gemm/split_k_reduce.cuh"

namespace sgemm_split_k {

constexpr int kMaxSplits = 64;  // the dispatcher's largest split (the model decides below it)
constexpr int kBestSplit = -1;  // a fixed tile's split: the one the model predicts fastest for that tile

// True where the architecture being compiled cannot hold Cfg's shared memory (sm_75: 64 KiB per block). A
// kernel's code there is a trap, as chapter 27's kernel: the set-up refuses the configuration before any
// launch, and ptxas does not compile (and spill) a body that can never run. Used by the split-K and stream-K
// kernels.
template <class Cfg>
__host__ __device__ constexpr bool compiled_out_here() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  return Cfg::kSharedBytes > sgemm_tuned::kSharedBytesSm75;
#else
  return false;
#endif
}

// Block (blockIdx.x, blockIdx.y) = (tile, split): the tile's partial sum over K range
// [split * k_per_split, min(k, (split + 1) * k_per_split)) into workspace slice `split` (m x n, row-major).
template <class Cfg, bool kVectorized>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocksPerSm)
    sgemm_split_k_kernel(int m, int n, int k, int k_per_split, const float* __restrict__ A,
                         const float* __restrict__ B, float* __restrict__ workspace) {
  if constexpr (compiled_out_here<Cfg>()) {
    __trap();
  } else {
    const int tiles_m = (m + Cfg::kBlockM - 1) / Cfg::kBlockM, tiles_n = (n + Cfg::kBlockN - 1) / Cfg::kBlockN;
    int tile_m, tile_n;
    sgemm_tuned::block_tile<Cfg>(static_cast<int>(blockIdx.x), tiles_m, tiles_n, tile_m, tile_n);
    const int block_row = tile_m * Cfg::kBlockM, block_col = tile_n * Cfg::kBlockN;
    int thread_row, thread_col;
    sgemm_tuned::thread_origin<Cfg>(thread_row, thread_col);
    const int k_begin = static_cast<int>(blockIdx.y) * k_per_split;  // a multiple of kBlockK
    const int k_end = min(k, k_begin + k_per_split);

    float acc[Cfg::kThreadM][Cfg::kThreadN] = {};
    sgemm_tuned::accumulate_tile<Cfg, kVectorized>(m, n, k, k_begin, k_end, A, B, block_row, block_col, thread_row,
                                                   thread_col, acc);
    // The raw partial sum: alpha = 1, beta = 0 (the slice is never read before it is written). blockIdx.y
    // read again here rather than kept live through the loop: one register fewer in the main loop.
    float* slice = workspace + static_cast<std::size_t>(blockIdx.y) * m * n;
    sgemm_tuned::store_tile<Cfg, kVectorized>(slice, m, n, block_row + thread_row, block_col + thread_col, 1.0f, 0.0f,
                                              acc);
  }
}

// The partial-sum kernels of configuration Cfg: opt-in (set-up) and launch.
template <class Cfg>
void prepare_split_kernels() {
  int device = 0, optin = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (Cfg::kSharedBytes > optin) return;  // unusable here; chapter 28's set-up leaves it out of the model
  TUT_CUDA_CHECK(cudaFuncSetAttribute(sgemm_split_k_kernel<Cfg, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      Cfg::kSharedBytes));
  TUT_CUDA_CHECK(cudaFuncSetAttribute(sgemm_split_k_kernel<Cfg, false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      Cfg::kSharedBytes));
  TUT_CUDA_CHECK(cudaFuncSetAttribute(sgemm_split_k_kernel<Cfg, true>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      cudaSharedmemCarveoutMaxShared));
  TUT_CUDA_CHECK(cudaFuncSetAttribute(sgemm_split_k_kernel<Cfg, false>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      cudaSharedmemCarveoutMaxShared));
}

// Blocks of the partial-sum kernel of Cfg that one SM holds at once, from the occupancy calculator with its
// real block size and dynamic shared memory (after its opt-in), as chapter 28 asks for the tile kernel (the
// float4 form of each). Its registers are its own (64x128 on sm_90, CUDA 13.0: 159, where the tile kernel has
// 127: 3 blocks per SM, not 4; the 4-byte form's 129 hold 3 as well), so it may hold fewer.
template <class Cfg>
int resident_split_blocks_per_sm() {
  int blocks = 0;
  TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, sgemm_split_k_kernel<Cfg, true>, Cfg::kThreads,
                                                               Cfg::kSharedBytes));
  return blocks;
}

using SplitLaunch = void (*)(int m, int n, int k, int k_per_split, int splits, const float* A, const float* B,
                             float* workspace, bool vectorized, cudaStream_t stream);

template <class Cfg>
void launch_split(int m, int n, int k, int k_per_split, int splits, const float* A, const float* B, float* workspace,
                  bool vectorized, cudaStream_t stream) {
  const dim3 grid(sgemm_tuned::tile_count<Cfg>(m, n), static_cast<unsigned>(splits));
  if (vectorized)
    sgemm_split_k_kernel<Cfg, true><<<grid, Cfg::kThreads, Cfg::kSharedBytes, stream>>>(m, n, k, k_per_split, A, B, workspace);
  else
    sgemm_split_k_kernel<Cfg, false><<<grid, Cfg::kThreads, Cfg::kSharedBytes, stream>>>(m, n, k, k_per_split, A, B, workspace);
  TUT_CHECK_LAUNCH();
}

struct SplitKernels {
  void (*prepare)();
  int (*occupancy)();
  SplitLaunch launch;
};
template <class... Tile>
std::vector<SplitKernels> split_kernels(std::tuple<Tile...>*) {
  return {SplitKernels{prepare_split_kernels<typename Tile::Config>, resident_split_blocks_per_sm<typename Tile::Config>,
                       launch_split<typename Tile::Config>}...};
}

// What a split run needs: the plan, the tile dispatcher (chapter 28), the kernels, and the workspace.
class SplitDispatcher {
 public:
  SplitDispatcher() : split_(split_kernels(static_cast<sgemm_shapes::Tiles*>(nullptr))) {}

  // One-time set-up for problems up to (m, n, k): chapter 28's set-up (opt-in, blocks per SM), the partial-sum
  // kernels' opt-in and blocks per SM (the model counts them for split plans), the model's plans at this shape
  // (made once per shape, not in every launch), and a workspace for the plan that runs (grown, never shrunk;
  // allocated here, never in a launch). fixed_tile / fixed_splits: a candidate variant's plan instead of the stage's.
  void set_up(int m, int n, int k, int fixed_tile = -1, int fixed_splits = 0) {
    tiles_.set_up();
    if (!split_prepared_) {
      for (std::size_t i = 0; i < split_.size(); ++i) {
        split_[i].prepare();  // the opt-in first: the occupancy of a kernel over 48 KiB depends on it
        if (tiles_.usable(i)) tiles_.set_split_blocks_per_sm(i, split_[i].occupancy());
      }
      split_prepared_ = true;
    }
    if (!planned_.at(m, n, k)) planned_ = PlannedShape{m, n, k, model_ranking(m, n, k, true), model_ranking(m, n, k, false)};
    for (bool beta_nonzero : {true, false})  // beta != 0 reads C in the reduction: it may change the plan
      reserve(plan(m, n, k, fixed_tile, fixed_splits, beta_nonzero).workspace_bytes);
  }

  // The model's plans at (m, n, k), one per usable tile (shape_model.hpp, rank()): what the stage's plan chooses
  // from. After set_up(m, n, k).
  const sgemm_shapes::Ranking& ranking(int m, int n, int k, bool beta_nonzero) const {
    if (!planned_.at(m, n, k)) throw std::logic_error("split-K: ranking() of a shape the set-up did not see");
    return planned_.ranking(beta_nonzero);
  }

  // The stage's tile at the shape of the last set-up, as its plan per GPU chose it (an index into tiles().models();
  // -1: the model's rule), with a workspace for its plans.
  void set_stage_tile(int model_index) {
    planned_.tile = model_index;
    for (bool beta_nonzero : {true, false}) reserve(planned_.stage(beta_nonzero).workspace_bytes);
  }

  void reserve(std::uint64_t bytes) {
    if (bytes > workspace_.size() * sizeof(float))
      workspace_ = tut::DeviceBuffer<float>(static_cast<std::size_t>((bytes + sizeof(float) - 1) / sizeof(float)));
  }
  std::uint64_t workspace_bytes() const { return workspace_.size() * sizeof(float); }

  // The stage's plan (fixed_tile < 0: its plan's tile, else the model's rule), or the plan of tile configuration
  // fixed_tile with fixed_splits splits (1 where fixed_splits == 0; kBestSplit: the model's best for that tile).
  // The plans for the shape of the last set-up are looked up: the model tries every tile at every split (128
  // predictions, 2 to 4 us of host time; 320 and 6 to 11 us with the five tiles of the first run), and a launch
  // must not pay that inside its timed interval (the first H100 run measured the stage 8 to 12 us slower than the
  // same plan run as a fixed variant, when the launch still ran the model).
  sgemm_shapes::Plan plan(int m, int n, int k, int fixed_tile = -1, int fixed_splits = 0, bool beta_nonzero = true) const {
    tiles_.require_ready();
    const bool seen = planned_.at(m, n, k);  // else a shape the set-up did not see: correct, only slower
    if (fixed_tile < 0) return seen ? planned_.stage(beta_nonzero) : model_ranking(m, n, k, beta_nonzero).best();
    const auto& models = tiles_.models();
    for (std::size_t u = 0; u < models.size(); ++u)
      if (models[u].name == tiles_.kernels()[static_cast<std::size_t>(fixed_tile)].model.name) {
        if (fixed_splits == kBestSplit)
          return (seen ? planned_.ranking(beta_nonzero) : model_ranking(m, n, k, beta_nonzero)).plans.at(u);
        return sgemm_shapes::predict(models, static_cast<int>(u), tiles_.gpu(), m, n, k,
                                     fixed_splits > 0 ? fixed_splits : 1, beta_nonzero);
      }
    throw std::runtime_error("tile configuration " + tiles_.kernels()[static_cast<std::size_t>(fixed_tile)].model.name +
                             " does not fit this GPU");
  }

  const sgemm_shapes::TileDispatcher& tiles() const { return tiles_; }

  // C = alpha A B + beta C with the plan: one tile kernel (no split) or the partial sums and the reduction.
  void run(const sgemm_shapes::Plan& p, int m, int n, int k, float alpha, const float* A, const float* B, float beta,
           float* C, cudaStream_t stream) {
    if (m <= 0 || n <= 0) return;
    const std::size_t kernel = static_cast<std::size_t>(tiles_.kernel_of(p));
    if (p.splits == 1) {
      tiles_.kernels()[kernel].launch(m, n, k, alpha, A, B, beta, C, stream);
      return;
    }
    if (p.workspace_bytes > workspace_bytes())
      throw tut::UsageError("split-K workspace of " + std::to_string(workspace_bytes()) + " bytes is too small for " +
                            std::to_string(p.splits) + " splits of " + std::to_string(m) + " x " + std::to_string(n) +
                            " (needs " + std::to_string(p.workspace_bytes) + "): the set-up did not size it");
    // The workspace is 16-byte aligned and n % 4 == 0 keeps every slice so; A is copied in 4-byte pieces.
    const bool vectorized = n % 4 == 0 && sgemm_tuned::aligned16(B);
    split_[kernel].launch(m, n, k, p.k_per_split, p.splits, A, B, workspace_.data(), vectorized, stream);
    split_k_reduce::reduce_splits(static_cast<std::size_t>(m) * n, p.splits, workspace_.data(), alpha, beta, C,
                                  tiles_.gpu().sms, stream);
  }

 private:
  sgemm_shapes::Ranking model_ranking(int m, int n, int k, bool beta_nonzero) const {
    return sgemm_shapes::rank(tiles_.models(), tiles_.gpu(), m, n, k, kMaxSplits, beta_nonzero);
  }

  struct PlannedShape {
    int m = -1, n = -1, k = -1;
    sgemm_shapes::Ranking with_beta, without_beta;  // beta != 0 reads C in the reduction: it may change the plans
    int tile = -1;  // the stage's tile where its plan chose one (set_stage_tile); -1: the model's rule
    bool at(int mm, int nn, int kk) const { return mm == m && nn == n && kk == k; }
    const sgemm_shapes::Ranking& ranking(bool beta_nonzero) const { return beta_nonzero ? with_beta : without_beta; }
    sgemm_shapes::Plan stage(bool beta_nonzero) const {
      return tile < 0 ? ranking(beta_nonzero).best() : ranking(beta_nonzero).plans.at(static_cast<std::size_t>(tile));
    }
  };

  sgemm_shapes::TileDispatcher tiles_;
  PlannedShape planned_;
  std::vector<SplitKernels> split_;
  bool split_prepared_ = false;
  tut::DeviceBuffer<float> workspace_;
};

}  // namespace sgemm_split_k
