// Host tests of the per-SM model (shape_model.hpp) of chapters 28 and 29: the arithmetic of tiles, blocks per SM
// and splits; the fit against the first GPU measurement (H100, commit 03ce2f5); and the plans the rule makes
// on that GPU at the shapes where the first model's choice measured weak.
#include "doctest.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "shape_model.hpp"

using namespace sgemm_shapes;

namespace {
// The two candidates as the H100 run's set-up read them (occupancy calculator: 1 and 4 blocks per SM of the
// tile kernels, 1 and 3 of chapter 29's partial-sum kernels: 64x128's has 159 registers where its tile kernel
// has 127), with the fitted efficiencies.
std::vector<TileModel> h100_tiles() {
  return {
      {"128x256", 128, 256, 16, 3, 1, kEfficiency128x256, 1},
      {"64x128", 64, 128, 16, 3, 4, kEfficiency64x128, 3},
  };
}
// NVIDIA H100 80GB HBM3 as the run's banner gave it: 132 SMs, FP32 and DRAM peaks.
GpuModel h100() { return {132, 66908.2, 3352.3}; }
constexpr int kBig = 0, kSmall = 1;  // 128x256, 64x128
}  // namespace

TEST_CASE("tiles, blocks per SM: 1024^3 and 3072^3 with both tiles on 132 SMs") {
  const auto t = h100_tiles();
  Plan p = predict(t, kBig, h100(), 1024, 1024, 1024, 1);
  CHECK(p.tiles == 32);
  CHECK(p.slots == 132);
  CHECK(p.per_sm == 1);
  CHECK(p.resident == 1);
  p = predict(t, kBig, h100(), 3072, 3072, 3072, 1);
  CHECK(p.tiles == 288);
  CHECK(p.per_sm == 3);  // 2.18 per SM: the busiest SMs run 3
  p = predict(t, kSmall, h100(), 3072, 3072, 3072, 1);
  CHECK(p.tiles == 1152);
  CHECK(p.slots == 528);
  CHECK(p.per_sm == 9);  // 8.73 per SM: 9 on the busiest, 3% over the mean where 128x256 is 38% over
  CHECK(p.resident == 4);
  p = predict(t, kSmall, h100(), 1000, 3000, 700, 1);  // ragged: ceil in both dimensions
  CHECK(p.tiles == 16 * 24);
  CHECK(p.per_sm == 3);
  CHECK(p.resident == 3);
  CHECK(p.k_per_split == 700);
}

TEST_CASE("rate: one block alone, a full SM, linear between") {
  const auto t = h100_tiles();
  CHECK(rate_of(t[kBig], 1) == doctest::Approx(kEfficiency128x256.full));
  CHECK(rate_of(t[kSmall], 1) == doctest::Approx(kEfficiency64x128.single));
  CHECK(rate_of(t[kSmall], 4) == doctest::Approx(kEfficiency64x128.full));
  CHECK(rate_of(t[kSmall], 9) == doctest::Approx(kEfficiency64x128.full));
  CHECK(rate_of(t[kSmall], 2) > kEfficiency64x128.single);
  CHECK(rate_of(t[kSmall], 2) < rate_of(t[kSmall], 3));
  CHECK(rate_of(t[kSmall], 3) < kEfficiency64x128.full);
}

