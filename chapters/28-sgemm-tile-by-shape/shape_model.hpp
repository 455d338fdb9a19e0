// Chapters 28 and 29: the model that chooses a tile configuration (and, in chapter 29, a split of K) for a
// GEMM shape. Plain C++ with no CUDA, so the host tests check the arithmetic on any machine.
//
// A configuration c computes tiles of block_m x block_n outputs; the GPU holds blocks_per_sm of its blocks
// on each of its SMs at once (from registers and shared memory: the CUDA occupancy calculator, asked on the
// device in the chapter's set-up). With the K sum cut into `splits` ranges of k_per_split (a multiple of the
// slice depth block_k), one launch runs
//     blocks = tiles x splits,  slots = SMs x blocks_per_sm,  waves = ceil(blocks / slots)
// and every wave costs what a full one costs: the SMs of a part-filled last wave finish no earlier (each
// block runs at the speed of a block among blocks_per_sm), the others idle. One wave takes
//     blocks_per_sm x block_m x block_n x (k_per_split + stages x block_k) multiply-adds per SM
// at efficiency x the SM's FP32 peak; stages x block_k is the pipeline's fill and drain, paid once per block.
// Chapter 29 adds, for splits > 1, the reduction: the workspace written and read once (splits x m x n
// floats each way) and C written (read too when beta != 0), at the DRAM peak, plus one more launch.
//
// The configuration with the smallest predicted time wins, except that one that is not the first
// (the largest-efficiency default) must win by kSwitchMargin: the efficiencies are measured at 4096^3 or
// assumed, so a prediction a few percent better is within the model's error.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace sgemm_shapes {

// What the model needs of one tile configuration.
struct TileModel {
  std::string name;      // "128x256"
  int block_m = 0, block_n = 0, block_k = 0, stages = 0;
  int blocks_per_sm = 0; // resident blocks per SM (occupancy calculator)
  double efficiency = 0; // share of the FP32 peak one full SM reaches with this configuration
};

// What the GPU offers.
struct GpuModel {
  int sms = 0;                    // streaming multiprocessors
  double peak_fp32_gflops = 0;    // SMs x FP32 lanes x 2 x clock
  double peak_dram_gbps = 0;      // theoretical DRAM bandwidth
};

// One more kernel launch back to back on a stream (the reduction) costs about this much (an assumption of
// the model, for the GPU run to check; it only matters for problems of a few microseconds).
constexpr double kLaunchSeconds = 2e-6;
// A configuration other than the first must be predicted this much faster to be chosen.
constexpr double kSwitchMargin = 0.05;
// Workspace cap of the split-K model: 256 MiB (the slices of partial sums, splits x m x n floats).
constexpr std::uint64_t kMaxWorkspaceBytes = std::uint64_t{256} << 20;

struct Plan {
  int config = -1;            // index into the candidates
  int splits = 1;             // 1: no split, the tile kernel writes C
  int k_per_split = 0;        // a multiple of block_k (k when splits == 1)
  long long tiles = 0, blocks = 0, slots = 0, waves = 0;
  double fill = 0;            // blocks / (waves x slots): how full the waves are on average
  double last_wave_fill = 0;  // the last wave's share of slots
  double mma_seconds = 0, reduce_seconds = 0;
  double seconds() const { return mma_seconds + reduce_seconds; }
  std::uint64_t workspace_bytes = 0;  // splits x m x n floats when splits > 1
};

