// Host tests of chapter 58's plan and work units (split_k_schedule.hpp): the rule's band and split for the sweep's
// shapes on 132 SMs (an H100 SXM or an H200) and on fewer; the run-time band order is chapter 57's tile_of; and over
// many plans the units cover every slice of every tile exactly once, in ranges that are never empty and differ by
// at most one slice (a unit with no slice would free a stage it never filled: the ring's protocol assumes one).
#include "doctest.hpp"

#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "split_k_schedule.hpp"

using namespace gemm_split_k;

namespace {

// The stage's tile: 128 x 256 x 64.
constexpr SplitKPlan stage_plan(int sms, int m, int n, int k, int forced = 0) {
  return plan_split_k(sms, m, n, k, 128, 256, 64, forced);
}

// Every unit of the plan: each (tile, slice) once; ranges non-empty, at most one slice apart; split-major order.
void check_units(const SplitKPlan& p) {
  CAPTURE(p.tiles_m);
  CAPTURE(p.tiles_n);
  CAPTURE(p.slices);
  CAPTURE(p.splits);
  CAPTURE(p.band_rows);
  std::vector<int> slices_of_tile(static_cast<std::size_t>(p.tiles()), 0);
  std::set<std::tuple<int, int, int>> seen;  // (row, col, slice)
  int shortest = p.slices, longest = 0;
  for (int u = 0; u < p.units(); ++u) {
    const WorkUnit w = unit_of(u, p);
    REQUIRE(w.split == u / p.tiles());
    REQUIRE(w.first_slice < w.end_slice);
    REQUIRE(w.first_slice >= 0);
    REQUIRE(w.end_slice <= p.slices);
    shortest = std::min(shortest, w.end_slice - w.first_slice);
    longest = std::max(longest, w.end_slice - w.first_slice);
    for (int s = w.first_slice; s < w.end_slice; ++s) REQUIRE(seen.insert({w.tile.row, w.tile.col, s}).second);
  }
  CHECK(seen.size() == static_cast<std::size_t>(p.tiles()) * p.slices);
  CHECK(longest - shortest <= 1);
}

}  // namespace

TEST_CASE("the band: chapter 57's rule for the SMs in use (16 on 132 SMs, 8 on 114, 4 on 28)") {
  CHECK(stage_plan(132, 4096, 4096, 4096).band_rows == 16);
  CHECK(stage_plan(114, 4096, 4096, 4096).band_rows == 8);
  CHECK(stage_plan(92, 4096, 4096, 4096).band_rows == 8);
  CHECK(stage_plan(28, 4096, 4096, 4096).band_rows == 4);
  CHECK(stage_plan(1, 4096, 4096, 4096).band_rows == 1);
}

TEST_CASE("the split on 132 SMs: none where the tiles fill a wave, else a wave of units of at least 4 slices") {
  struct Case {
    int m, n, k, tiles, splits;
  };
  const Case cases[] = {
      {4096, 4096, 4096, 512, 1},    {8192, 8192, 8192, 2048, 1}, {2048, 2048, 2048, 128, 1},
      {8192, 8192, 128, 2048, 1},    {8192, 16, 4096, 64, 2},     {16, 8192, 4096, 32, 4},
      {128, 8192, 8192, 32, 4},      {1024, 1024, 1024, 32, 4},   {1000, 1000, 1000, 32, 4},
      {512, 512, 512, 8, 2},         {1024, 1024, 16384, 32, 4},  {256, 256, 65536, 2, 66},
      {64, 64, 131072, 1, 132},      {4095, 4097, 4096, 544, 1},  {1, 1, 64, 1, 1},
      {1, 1, 255, 1, 1},             {1, 1, 256, 1, 1},           {1, 1, 512, 1, 2},
  };
  for (const Case& c : cases) {
    CAPTURE(c.m);
    CAPTURE(c.n);
    CAPTURE(c.k);
    const SplitKPlan p = stage_plan(132, c.m, c.n, c.k);
    CHECK(p.tiles() == c.tiles);
    CHECK(p.splits == c.splits);
    CHECK(p.units() <= std::max(132, p.tiles()));  // never past one wave because of the split
    if (p.splits > 1) CHECK(p.slices / p.splits >= kMinSlicesPerSplit);
    check_units(p);
  }
}

TEST_CASE("the split follows the SMs: fewer SMs, fewer ranges (92 SMs: 46 and 92 where 132 SMs take 66 and 132)") {
  CHECK(stage_plan(92, 256, 256, 65536).splits == 46);
  CHECK(stage_plan(92, 64, 64, 131072).splits == 92);
  CHECK(stage_plan(92, 1024, 1024, 16384).splits == 2);
  CHECK(stage_plan(28, 1024, 1024, 16384).splits == 1);
  CHECK(stage_plan(0, 64, 64, 131072).splits == 1);
}

TEST_CASE("forced splits: taken as given, cut to one slice per range, never below 1") {
  CHECK(stage_plan(132, 4096, 4096, 4096, 3).splits == 3);
  CHECK(stage_plan(132, 257, 513, 576, 9).splits == 9);
  CHECK(stage_plan(132, 257, 513, 576, 64).splits == 9);
  CHECK(stage_plan(132, 130, 260, 8, 4).splits == 1);
  CHECK(stage_plan(132, 130, 260, 0, 4).splits == 1);  // K = 0 (the kernel is not launched: chapter 54's path)
  for (int splits : {1, 2, 3, 5, 7, 9}) check_units(stage_plan(132, 257, 513, 576, splits));
}

TEST_CASE("the run-time band order is chapter 57's compile-time tile_of") {
  for (auto [tiles_m, tiles_n] : {std::pair{5, 4}, std::pair{32, 16}, std::pair{33, 9}, std::pair{1, 7}, std::pair{17, 1}}) {
    CAPTURE(tiles_m);
    CAPTURE(tiles_n);
    for (int t = 0; t < tiles_m * tiles_n; ++t) {
      CAPTURE(t);
      const auto same = [&](TileCoord a, TileCoord b) { return a.row == b.row && a.col == b.col; };
      CHECK(same(tile_in_bands(t, 1, tiles_m, tiles_n), gemm_persistent::tile_of<1>(t, tiles_m, tiles_n)));
      CHECK(same(tile_in_bands(t, 2, tiles_m, tiles_n), gemm_persistent::tile_of<2>(t, tiles_m, tiles_n)));
      CHECK(same(tile_in_bands(t, 8, tiles_m, tiles_n), gemm_persistent::tile_of<8>(t, tiles_m, tiles_n)));
      CHECK(same(tile_in_bands(t, 16, tiles_m, tiles_n), gemm_persistent::tile_of<16>(t, tiles_m, tiles_n)));
    }
  }
}

TEST_CASE("units of random plans cover every slice of every tile once") {
  std::mt19937 rng(58);
  std::uniform_int_distribution<int> sms(1, 160), dim(1, 1500), k(1, 4000), forced(0, 40);
  for (int i = 0; i < 300; ++i) {
    const int f = forced(rng);
    check_units(stage_plan(sms(rng), dim(rng), dim(rng), k(rng), f > 30 ? 0 : f));
  }
}
