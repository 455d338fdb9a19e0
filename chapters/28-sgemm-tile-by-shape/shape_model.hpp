// Chapters 28 and 29: the model that chooses a tile configuration (and, in chapter 29, a split of K) for a
// GEMM shape. Plain C++ with no CUDA, so the host tests check the arithmetic on any machine.
//
// A configuration c computes tiles of block_m x block_n outputs; an SM holds up to blocks_per_sm of its
// blocks at once (registers, shared memory: the occupancy calculator, asked on the device in the set-up).
// With the K sum cut into `splits` ranges of k_per_split (a multiple of the slice depth block_k), one launch
// runs blocks = tiles x splits. The block scheduler deals them out as slots free up, so the busiest SM runs
//     per_sm = ceil(blocks / SMs)
// of them, resident = min(per_sm, fit) at a time, where fit is the blocks per SM of the kernel that runs the
// plan: blocks_per_sm of the tile kernel without a split, split_blocks_per_sm of chapter 29's partial-sum
// kernel with one (a kernel of its own, with its own registers: it may hold fewer). The launch lasts as long
// as that SM:
//     per_sm x block_m x block_n x (k_per_split + stages x block_k) multiply-adds / (rate(resident) x SM peak)
// stages x block_k is the pipeline's fill and drain, paid once per block. rate(r) (rate_of): a full SM
// reaches efficiency.full of its peak, one block alone efficiency.single (a lone 128-thread block cannot hide
// its own latencies), linear between. The quantum is one block per SM, not one wave of
// blocks_per_sm: the first GPU run showed that a 3/4-full last wave of small blocks costs 3/4 of a wave.
// Chapter 29 adds, for splits > 1, the reduction: one more launch, the workspace read once (splits x m x n
// floats; the partial-sum kernel writes it in place of C) and C written (read too when beta != 0).
//
// The plan with the smallest predicted time wins, except that one other than the first configuration
// without a split (chapter 27's stage) must win by kSwitchMargin: the full-GPU efficiencies are known to about 2%.
//
// The stages' plans per GPU (docs/tuning-per-gpu.md) ask rank(): each configuration's best plan, and whether the
// rule's choice is predicted faster than every other configuration's best by more than kModelError, the model's own
// error. Where it is, the model decides; where it is not, the stage measures them at set-up.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace sgemm_shapes {

// ---- The model's constants, in one place, each with where it was measured ----------------------------------
// Fitted from chapters/29-sgemm-split-k/results/h100-03ce2f5/candidates.csv (NVIDIA H100 80GB HBM3, 132 SMs,
// CUDA 13.0, 2026-11-25, commit 03ce2f5): for each candidate at each of 5 shapes, the efficiency its time
// implies under the model above (predicted time at efficiency 1 / measured time); the README's "Calibration"
// table lists them.
struct TileEfficiency {
  double full;    // rate of an SM that holds blocks_per_sm blocks, as a share of its FP32 peak
  double single;  // rate of an SM that holds one block
};
// 128 x 256, 1 block/SM: 0.713 0.737 0.722 0.731 0.731 (1024^3, 3072^3, 4096^3, 128x4096x4096,
// 1024x1024x16384; one block per SM at every shape, so full == single).
constexpr TileEfficiency kEfficiency128x256{0.727, 0.727};
// 64 x 128, 4 blocks/SM on sm_90: full 0.714 0.720 (3072^3, 4096^3: 9 and 16 blocks per SM); one block per
// SM 0.512 0.557 0.578 (1024^3, 128x4096x4096, 1024x1024x16384: 128, 64, 128 blocks for 132 SMs).
constexpr TileEfficiency kEfficiency64x128{0.717, 0.55};
// The reduction's launch and the partial-sum kernel's tail, beyond its bytes at the DRAM peak: 3 us fits the
// split candidates whose workspace stays in L2 (1024^3, 128x4096x4096 at 2, 4, 8 splits) within 2 us.
constexpr double kLaunchSeconds = 3e-6;
// The reduction's bytes move at this share of the theoretical DRAM peak (same fit: 1.0 within its noise;
// a workspace of up to ~40 MiB is read from L2, larger ones from DRAM).
constexpr double kReductionDramShare = 1.0;
// A plan other than the first configuration without a split must be predicted this much faster to be
// chosen: the full-GPU efficiencies above scatter by about 2% between shapes (e_single, one block per SM,
// scatters more: its three calibration shapes lie up to about 7% from it; chapter 28's README, "Calibration").
constexpr double kSwitchMargin = 0.03;
// How much faster the model must predict one configuration's plan than another's to choose it without measuring:
// the fit predicts every measured candidate of the calibration run within 8% (test_shape_model.cpp, "the fit").
// Closer predictions are the model's tie, and the stages' plans measure them.
constexpr double kModelError = 0.08;
// Workspace cap of the split-K model: 256 MiB (the slices of partial sums, splits x m x n floats).
constexpr std::uint64_t kMaxWorkspaceBytes = std::uint64_t{256} << 20;
// -------------------------------------------------------------------------------------------------------------