TEST_CASE("split: K cut into ranges of whole slices, no empty split, workspace splits x m x n floats") {
  const auto t = h100_tiles();
  Plan p = predict(t, kBig, h100(), 1024, 1024, 1024, 4);
  CHECK(p.splits == 4);
  CHECK(p.k_per_split == 256);
  CHECK(p.blocks == 128);
  CHECK(p.workspace_bytes == 4ull * 1024 * 1024 * 4);
  CHECK(p.reduce_seconds > kLaunchSeconds);
  // beta = 0: C is not read, the reduction moves one pass of C fewer.
  CHECK(predict(t, kBig, h100(), 1024, 1024, 1024, 4, false).reduce_seconds < p.reduce_seconds);
  // K = 80 is 5 slices of 16: 4 splits would be 2, 2, 1 and an empty one, so 3 splits of 32.
  p = predict(t, kBig, h100(), 256, 256, 80, 4);
  CHECK(p.splits == 3);
  CHECK(p.k_per_split == 32);
  CHECK(p.k_per_split * (p.splits - 1) < 80);
  // K not a multiple of the slice: 1000 = 62.5 slices of 16; 3 splits of 21 slices (336), the last 328.
  p = predict(t, kBig, h100(), 128, 128, 1000, 3);
  CHECK(p.splits == 3);
  CHECK(p.k_per_split == 336);
  // K = 0: nothing to split (a fixed split variant asks for 2): one kernel, C = beta C, no workspace. This
  // divided by zero (SIGFPE) before: the first GPU run of chapter 29's tests found it.
  for (int splits : {2, 8}) {
    p = predict(t, kBig, h100(), 17, 19, 0, splits);
    CHECK(p.splits == 1);
    CHECK(p.k_per_split == 0);
    CHECK(p.workspace_bytes == 0);
  }
  p = choose(t, h100(), 17, 19, 0, 64);
  CHECK(p.splits == 1);
}

TEST_CASE("a split plan counts the partial-sum kernel's blocks per SM (3 of 64x128), not the tile kernel's (4)") {
  const auto t = h100_tiles();
  REQUIRE(t[kSmall].blocks_per_sm == 4);
  REQUIRE(t[kSmall].split_blocks_per_sm == 3);
  // 4096 x 128 x 4096 in 8 splits: 64 tiles x 8 = 512 blocks, 4 on the busiest SM, of which the partial-sum
  // kernel holds 3 at a time. The model counted 4 (the tile kernel's) before, and predicted the full rate.
  const Plan p = predict(t, kSmall, h100(), 4096, 128, 4096, 8);
  CHECK(p.splits == 8);
  CHECK(p.per_sm == 4);
  CHECK(p.fit == 3);
  CHECK(p.resident == 3);
  CHECK(p.slots == 132 * 3);
  // The multiply term at the rate of 3 resident blocks (the formula itself unchanged). Times compared in us:
  // doctest::Approx's default scale of 1 would let any two times of a few hundred us pass as equal.
  const double sm_macs_per_second = h100().peak_fp32_gflops * 1e9 / 2.0 / h100().sms;
  const double block_macs = 64.0 * 128.0 * (512 + 3 * 16);
  CHECK(p.mma_seconds * 1e6 == doctest::Approx(4 * block_macs / (rate_of(t[kSmall], 3) * sm_macs_per_second) * 1e6));
  CHECK(rate_of(t[kSmall], 3) < kEfficiency64x128.full);
  // The same tile with a partial-sum kernel that held 4 would predict the full rate: shorter.
  auto as_many = t;
  as_many[kSmall].split_blocks_per_sm = 4;
  const Plan four = predict(as_many, kSmall, h100(), 4096, 128, 4096, 8);
  CHECK(four.resident == 4);
  CHECK(four.mma_seconds * 1e6 == doctest::Approx(4 * block_macs / (kEfficiency64x128.full * sm_macs_per_second) * 1e6));
  CHECK(p.mma_seconds > four.mma_seconds);
  CHECK(p.reduce_seconds * 1e6 == doctest::Approx(four.reduce_seconds * 1e6));  // the reduction does not depend on it
  // Without a split the tile kernel runs: its 4 blocks per SM, whatever the partial-sum kernel holds.
  const Plan unsplit = predict(t, kSmall, h100(), 4096, 4096, 4096, 1);
  CHECK(unsplit.fit == 4);
  CHECK(unsplit.resident == 4);
  CHECK(unsplit.mma_seconds * 1e6 ==
        doctest::Approx(predict(as_many, kSmall, h100(), 4096, 4096, 4096, 1).mma_seconds * 1e6));
  // A split asked of K = 16 (one slice) is no split: the tile kernel runs, and the model counts it.
  CHECK(predict(t, kSmall, h100(), 4096, 128, 16, 8).fit == 4);
  // The partial-sum kernel holds as many 128x256 blocks as the tile kernel (1): its split plans are as before.
  CHECK(predict(t, kBig, h100(), 128, 4096, 4096, 8).fit == 1);
  // 4096 x 128 x 4096 on the H100: with 4 counted, split 8 (4 per SM) was the plan; with 3, a split whose
  // blocks all fit at once (6: 384 blocks, 3 per SM) predicts less. Split 4 (2 per SM) is not predicted faster
  // than split 8 by the model either way.
  const Plan was = choose(as_many, h100(), 4096, 128, 4096, 64);
  CHECK(was.config == kSmall);
  CHECK(was.splits == 8);
  const Plan now = choose(t, h100(), 4096, 128, 4096, 64);
  INFO(explain(t, now));
  CHECK(now.config == kSmall);
  CHECK(now.splits == 6);
  CHECK(now.per_sm == 3);
  CHECK(now.resident == 3);
  CHECK(predict(t, kSmall, h100(), 4096, 128, 4096, 4).seconds() > p.seconds());
}