inline long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// The prediction for configuration `index` of `tiles` at (m, n, k) with `splits` ranges of K.
inline Plan predict(const std::vector<TileModel>& tiles, int index, const GpuModel& gpu, long long m, long long n,
                    long long k, int splits, bool beta_nonzero = true) {
  const TileModel& t = tiles.at(static_cast<std::size_t>(index));
  if (gpu.sms <= 0 || t.blocks_per_sm <= 0 || t.efficiency <= 0 || gpu.peak_fp32_gflops <= 0)
    throw std::invalid_argument("shape model: SM count, blocks per SM, efficiency and peak must be positive");
  if (m < 0 || n < 0 || k < 0 || splits < 1) throw std::invalid_argument("shape model: negative size or split < 1");
  Plan p;
  p.config = index;
  const long long slices = ceil_div(k, t.block_k);
  const long long per = splits > 1 ? ceil_div(slices, splits) : slices;  // slices per split
  p.splits = splits > 1 ? static_cast<int>(ceil_div(slices, per)) : 1;   // no empty split
  p.k_per_split = static_cast<int>(splits > 1 ? per * t.block_k : k);
  p.tiles = ceil_div(m, t.block_m) * ceil_div(n, t.block_n);
  p.blocks = p.tiles * p.splits;
  p.slots = static_cast<long long>(gpu.sms) * t.blocks_per_sm;
  p.waves = ceil_div(p.blocks, p.slots);
  p.fill = p.waves ? static_cast<double>(p.blocks) / (static_cast<double>(p.waves) * p.slots) : 0.0;
  p.last_wave_fill = p.waves ? static_cast<double>(p.blocks - (p.waves - 1) * p.slots) / p.slots : 0.0;
  const double sm_macs_per_second = gpu.peak_fp32_gflops * 1e9 / 2.0 / gpu.sms;
  const double wave_macs = static_cast<double>(t.blocks_per_sm) * t.block_m * t.block_n *
                           (static_cast<double>(per * t.block_k) + static_cast<double>(t.stages) * t.block_k);
  p.mma_seconds = p.waves * wave_macs / (t.efficiency * sm_macs_per_second);
  if (p.splits > 1) {
    const double mn = static_cast<double>(m) * n;
    p.workspace_bytes = static_cast<std::uint64_t>(p.splits) * static_cast<std::uint64_t>(m) * n * sizeof(float);
    const double bytes = 2.0 * p.splits * mn * sizeof(float) + (beta_nonzero ? 2.0 : 1.0) * mn * sizeof(float);
    p.reduce_seconds = bytes / (gpu.peak_dram_gbps * 1e9) + kLaunchSeconds;
  }
  return p;
}

// The rule: the fastest prediction over the configurations (and over splits 1 .. max_splits that leave every
// split at least one slice and the workspace under kMaxWorkspaceBytes); a plan other than the first
// configuration without a split must beat that one by kSwitchMargin.
inline Plan choose(const std::vector<TileModel>& tiles, const GpuModel& gpu, long long m, long long n, long long k,
                   int max_splits = 1, bool beta_nonzero = true) {
  if (tiles.empty()) throw std::invalid_argument("shape model: no configurations");
  const Plan base = predict(tiles, 0, gpu, m, n, k, 1, beta_nonzero);
  Plan best = base;
  for (int c = 0; c < static_cast<int>(tiles.size()); ++c)
    for (int s = 1; s <= max_splits; ++s) {
      if (s > 1 && s > ceil_div(k, tiles[static_cast<std::size_t>(c)].block_k)) break;
      const Plan p = predict(tiles, c, gpu, m, n, k, s, beta_nonzero);
      if (p.workspace_bytes > kMaxWorkspaceBytes) break;
      if (p.seconds() < best.seconds() && p.seconds() < base.seconds() * (1.0 - kSwitchMargin)) best = p;
    }
  return best;
}

// "128x256 tiles, split 4 (K 256 each): 128 blocks = 0.97 waves of 132 (1 block/SM), last wave 97% full;
// predicted 41.2 us (MMA 35.0 + reduction 6.2)".
inline std::string explain(const std::vector<TileModel>& tiles, const Plan& p) {
  const TileModel& t = tiles.at(static_cast<std::size_t>(p.config));
  char buf[512];
  std::string split = p.splits > 1 ? ", split " + std::to_string(p.splits) + " (K " + std::to_string(p.k_per_split) +
                                         " each, workspace " + std::to_string(p.workspace_bytes >> 10) + " KiB)"
                                   : std::string(", no split");
  std::snprintf(buf, sizeof buf,
                "%s tiles%s: %lld blocks = %.2f waves of %lld (%d block%s/SM), last wave %.0f%% full; predicted "
                "%.1f us (multiply %.1f + reduction %.1f)",
                t.name.c_str(), split.c_str(), p.blocks, p.slots ? static_cast<double>(p.blocks) / p.slots : 0.0,
                p.slots, t.blocks_per_sm, t.blocks_per_sm == 1 ? "" : "s", 100.0 * p.last_wave_fill,
                p.seconds() * 1e6, p.mma_seconds * 1e6, p.reduce_seconds * 1e6);
  return buf;
}

}  // namespace sgemm_shapes
