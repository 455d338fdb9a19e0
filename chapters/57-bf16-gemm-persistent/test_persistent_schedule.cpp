// Host tests of chapter 57's schedule (persistent_schedule.hpp): the rasterised order visits every tile once and
// keeps a wave inside a band, and the ring's protocol, replayed with emulated mbarriers and every interleaving a
// random scheduler picks, hands each consumer the slice it expects across tile boundaries, never refills a stage
// that is still being read, and never stops. The same replay with the slice counter restarted at each tile, or
// without freeing a tile's last stage before its epilogue, must fail.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "doctest.hpp"

#include <algorithm>
#include <deque>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "persistent_schedule.hpp"

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

// ---- The ring, replayed --------------------------------------------------------------------------------------
// An mbarrier reduced to what the ring uses (PTX ISA, "mbarrier"): the arrivals and transaction bytes the current
// phase still waits for, and the count of completed phases. try_wait.parity(p) succeeds once the phase of parity
// p has completed: when the current (incomplete) phase's parity is not p.
struct Barrier {
  int expected = 1, pending = 1, completed = 0;
  long long tx = 0;
  explicit Barrier(int arrivals = 1) : expected(arrivals), pending(arrivals) {}
  void complete_if_done() {
    if (pending == 0 && tx == 0) ++completed, pending = expected;
  }
  void arrive() { --pending, complete_if_done(); }
  void arrive_expect_tx(long long bytes) { tx += bytes, arrive(); }
  void complete_tx(long long bytes) { tx -= bytes, complete_if_done(); }
  bool try_wait(unsigned parity) const { return static_cast<unsigned>(completed & 1) != parity; }
};

enum class Kind { kWaitEmpty, kLoad, kWaitFull, kIssue, kRetire, kArriveEmpty };
struct Op {
  Kind kind;
  int stage = 0;
  unsigned parity = 0;
  int slice = 0;  // which slice of the block's stream a load brings or a wgmma group reads (tile * 1000 + s)
  int keep = 0;   // kRetire: groups left in flight (wgmma.wait_group's argument)
};

enum class Planted { kNone, kCounterPerTile, kLastStageKept };

// The kernel's loops (gemm_persistent.cuh) as op lists: the producer thread's, and one consumer warpgroup's.
template <int kStages>
std::pair<std::vector<Op>, std::vector<Op>> kernel_ops(int tiles, int slices, Planted planted) {
  using Ring = SliceRing<kStages>;
  std::vector<Op> producer, consumer;
  std::uint32_t count = 0;
  for (int tile = 0; tile < tiles; ++tile)
    for (int s = 0; s < slices; ++s, ++count) {
      const std::uint32_t c = planted == Planted::kCounterPerTile ? s : count;
      if (c >= kStages) producer.push_back({Kind::kWaitEmpty, Ring::stage(c), Ring::empty_parity(c)});
      producer.push_back({Kind::kLoad, Ring::stage(c), 0, tile * 1000 + s});
    }
  count = 0;
  for (int tile = 0; tile < tiles; ++tile) {
    for (int s = 0; s < slices; ++s, ++count) {
      const std::uint32_t c = planted == Planted::kCounterPerTile ? s : count;
      consumer.push_back({Kind::kWaitFull, Ring::stage(c), Ring::full_parity(c)});
      consumer.push_back({Kind::kIssue, Ring::stage(c), 0, tile * 1000 + s});
      consumer.push_back({Kind::kRetire, 0, 0, 0, 1});
      if (s > 0) consumer.push_back({Kind::kArriveEmpty, Ring::stage(c - 1)});
    }
    consumer.push_back({Kind::kRetire, 0, 0, 0, 0});
    const std::uint32_t last = planted == Planted::kCounterPerTile ? slices - 1 : count - 1;
    if (planted != Planted::kLastStageKept) consumer.push_back({Kind::kArriveEmpty, Ring::stage(last)});
  }
  return {producer, consumer};
}