TEST_CASE("a configuration whose partial-sum kernel's blocks per SM are unknown (0) gets no split plan") {
  auto t = h100_tiles();
  for (auto& c : t) c.split_blocks_per_sm = 0;  // chapter 28's set-up leaves it so: chapter 28 never splits
  CHECK_THROWS_AS(predict(t, kSmall, h100(), 1024, 1024, 16384, 4), std::invalid_argument);
  CHECK(predict(t, kSmall, h100(), 1024, 1024, 16384, 1).fit == 4);
  CHECK(choose(t, h100(), 128, 4096, 4096, 64).splits == 1);  // split 8 with both known (below)
  CHECK(choose(h100_tiles(), h100(), 128, 4096, 4096, 64).splits == 8);
}

TEST_CASE("the fit: every measured candidate of the H100 run (results/h100-03ce2f5) predicted within kModelError") {
  // (tile, m, n, k, splits, measured median us) from candidates.csv, both kept tiles, every row.
  struct Row {
    int tile;
    long long m, n, k;
    int splits;
    double us;
  };
  const Row rows[] = {
      {kSmall, 1024, 1024, 1024, 1, 67.7},    {kBig, 1024, 1024, 1024, 1, 194.5},  {kBig, 1024, 1024, 1024, 2, 107.1},
      {kBig, 1024, 1024, 1024, 4, 64.5},      {kBig, 1024, 1024, 1024, 8, 74.9},   {kSmall, 3072, 3072, 3072, 1, 1272},
      {kBig, 3072, 3072, 3072, 1, 1641},      {kBig, 3072, 3072, 3072, 2, 1435},   {kBig, 3072, 3072, 3072, 4, 1353},
      {kBig, 3072, 3072, 3072, 8, 1430},      {kBig, 4096, 4096, 4096, 1, 2968},   {kSmall, 4096, 4096, 4096, 1, 2978},
      {kBig, 4096, 4096, 4096, 2, 3096},      {kBig, 4096, 4096, 4096, 4, 3155},   {kBig, 4096, 4096, 4096, 8, 3272},
      {kSmall, 128, 4096, 4096, 1, 240.4},    {kBig, 128, 4096, 4096, 1, 733.4},   {kBig, 128, 4096, 4096, 2, 377.5},
      {kBig, 128, 4096, 4096, 4, 196.2},      {kBig, 128, 4096, 4096, 8, 110.5},   {kSmall, 1024, 1024, 16384, 1, 918.3},
      {kBig, 1024, 1024, 16384, 1, 2908},     {kBig, 1024, 1024, 16384, 2, 1489},  {kBig, 1024, 1024, 16384, 4, 757.1},
      {kBig, 1024, 1024, 16384, 8, 764.5},
  };
  const auto t = h100_tiles();
  for (const Row& r : rows) {
    const double predicted = predict(t, r.tile, h100(), r.m, r.n, r.k, r.splits).seconds() * 1e6;
    INFO(t[static_cast<std::size_t>(r.tile)].name, " ", r.m, "x", r.n, "x", r.k, " split ", r.splits, ": predicted ",
         predicted, " us, measured ", r.us);
    CHECK(predicted / r.us == doctest::Approx(1.0).epsilon(kModelError));  // the plans' error is the fit's
  }
}