// What the model needs of one tile configuration.
struct TileModel {
  std::string name;      // "128x256"
  int block_m = 0, block_n = 0, block_k = 0, stages = 0;
  int blocks_per_sm = 0; // resident blocks per SM of the tile kernel (occupancy calculator)
  TileEfficiency efficiency{0, 0};
  // Resident blocks per SM of chapter 29's partial-sum kernel of this tile, which runs every split plan
  // (occupancy calculator, chapter 29's set-up). 0: not known (chapter 28 plans no split), so no split plan.
  int split_blocks_per_sm = 0;
};

// What the GPU offers.
struct GpuModel {
  int sms = 0;                    // streaming multiprocessors
  double peak_fp32_gflops = 0;    // SMs x FP32 lanes x 2 x clock
  double peak_dram_gbps = 0;      // theoretical DRAM bandwidth
};

struct Plan {
  int config = -1;            // index into the candidates
  int splits = 1;             // 1: no split, the tile kernel writes C
  int k_per_split = 0;        // a multiple of block_k (k when splits == 1)
  long long tiles = 0, blocks = 0, slots = 0;
  long long per_sm = 0;       // blocks on the busiest SM: ceil(blocks / SMs)
  int fit = 0;                // blocks per SM of the plan's kernel: the tile kernel's, or the partial-sum one's
  int resident = 0;           // of those, resident at a time: min(per_sm, fit)
  double mma_seconds = 0, reduce_seconds = 0;
  double seconds() const { return mma_seconds + reduce_seconds; }
  std::uint64_t workspace_bytes = 0;  // splits x m x n floats when splits > 1
};

inline long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// An SM's rate, as a share of its peak, with `resident` blocks of configuration t: measured at one block and at
// blocks_per_sm, assumed linear between (the first GPU run measured no 64x128 plan with 2 or 3 per SM). The
// anchors are the tile kernel's, where the efficiencies were measured; a partial-sum kernel that holds fewer
// blocks never reaches the full rate of blocks_per_sm (3 resident of 64x128: between single and full).
inline double rate_of(const TileModel& t, int resident) {
  if (t.blocks_per_sm <= 1 || resident >= t.blocks_per_sm) return t.efficiency.full;
  const double between = static_cast<double>(std::max(resident, 1) - 1) / (t.blocks_per_sm - 1);
  return t.efficiency.single + between * (t.efficiency.full - t.efficiency.single);
}