// One block: the producer, two consumer warpgroups and the copy engine, each step chosen at random among those
// that can go on. Returns "" when every consumer read every slice it expected from a stage nobody overwrote before
// its group retired, else what went wrong (a wrong slice, an overwrite, or no step possible before the end).
template <int kStages>
std::string replay(int tiles, int slices, unsigned seed, Planted planted = Planted::kNone) {
  constexpr int kConsumers = 2;
  const auto [producer, consumer] = kernel_ops<kStages>(tiles, slices, planted);
  std::vector<Barrier> full(kStages, Barrier(1)), empty(kStages, Barrier(kConsumers));
  std::vector<int> stage_slice(kStages, -1);      // which slice each stage holds
  std::deque<std::pair<int, int>> copies;         // in flight: (stage, slice)
  std::size_t producer_pc = 0;
  std::size_t consumer_pc[kConsumers] = {0, 0};
  std::deque<std::pair<int, int>> groups[kConsumers];  // wgmma groups in flight: (stage, slice)
  std::mt19937 rng(seed);
  auto ready = [&](const Op& op) {
    if (op.kind == Kind::kWaitEmpty) return empty[op.stage].try_wait(op.parity);
    if (op.kind == Kind::kWaitFull) return full[op.stage].try_wait(op.parity);
    return true;
  };
  for (;;) {
    // Agents: 0 the producer, 1 .. kConsumers the consumers, kConsumers + 1 the copy engine.
    std::vector<int> can;
    if (producer_pc < producer.size() && ready(producer[producer_pc])) can.push_back(0);
    for (int w = 0; w < kConsumers; ++w)
      if (consumer_pc[w] < consumer.size() && ready(consumer[consumer_pc[w]])) can.push_back(1 + w);
    if (!copies.empty()) can.push_back(1 + kConsumers);
    if (can.empty()) break;
    const int agent = can[std::uniform_int_distribution<std::size_t>(0, can.size() - 1)(rng)];
    if (agent == 1 + kConsumers) {  // the oldest copy lands
      const auto [stage, slice] = copies.front();
      copies.pop_front();
      for (int w = 0; w < kConsumers; ++w)
        for (const auto& g : groups[w])
          if (g.first == stage)
            return "slice " + std::to_string(slice) + " landed in stage " + std::to_string(stage) +
                   " while a group still read slice " + std::to_string(g.second);
      stage_slice[stage] = slice;
      full[stage].complete_tx(1);
      continue;
    }
    if (agent == 0) {
      const Op& op = producer[producer_pc++];
      if (op.kind == Kind::kLoad) {
        full[op.stage].arrive_expect_tx(1);
        copies.push_back({op.stage, op.slice});
      }
      continue;
    }
    const int w = agent - 1;
    const Op& op = consumer[consumer_pc[w]++];
    if (op.kind == Kind::kIssue) {
      if (stage_slice[op.stage] != op.slice)
        return "consumer " + std::to_string(w) + " read slice " + std::to_string(stage_slice[op.stage]) +
               " from stage " + std::to_string(op.stage) + " for slice " + std::to_string(op.slice);
      groups[w].push_back({op.stage, op.slice});
    } else if (op.kind == Kind::kRetire) {
      while (static_cast<int>(groups[w].size()) > op.keep) groups[w].pop_front();
    } else if (op.kind == Kind::kArriveEmpty) {
      empty[op.stage].arrive();
    }
  }
  const bool done = producer_pc == producer.size() && consumer_pc[0] == consumer.size() &&
                    consumer_pc[1] == consumer.size();
  return done ? "" : "no step possible before the end (the kernel would hang)";
}

// Every tile count 1..5 and slice count 1..9, 30 interleavings each; the first failure's description, or "".
template <int kStages>
std::string replay_all(Planted planted) {
  for (int tiles = 1; tiles <= 5; ++tiles)
    for (int slices = 1; slices <= 9; ++slices)
      for (unsigned seed = 0; seed < 30; ++seed) {
        const std::string why = replay<kStages>(tiles, slices, seed, planted);
        if (!why.empty())
          return std::to_string(tiles) + " tiles of " + std::to_string(slices) + " slices, " +
                 std::to_string(kStages) + " stages: " + why;
      }
  return "";
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
  CHECK(replay_all<2>(Planted::kNone) == "");
  CHECK(replay_all<3>(Planted::kNone) == "");
  CHECK(replay_all<4>(Planted::kNone) == "");
  CHECK(replay_all<6>(Planted::kNone) == "");
}

TEST_CASE("57: planted: a slice counter restarted per tile, or a tile's last stage kept, fails the replay") {
  const std::string restarted = replay_all<4>(Planted::kCounterPerTile);
  MESSAGE("counter per tile: " << restarted);
  CHECK(restarted != "");
  const std::string kept = replay_all<4>(Planted::kLastStageKept);
  MESSAGE("last stage kept: " << kept);
  CHECK(kept.find("hang") != std::string::npos);
}