TEST_CASE("the rule on the H100: the default where it is as fast, 64x128 where blocks are few or fall unevenly") {
  const auto t = h100_tiles();
  Plan p = choose(t, h100(), 4096, 4096, 4096);
  CHECK(p.config == kBig);  // 4 vs 16 blocks per SM: the same time; the default stays
  p = choose(t, h100(), 1024, 1024, 1024, 64);
  CHECK(p.config == kSmall);  // 128 blocks of a quarter of the work each (measured 1.047x cuBLAS)
  CHECK(p.splits == 1);
  CHECK(choose(t, h100(), 8192, 8192, 1024, 64).splits == 1);  // 16 per SM already; a split only adds traffic
  CHECK(choose(t, h100(), 5000, 5000, 5000, 64).config == kSmall);  // 24 per SM where 128x256 has 7 for 6.06
  // Splits never exceed the slices of K, and K = 0 or 1 never splits.
  CHECK(choose(t, h100(), 64, 64, 1, 64).splits == 1);
  CHECK(choose(t, h100(), 64, 64, 0, 64).splits == 1);
  CHECK(choose(t, h100(), 17, 19, 48, 64).splits <= 3);
}

// The shapes where the first model's plan measured weak (stage 29 / cuBLAS in results/h100-03ce2f5/shapes.csv),
// and the plan the measured efficiencies give now, with the measurement that backs it (where there is one).
TEST_CASE("weak shapes of the first H100 run: the plans of the calibrated model") {
  struct Expected {
    long long m, n, k;
    int config, splits;
    long long per_sm;  // blocks on the busiest SM; 0: not checked
    const char* why;   // the first run's plan and ratio, and what backs the new plan
  };
  const Expected cases[] = {
      {3072, 3072, 3072, kSmall, 1, 9, "0.73x with 192x128; tile-64x128 measured 1.047x"},
      {1536, 1536, 1536, kSmall, 3, 7, "0.81x with 192x128 split 4"},
      {1000, 1000, 1000, kSmall, 1, 1, "0.82x with 96x128 split 3; as 1024^3, where tile-64x128 measured 1.047x"},
      {4096, 128, 4096, kSmall, 6, 3,
       "0.70x with 192x128 split 6; N = 128 is half a 128x256 tile; split 8 (4 per SM) while the model counted the "
       "tile kernel's 4 blocks per SM, not the partial-sum kernel's 3"},
      {2048, 512, 8192, kBig, 4, 1, "0.68x with 192x128 split 3; 128 blocks as splitk-128x256-s4 at 1024x1024x16384"},
      {3000, 1000, 2000, kSmall, 1, 3, "0.73x with 192x128"},
      {4096, 4096, 256, kBig, 1, 4, "0.87x; 64x128 predicts the same time, so the default stays"},
      {128, 4096, 4096, kBig, 8, 1, "0.88x with this plan, 0.958x as splitk-128x256-s8 (the launch ran the model)"},
      {1024, 1024, 16384, kBig, 4, 1, "0.88x with this plan, 0.913x as splitk-128x256-s4"},
  };
  const auto t = h100_tiles();
  for (const Expected& e : cases) {
    const Plan p = choose(t, h100(), e.m, e.n, e.k, 64);
    INFO(e.m, "x", e.n, "x", e.k, " (", e.why, "): ", explain(t, p));
    CHECK(p.config == e.config);
    CHECK(p.splits == e.splits);
    if (e.per_sm) CHECK(p.per_sm == e.per_sm);
  }
  // 4096x4096x256: the two tiles predict within the margin of each other (relative: scale 0; with the default
  // scale of 1 any two times under a second passed).
  const double big = predict(t, kBig, h100(), 4096, 4096, 256, 1).seconds();
  CHECK(predict(t, kSmall, h100(), 4096, 4096, 256, 1).seconds() ==
        doctest::Approx(big).epsilon(kSwitchMargin).scale(0));
}

