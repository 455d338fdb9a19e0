// Host tests of the wave model (shape_model.hpp) of chapters 28 and 29: the arithmetic of tiles, waves and
// fill, and the choices the rule makes on an H200-like GPU (132 SMs) at the shapes of the issue.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "doctest.hpp"

#include <vector>

#include "shape_model.hpp"

using namespace sgemm_shapes;

namespace {
// Blocks per SM as ptxas's registers give them on sm_90 (chapter 27's table; the chapter reads them from the
// occupancy calculator on the GPU).
std::vector<TileModel> h200_tiles() {
  return {
      {"128x256", 128, 256, 16, 3, 1, 0.691},
      {"128x128", 128, 128, 16, 3, 2, 0.682},
      {"192x128", 192, 128, 24, 3, 1, 0.691},
      {"96x128", 96, 128, 24, 3, 2, 0.682},
      {"64x128", 64, 128, 16, 3, 3, 0.682},
  };
}
GpuModel h200() { return {132, 66900.0, 4814.0}; }
}  // namespace

TEST_CASE("tiles, waves and fill: 1024^3 and 3072^3 with 128 x 256 tiles on 132 SMs") {
  const auto t = h200_tiles();
  Plan p = predict(t, 0, h200(), 1024, 1024, 1024, 1);
  CHECK(p.tiles == 32);
  CHECK(p.slots == 132);
  CHECK(p.waves == 1);
  CHECK(p.last_wave_fill == doctest::Approx(32.0 / 132));
  p = predict(t, 0, h200(), 3072, 3072, 3072, 1);
  CHECK(p.tiles == 288);
  CHECK(p.waves == 3);
  CHECK(p.last_wave_fill == doctest::Approx(24.0 / 132));  // the 18% of the issue
  p = predict(t, 0, h200(), 1000, 3000, 700, 1);  // ragged: ceil in both dimensions
  CHECK(p.tiles == 8 * 12);
  CHECK(p.k_per_split == 700);
}

TEST_CASE("split: K cut into ranges of whole slices, no empty split, workspace splits x m x n floats") {
  const auto t = h200_tiles();
  Plan p = predict(t, 0, h200(), 1024, 1024, 1024, 4);
  CHECK(p.splits == 4);
  CHECK(p.k_per_split == 256);
  CHECK(p.blocks == 128);
  CHECK(p.workspace_bytes == 4ull * 1024 * 1024 * 4);
  CHECK(p.reduce_seconds > kLaunchSeconds);
  // K = 80 is 5 slices of 16: 4 splits would be 2, 2, 1 and an empty one, so 3 splits of 32.
  p = predict(t, 0, h200(), 256, 256, 80, 4);
  CHECK(p.splits == 3);
  CHECK(p.k_per_split == 32);
  CHECK(p.k_per_split * (p.splits - 1) < 80);
  // K not a multiple of the slice: 1000 = 62.5 slices of 16; 3 splits of 21 slices (336), the last 328.
  p = predict(t, 0, h200(), 128, 128, 1000, 3);
  CHECK(p.splits == 3);
  CHECK(p.k_per_split == 336);
}

TEST_CASE("the rule: the default at 4096^3, a 3/4-wave tile at 3072^3, a split where C has few tiles") {
  const auto t = h200_tiles();
  CHECK(choose(t, h200(), 4096, 4096, 4096).config == 0);  // 3.88 waves: nothing beats it by 5%
  const Plan p3072 = choose(t, h200(), 3072, 3072, 3072);
  CHECK((t[p3072.config].name == "192x128" || t[p3072.config].name == "96x128"));  // 2.91 waves, not 2.18 of 3
  CHECK(p3072.waves == 3);
  // Without splits the skinny shapes cannot fill the GPU; with them they do.
  const Plan skinny = choose(t, h200(), 128, 4096, 4096, 16);
  CHECK(skinny.splits > 1);
  CHECK(skinny.blocks >= 100);
  const Plan deep = choose(t, h200(), 1024, 1024, 16384, 16);
  CHECK(deep.splits > 1);
  CHECK(choose(t, h200(), 8192, 8192, 1024, 16).splits == 1);  // 15.5 waves already; the workspace would be 512 MiB
  // Splits never exceed the slices of K, and K = 0 or 1 never splits.
  CHECK(choose(t, h200(), 64, 64, 1, 16).splits == 1);
  CHECK(choose(t, h200(), 64, 64, 0, 16).splits == 1);
  CHECK(choose(t, h200(), 17, 19, 48, 16).splits <= 3);
}

TEST_CASE("the model refuses what it cannot predict") {
  const auto t = h200_tiles();
  CHECK_THROWS(predict(t, 0, GpuModel{0, 1.0, 1.0}, 1, 1, 1, 1));
  CHECK_THROWS(predict(t, 0, h200(), -1, 1, 1, 1));
  CHECK_THROWS(predict(t, 0, h200(), 1, 1, 1, 0));
  CHECK_THROWS(choose({}, h200(), 1, 1, 1));
  CHECK(explain(t, predict(t, 0, h200(), 1024, 1024, 1024, 1)).find("128x256 tiles, no split: 32 blocks = 0.24 waves of 132") == 0);
}