// The prediction for configuration `index` of `tiles` at (m, n, k) with `splits` ranges of K.
inline Plan predict(const std::vector<TileModel>& tiles, int index, const GpuModel& gpu, long long m, long long n,
                    long long k, int splits, bool beta_nonzero = true) {
  const TileModel& t = tiles.at(static_cast<std::size_t>(index));
  if (gpu.sms <= 0 || t.blocks_per_sm <= 0 || t.efficiency.full <= 0 || t.efficiency.single <= 0 ||
      gpu.peak_fp32_gflops <= 0 || gpu.peak_dram_gbps <= 0)
    throw std::invalid_argument("shape model: SM count, blocks per SM, efficiencies and peaks must be positive");
  if (m < 0 || n < 0 || k < 0 || splits < 1) throw std::invalid_argument("shape model: negative size or split < 1");
  Plan p;
  p.config = index;
  const long long slices = ceil_div(k, t.block_k);
  const bool split = splits > 1 && slices > 0;  // K = 0 has nothing to split (C = beta C in one kernel)
  const long long per = split ? ceil_div(slices, splits) : slices;  // slices per split
  p.splits = split ? static_cast<int>(ceil_div(slices, per)) : 1;   // no empty split
  p.k_per_split = static_cast<int>(split ? per * t.block_k : k);
  p.tiles = ceil_div(m, t.block_m) * ceil_div(n, t.block_n);
  p.blocks = p.tiles * p.splits;
  // A split plan runs the partial-sum kernel, not the tile kernel: its residency, not the tile kernel's.
  p.fit = p.splits > 1 ? t.split_blocks_per_sm : t.blocks_per_sm;
  if (p.fit <= 0)
    throw std::invalid_argument("shape model: a split of " + t.name +
                                " needs its partial-sum kernel's blocks per SM (chapter 29's set-up)");
  p.slots = static_cast<long long>(gpu.sms) * p.fit;
  p.per_sm = ceil_div(p.blocks, gpu.sms);
  p.resident = static_cast<int>(std::min<long long>(p.per_sm, p.fit));
  const double rate = rate_of(t, p.resident);
  const double sm_macs_per_second = gpu.peak_fp32_gflops * 1e9 / 2.0 / gpu.sms;
  const double block_macs = static_cast<double>(t.block_m) * t.block_n *
                            (static_cast<double>(per * t.block_k) + static_cast<double>(t.stages) * t.block_k);
  p.mma_seconds = p.per_sm ? p.per_sm * block_macs / (rate * sm_macs_per_second) : 0.0;
  if (p.splits > 1) {
    const double mn = static_cast<double>(m) * n;
    p.workspace_bytes = static_cast<std::uint64_t>(p.splits) * static_cast<std::uint64_t>(m) * n * sizeof(float);
    const double bytes = (p.splits + (beta_nonzero ? 2.0 : 1.0)) * mn * sizeof(float);
    p.reduce_seconds = bytes / (kReductionDramShare * gpu.peak_dram_gbps * 1e9) + kLaunchSeconds;
  }
  return p;
}

// The fastest plan of configuration `index` alone, over splits 1 .. max_splits within the limits of choose().
inline Plan best_plan_of(const std::vector<TileModel>& tiles, int index, const GpuModel& gpu, long long m, long long n,
                         long long k, int max_splits = 1, bool beta_nonzero = true) {
  const TileModel& t = tiles.at(static_cast<std::size_t>(index));
  Plan best = predict(tiles, index, gpu, m, n, k, 1, beta_nonzero);
  for (int s = 2; s <= max_splits; ++s) {
    if (s > ceil_div(k, t.block_k) || t.split_blocks_per_sm <= 0) break;
    const Plan p = predict(tiles, index, gpu, m, n, k, s, beta_nonzero);
    if (p.workspace_bytes > kMaxWorkspaceBytes) break;
    if (p.seconds() < best.seconds()) best = p;
  }
  return best;
}

// The rule: the fastest prediction over the configurations (and over splits 1 .. max_splits that leave every
// split at least one slice and the workspace under kMaxWorkspaceBytes, of configurations whose partial-sum
// kernel's blocks per SM are known); a plan other than the first configuration without a split must beat that
// one by kSwitchMargin.
inline Plan choose(const std::vector<TileModel>& tiles, const GpuModel& gpu, long long m, long long n, long long k,
                   int max_splits = 1, bool beta_nonzero = true) {
  if (tiles.empty()) throw std::invalid_argument("shape model: no configurations");
  const Plan base = predict(tiles, 0, gpu, m, n, k, 1, beta_nonzero);
  Plan best = base;
  for (int c = 0; c < static_cast<int>(tiles.size()); ++c) {
    const Plan p = best_plan_of(tiles, c, gpu, m, n, k, max_splits, beta_nonzero);
    if (p.seconds() < best.seconds() && p.seconds() < base.seconds() * (1.0 - kSwitchMargin)) best = p;
  }
  return best;
}