TEST_CASE("the model refuses what it cannot predict") {
  const auto t = h100_tiles();
  CHECK_THROWS(predict(t, 0, GpuModel{0, 1.0, 1.0}, 1, 1, 1, 1));
  CHECK_THROWS(predict(t, 0, GpuModel{132, 1.0, 0.0}, 1, 1, 1, 1));
  CHECK_THROWS(predict(t, 0, h100(), -1, 1, 1, 1));
  CHECK_THROWS(predict(t, 0, h100(), 1, 1, 1, 0));
  CHECK_THROWS(choose({}, h100(), 1, 1, 1));
  CHECK(explain(t, predict(t, 0, h100(), 1024, 1024, 1024, 1))
            .find("128x256 tiles, no split: 32 blocks, 1 on the busiest of 132 SMs (1 resident at a time, 1 fit)") == 0);
}

// ---- The stages' plans per GPU (docs/tuning-per-gpu.md): rank() --------------------------------------------------

TEST_CASE("choose() is the fastest plan over every configuration and split, the default kept within the margin") {
  // The rule as first written, a double loop over configurations and splits; choose() now takes each
  // configuration's best_plan_of(). Every shape of a sweep, with and without splits, must give the same plan.
  const auto t = h100_tiles();
  auto loop_rule = [&](long long m, long long n, long long k, int max_splits) {
    const Plan base = predict(t, 0, h100(), m, n, k, 1);
    Plan best = base;
    for (int c = 0; c < 2; ++c)
      for (int s = 1; s <= max_splits; ++s) {
        if (s > 1 && s > ceil_div(k, t[static_cast<std::size_t>(c)].block_k)) break;
        const Plan p = predict(t, c, h100(), m, n, k, s);
        if (p.workspace_bytes > kMaxWorkspaceBytes) break;
        if (p.seconds() < best.seconds() && p.seconds() < base.seconds() * (1.0 - kSwitchMargin)) best = p;
      }
    return best;
  };
  for (long long m : {1LL, 64LL, 127LL, 1000LL, 3072LL, 8192LL})
    for (long long n : {1LL, 129LL, 4096LL, 5000LL})
      for (long long k : {0LL, 16LL, 1000LL, 16384LL})
        for (int max_splits : {1, 64}) {
          const Plan a = choose(t, h100(), m, n, k, max_splits), b = loop_rule(m, n, k, max_splits);
          INFO(m, "x", n, "x", k, " max_splits ", max_splits, ": ", explain(t, a), " against ", explain(t, b));
          CHECK(a.config == b.config);
          CHECK(a.splits == b.splits);
        }
}

TEST_CASE("rank: each tile's plan, the rule's choice, and whether the model tells them apart (H100)") {
  const auto t = h100_tiles();
  // 4096^3 without splits (chapter 28): 2947.9 against 2989.1 us, 1.4% apart: the model's tie, measured.
  Ranking r = rank(t, h100(), 4096, 4096, 4096);
  CHECK(r.chosen == kBig);
  CHECK_FALSE(r.decided);
  REQUIRE(r.plans.size() == 2);
  CHECK(r.plans[kSmall].config == kSmall);
  CHECK(r.best().config == kBig);
  // 3072^3: 64x128's 9 blocks per SM against 128x256's uneven 3: 31% apart, the model decides.
  r = rank(t, h100(), 3072, 3072, 3072);
  CHECK(r.chosen == kSmall);
  CHECK(r.decided);
  // 1024^3: unsplit (chapter 28) the model decides 64x128; with splits (chapter 29) 128x256 split 4 predicts within
  // 3% of it, where the H100 measured splitk-128x256-s4 ahead of the model's plan (chapter 29's README): measured.
  r = rank(t, h100(), 1024, 1024, 1024);
  CHECK(r.chosen == kSmall);
  CHECK(r.decided);
  r = rank(t, h100(), 1024, 1024, 1024, 64);
  CHECK(r.chosen == kSmall);
  CHECK(r.plans[kBig].splits == 4);
  CHECK_FALSE(r.decided);
  // A single configuration is always decided.
  CHECK(rank({t[kSmall]}, h100(), 4096, 4096, 4096).decided);
}

