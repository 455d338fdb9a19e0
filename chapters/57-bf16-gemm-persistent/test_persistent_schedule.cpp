// Host tests of chapter 57's schedule (persistent_schedule.hpp): the rasterised order visits every tile once and
// keeps a wave inside a band, and the ring's protocol, replayed with emulated mbarriers and every interleaving a
// random scheduler picks, hands each consumer the slice it expects across tile boundaries, never refills a stage
// that is still being read, and never stops. The same replay with the slice counter restarted at each tile, or
// without freeing a tile's last stage before its epilogue, must fail.
#include "doctest.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "persistent_schedule.hpp"
#include "ring_replay.hpp"

using namespace gemm_persistent;

namespace {

// ---- The tile order ------------------------------------------------------------------------------------------
template <int kBandRows>
void check_order(int tiles_m, int tiles_n) {
  CAPTURE(kBandRows);
  CAPTURE(tiles_m);
  CAPTURE(tiles_n);
  std::set<std::pair<int, int>> seen;
  for (int t = 0; t < tiles_m * tiles_n; ++t) {
    const TileCoord c = tile_of<kBandRows>(t, tiles_m, tiles_n);
    REQUIRE(c.row >= 0);
    REQUIRE(c.row < tiles_m);
    REQUIRE(c.col >= 0);
    REQUIRE(c.col < tiles_n);
    REQUIRE(seen.insert({c.row, c.col}).second);  // no tile twice
    REQUIRE(c.row / kBandRows == t / (kBandRows * tiles_n));  // band after band
    if (kBandRows == 1) {
      CHECK(c.row == t / tiles_n);  // row by row
      CHECK(c.col == t % tiles_n);
    }
  }
}

// The rows of A and B one slice of the first wave (tiles 0 .. blocks - 1) reads: one panel per tile-row and
// tile-column it touches.
template <int kBandRows>
long long first_wave_panel_rows(int tiles_m, int tiles_n, int blocks, int block_m, int block_n) {
  std::set<int> rows, cols;
  for (int t = 0; t < std::min(blocks, tiles_m * tiles_n); ++t) {
    const TileCoord c = tile_of<kBandRows>(t, tiles_m, tiles_n);
    rows.insert(c.row);
    cols.insert(c.col);
  }
  return static_cast<long long>(rows.size()) * block_m + static_cast<long long>(cols.size()) * block_n;
}

// ---- The ring, replayed (ring_replay.hpp: the replay exercise 57-slice-ring-phase runs too) --------------------
// SliceRing as the replay's rule: slice s of the block's tile number `tile` is slice count tile * slices + s of the
// block's stream, and the producer waits on empty from count kStages on, as in the kernel (gemm_persistent.cuh).
// kPerTile plants a counter restarted at each tile: count = s.
template <int kStages_, bool kPerTile = false>
struct KernelRing {
  static constexpr int kStages = kStages_;
  using Ring = SliceRing<kStages>;
  static std::uint32_t count(int tile, int s, int slices) {
    return static_cast<std::uint32_t>(kPerTile ? s : tile * slices + s);
  }
  static int stage(int tile, int s, int slices) { return Ring::stage(count(tile, s, slices)); }
  static unsigned full_parity(int tile, int s, int slices) { return Ring::full_parity(count(tile, s, slices)); }
  static unsigned empty_parity(int tile, int s, int slices) { return Ring::empty_parity(count(tile, s, slices)); }
  static bool waits_empty(int tile, int s, int slices) { return count(tile, s, slices) >= kStages; }
};

// Every tile count 1..5 and slice count 1..9, 30 interleavings each; the first failure's description, or "".
template <class Ring>
std::string replay_all(ring_replay::Planted planted = ring_replay::Planted::kNone) {
  return ring_replay::replay_all<Ring>(5, 9, 30, planted);
}

}  // namespace

TEST_CASE("57: the rasterised order visits every tile once, band after band; a band of 1 is row by row") {
  for (int tiles_m = 1; tiles_m <= 13; ++tiles_m)
    for (int tiles_n = 1; tiles_n <= 11; ++tiles_n) {
      check_order<1>(tiles_m, tiles_n);
      check_order<2>(tiles_m, tiles_n);
      check_order<3>(tiles_m, tiles_n);
      check_order<8>(tiles_m, tiles_n);
      check_order<16>(tiles_m, tiles_n);
    }
  check_order<16>(64, 32);  // 8192^3 in 128 x 256 tiles
  check_order<16>(33, 17);  // 4095 x 4097 (ragged in both)
}

TEST_CASE("57: the band widths: 16 tile-rows for 128 x 256 tiles on 132 SMs, 8 for 128 x 128") {
  CHECK(band_rows_for(132, 128, 256) == 16);  // sqrt(264) = 16.2
  CHECK(band_rows_for(132, 128, 128) == 8);   // sqrt(132) = 11.5
  CHECK(band_rows_for(114, 128, 256) == 8);   // an H100 PCIe: sqrt(228) = 15.1
  CHECK(band_rows_for(1, 128, 256) == 1);
}

TEST_CASE("57: a wave of 132 blocks reads the fewest A and B rows per slice in bands of 16") {
  // 128 x 256 tiles at 8192^3 (64 x 32 tiles) and 4096^3 (32 x 16).
  for (const auto& [tiles_m, tiles_n] : {std::pair{64, 32}, std::pair{32, 16}}) {
    const long long rows1 = first_wave_panel_rows<1>(tiles_m, tiles_n, 132, 128, 256);
    const long long rows8 = first_wave_panel_rows<8>(tiles_m, tiles_n, 132, 128, 256);
    const long long rows16 = first_wave_panel_rows<16>(tiles_m, tiles_n, 132, 128, 256);
    MESSAGE(tiles_m << " x " << tiles_n << " tiles: rows of A and B per slice of the first wave: row by row "
                    << rows1 << ", bands of 8 " << rows8 << ", bands of 16 " << rows16);
    CHECK(rows16 < rows8);
    CHECK(rows16 < rows1);
  }
}

TEST_CASE("57: the ring's protocol, replayed: every consumer reads its slice across tile boundaries, no hang") {
  CHECK(replay_all<KernelRing<2>>() == "");
  CHECK(replay_all<KernelRing<3>>() == "");
  CHECK(replay_all<KernelRing<4>>() == "");
  CHECK(replay_all<KernelRing<6>>() == "");
}

TEST_CASE("57: planted: a slice counter restarted per tile, or a tile's last stage kept, fails the replay") {
  const std::string restarted = replay_all<KernelRing<4, true>>();
  MESSAGE("counter per tile: " << restarted);
  CHECK(restarted != "");
  const std::string kept = replay_all<KernelRing<4>>(ring_replay::Planted::kLastStageKept);
  MESSAGE("last stage kept: " << kept);
  CHECK(kept.find("hang") != std::string::npos);
}