// Each configuration's plan at a shape, and whether the model tells them apart.
struct Ranking {
  std::vector<Plan> plans;  // per configuration: the rule's plan for the chosen one, the best of each other
  int chosen = 0;           // the rule's choice (choose())
  bool decided = false;     // every other plan is predicted slower than the chosen one by more than kModelError
  const Plan& best() const { return plans.at(static_cast<std::size_t>(chosen)); }
};

inline Ranking rank(const std::vector<TileModel>& tiles, const GpuModel& gpu, long long m, long long n, long long k,
                    int max_splits = 1, bool beta_nonzero = true) {
  Ranking r;
  const Plan rule = choose(tiles, gpu, m, n, k, max_splits, beta_nonzero);
  r.chosen = rule.config;
  r.decided = true;
  for (int c = 0; c < static_cast<int>(tiles.size()); ++c) {
    r.plans.push_back(c == r.chosen ? rule : best_plan_of(tiles, c, gpu, m, n, k, max_splits, beta_nonzero));
    if (c != r.chosen && !(r.plans.back().seconds() > rule.seconds() * (1.0 + kModelError))) r.decided = false;
  }
  return r;
}

// "64x128 tiles, split 12 predicted 216.2 us; 128x256 tiles, split 8 378.9 us (+75%)": the chosen plan against
// the others, for a plan line.
inline std::string compare(const std::vector<TileModel>& tiles, const Ranking& r) {
  auto plan_text = [&](const Plan& p) {
    return tiles.at(static_cast<std::size_t>(p.config)).name + " tiles, " +
           (p.splits > 1 ? "split " + std::to_string(p.splits) : std::string("no split"));
  };
  const Plan& best = r.best();
  char buf[64];
  std::snprintf(buf, sizeof buf, " predicted %.1f us", best.seconds() * 1e6);
  std::string out = plan_text(best) + buf;
  for (const Plan& p : r.plans) {
    if (p.config == r.chosen) continue;
    std::snprintf(buf, sizeof buf, " %.1f us (%+.0f%%)", p.seconds() * 1e6,
                  best.seconds() > 0 ? 100.0 * (p.seconds() / best.seconds() - 1.0) : 0.0);
    out += "; " + plan_text(p) + buf;
  }
  return out;
}

// "64x128 tiles, split 4 (K 256 each, workspace 16384 KiB): 512 blocks, 4 per SM of 132 (4 resident at a
// time, 4 fit); predicted 64.5 us (multiply 54.1 + reduction 10.4)".
inline std::string explain(const std::vector<TileModel>& tiles, const Plan& p) {
  const TileModel& t = tiles.at(static_cast<std::size_t>(p.config));
  char buf[512];
  std::string split = p.splits > 1 ? ", split " + std::to_string(p.splits) + " (K " + std::to_string(p.k_per_split) +
                                         " each, workspace " + std::to_string(p.workspace_bytes >> 10) + " KiB)"
                                   : std::string(", no split");
  std::snprintf(buf, sizeof buf,
                "%s tiles%s: %lld blocks, %lld on the busiest of %lld SMs (%d resident at a time, %d fit); "
                "predicted %.1f us (multiply %.1f + reduction %.1f)",
                t.name.c_str(), split.c_str(), p.blocks, p.per_sm, p.fit ? p.slots / p.fit : 0, p.resident, p.fit,
                p.seconds() * 1e6, p.mma_seconds * 1e6, p.reduce_seconds * 1e6);
  return buf;
}

}  // namespace sgemm_shapes