TEST_CASE("rank: skinny shapes with a long K (one side of 64 or less): the small tile, split to fill the SMs") {
  const auto t = h100_tiles();
  struct Expected {
    long long m, n, k;
    int splits;           // 64x128's best split (chapter 29)
    int other_splits;     // 128x256's best split
  };
  // 64 x 4096 x 16384: 32 tiles of 64 x 128 (M = 64 is one tile row; 128 x 256 wastes half its rows on 16 tiles).
  // Split 12 makes 384 blocks, 3 on every SM, as many as the partial-sum kernel holds; 128 x 256's best, split 8
  // (128 blocks, 1 per SM), is predicted 75% slower: the model decides.
  const Expected cases[] = {{64, 4096, 16384, 12, 8}, {4096, 64, 16384, 6, 4}, {32, 4096, 16384, 12, 8},
                            {64, 8192, 8192, 6, 4}};
  for (const Expected& e : cases) {
    const Ranking r = rank(t, h100(), e.m, e.n, e.k, 64);
    INFO(e.m, "x", e.n, "x", e.k, ": ", compare(t, r));
    CHECK(r.chosen == kSmall);
    CHECK(r.decided);
    CHECK(r.best().splits == e.splits);
    CHECK(r.best().resident == 3);
    CHECK(r.plans[kBig].splits == e.other_splits);
    CHECK(r.plans[kBig].seconds() > 1.5 * r.best().seconds());
    // Without splits (chapter 28) the small tile still wins clearly: twice the tiles of the large one, or more.
    const Ranking unsplit = rank(t, h100(), e.m, e.n, e.k);
    CHECK(unsplit.chosen == kSmall);
    CHECK(unsplit.decided);
    CHECK(unsplit.best().splits == 1);
  }
}

TEST_CASE("compare: the plan line's words, the chosen plan first") {
  const auto t = h100_tiles();
  const Ranking r = rank(t, h100(), 64, 4096, 16384, 64);
  const std::string text = compare(t, r);
  INFO(text);
  CHECK(text.rfind("64x128 tiles, split 12 predicted 216.", 0) == 0);
  CHECK(text.find("; 128x256 tiles, split 8 378.") != std::string::npos);
  CHECK(text.find("(+75%)") != std::string::npos);
  CHECK(compare(t, rank(t, h100(), 3072, 3072, 3072)).find("64x128 tiles, no split predicted") == 0);
}

TEST_CASE("best_plan_of: a configuration's fastest split within choose()'s limits") {
  const auto t = h100_tiles();
  CHECK(best_plan_of(t, kBig, h100(), 128, 4096, 4096, 64).splits == 8);
  CHECK(best_plan_of(t, kBig, h100(), 128, 4096, 4096, 1).splits == 1);
  CHECK(best_plan_of(t, kSmall, h100(), 4096, 128, 4096, 64).splits == 6);
  CHECK(best_plan_of(t, kBig, h100(), 64, 64, 1, 64).splits == 1);  // one slice of K: nothing to split
  auto unknown = t;
  unknown[kSmall].split_blocks_per_sm = 0;  // chapter 28: no split plans
  CHECK(best_plan_of(unknown, kSmall, h100(), 4096, 128, 4096, 64).splits == 1);
  // The workspace cap: 256 MiB of partial sums at most.
  CHECK(best_plan_of(t, kBig, h100(), 8192, 8192, 65536, 64).workspace_bytes <= kMaxWorkspaceBytes);
}
