// Test of exercise 28: the tile rule against chapter 28's own (sgemm_shapes::choose with no split), on chapter 28's
// two H100 candidates and the H100's numbers (as chapter 28's test_shape_model.cpp has them), over a sweep of
// shapes; then the three ways the rule goes wrong, each named: never leaving the default, leaving it for a gain
// inside the model's scatter (below kSwitchMargin), and taking the first configuration that beats the margin
// instead of the fastest. All on the host (the model is plain C++): a host test ("host": true in the manifest), run
// by CI on machines without a GPU. The same source tests the exercise and the solution.
#include <tile_choice.cuh>

#include "doctest.hpp"

#include <string>
#include <vector>

using sgemm_shapes::GpuModel;
using sgemm_shapes::Plan;
using sgemm_shapes::TileModel;

namespace {

// Chapter 28's candidates as the H100 run's set-up read them (chapter 28's test_shape_model.cpp, h100_tiles()).
std::vector<TileModel> h100_tiles() {
  return {
      {"128x256", 128, 256, 16, 3, 1, sgemm_shapes::kEfficiency128x256, 1},
      {"64x128", 64, 128, 16, 3, 4, sgemm_shapes::kEfficiency64x128, 3},
  };
}
GpuModel h100() { return {132, 66908.2, 3352.3}; }  // 132 SMs, FP32 and DRAM peaks (the run's banner)

struct Shape {
  long long m, n, k;
};
std::string text(const Shape& s) {
  return std::to_string(s.m) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k);
}

std::vector<Shape> sweep() {
  std::vector<Shape> shapes;
  for (long long m : {1, 64, 127, 128, 129, 256, 512, 1000, 1024, 2048, 3072, 4096, 5000, 8192})
    for (long long n : {1, 128, 255, 256, 257, 1024, 2048, 3072, 4096, 5000, 8192})
      for (long long k : {0, 16, 1024, 4096}) shapes.push_back({m, n, k});
  return shapes;
}

// "64x128 (predicted 12.3 us)"
std::string plan_text(const std::vector<TileModel>& tiles, const Plan& p) {
  return tiles.at(static_cast<std::size_t>(p.config)).name + " (predicted " + std::to_string(p.seconds() * 1e6) +
         " us)";
}

void require_same_choice(const std::vector<TileModel>& tiles, const GpuModel& gpu, const Shape& s) {
  const Plan want = sgemm_shapes::choose(tiles, gpu, s.m, s.n, s.k, 1);
  const Plan got = tile_choice::choose_tile(tiles, gpu, s.m, s.n, s.k);
  const Plan base = sgemm_shapes::predict(tiles, 0, gpu, s.m, s.n, s.k, 1);
  REQUIRE_MESSAGE(got.config == want.config,
                  text(s) << ": MISMATCH: chose " << plan_text(tiles, got) << ", chapter 28's rule chooses "
                          << plan_text(tiles, want) << "; the default " << tiles[0].name << " is predicted "
                          << base.seconds() * 1e6 << " us, and another configuration must be below "
                          << base.seconds() * (1.0 - sgemm_shapes::kSwitchMargin) * 1e6 << " us to win");
  REQUIRE_MESSAGE(got.splits == 1, text(s) << ": a plan of chapter 28 has no split of K");
  REQUIRE_MESSAGE(got.seconds() == want.seconds(),
                  text(s) << ": the plan's prediction differs from sgemm_shapes::predict's for the same configuration");
}

}  // namespace

TEST_CASE("28: a shape that the default tile leaves mostly idle goes to the smaller tile") {
  // 128 x 4096 x 4096: 16 tiles of 128 x 256 for 132 SMs; 64 tiles of 64 x 128.
  require_same_choice(h100_tiles(), h100(), {128, 4096, 4096});
  require_same_choice(h100_tiles(), h100(), {1024, 1024, 1024});
}

TEST_CASE("28: a gain inside the model's scatter (below kSwitchMargin) keeps the default") {
  const auto tiles = h100_tiles();
  // The shapes of the sweep (K > 0) where 64x128 is predicted faster, but by less than the margin: 5000 x 8192,
  // 8192 x 5000 and 8192^2 at K = 16, 1024 and 4096 (many blocks per SM for both tiles: little to gain).
  std::vector<Shape> inside;
  for (const Shape& s : sweep()) {
    if (s.k == 0) continue;
    const double base = sgemm_shapes::predict(tiles, 0, h100(), s.m, s.n, s.k, 1).seconds();
    const double other = sgemm_shapes::predict(tiles, 1, h100(), s.m, s.n, s.k, 1).seconds();
    if (other < base && other >= base * (1.0 - sgemm_shapes::kSwitchMargin)) inside.push_back(s);
  }
  REQUIRE_MESSAGE(!inside.empty(), "the test's sweep has no shape inside the margin (the model changed?)");
  for (const Shape& s : inside) require_same_choice(tiles, h100(), s);
}

TEST_CASE("28: with three candidates the fastest one past the margin wins, not the first") {
  // A third, hypothetical candidate (64 x 64, 8 blocks per SM, the small tile's efficiencies): at shapes with few
  // tiles it beats 64x128, which beats the default by the margin too.
  auto tiles = h100_tiles();
  tiles.push_back({"64x64", 64, 64, 16, 3, 8, sgemm_shapes::kEfficiency64x128, 0});
  int third_won = 0;
  for (const Shape& s : sweep()) {
    require_same_choice(tiles, h100(), s);
    third_won += sgemm_shapes::choose(tiles, h100(), s.m, s.n, s.k, 1).config == 2;
  }
  REQUIRE_MESSAGE(third_won > 0, "no shape of the sweep chooses the third candidate (the model changed?)");
}

TEST_CASE("28: chapter 28's rule over a sweep of shapes, with the H100's candidates and numbers") {
  for (const Shape& s : sweep()) require_same_choice(h100_tiles(), h100(), s);
  // One candidate: the default, always.
  const std::vector<TileModel> one(1, h100_tiles()[0]);
  for (const Shape& s : sweep()) require_same_choice(one, h100(), s);
}
