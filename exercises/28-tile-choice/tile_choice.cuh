// Exercise 28 (chapter 28-sgemm-tile-by-shape): the rule that picks a tile configuration for a GEMM shape.
//
// Chapter 28's model (shape_model.hpp, included unchanged) predicts the time of one configuration at one shape:
// sgemm_shapes::predict(tiles, index, gpu, m, n, k, /*splits=*/1) counts the tiles, the blocks on the busiest SM
// (ceil(tiles / SMs)), how many of them run at once, and the SM's rate at that residency. The rule turns the
// predictions into a choice. Configuration 0 (chapter 27's 128 x 256 stage) is the default; the model is known
// to about 2% (the full-GPU efficiencies' scatter), so another configuration is chosen only when its predicted
// time is below the default's by the margin sgemm_shapes::kSwitchMargin (3%), and then the fastest such one.
#pragma once

#include <vector>

#include "../../chapters/28-sgemm-tile-by-shape/shape_model.hpp"  // chapter 28's model, unchanged

namespace tile_choice {

using sgemm_shapes::GpuModel;
using sgemm_shapes::Plan;
using sgemm_shapes::TileModel;

// The plan (no split of K) for C[m x n] += A[m x k] B[k x n] on `gpu` with the configurations `tiles` (at least
// one; tiles[0] is the default). Returns the default's plan unless another is predicted faster by the margin.
inline Plan choose_tile(const std::vector<TileModel>& tiles, const GpuModel& gpu, long long m, long long n,
                        long long k) {
  // TODO: the rule. Predict configuration 0 (the default) with sgemm_shapes::predict(tiles, 0, gpu, m, n, k, 1),
  // then every other configuration c the same way; return the fastest prediction, but let a configuration other
  // than 0 win only when its seconds() is below the default's by the margin sgemm_shapes::kSwitchMargin.
  // As shipped: always the default (chapter 27's stage), which is what chapter 28 set out to improve on.
  return sgemm_shapes::predict(tiles, 0, gpu, m, n, k, 1);
}

}  // namespace tile_choice
