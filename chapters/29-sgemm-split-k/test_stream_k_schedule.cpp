// Host tests of the stream-K schedule (stream_k_schedule.hpp), the indices the GPU kernels use: every slice
// of every tile summed exactly once, the owner of each iteration, one writer per workspace slot, the fix-up's
// slots, the wave arithmetic of the README's shapes; and a CPU run of the whole algorithm (the blocks' walks,
// the partial slots, the fix-up in block order) against a plain GEMM, with a planted fix-up that drops the last
// partial, which that check must catch.
#include "doctest.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "stream_k_schedule.hpp"

using namespace sgemm_stream_k;

namespace {

struct Case {
  long long m, n, k;
  int bm, bn, bk, grid;
};

// Tiles of 4 x 8 with 2-deep slices keep the CPU run small while exercising the same arithmetic.
std::vector<Case> cases() {
  std::vector<Case> out;
  for (int grid : {1, 2, 3, 7, 13, 132})
    for (long long k : {0LL, 1LL, 2LL, 3LL, 17LL, 64LL})
      for (long long m : {1LL, 4LL, 5LL, 33LL})
        for (long long n : {1LL, 8LL, 9LL, 70LL}) out.push_back({m, n, k, 4, 8, 2, grid});
  return out;
}

// Every iteration of the stream-K part lies in exactly one block's range, and owner() names that block; the
// segments of a block's walk cover its range and each slice of a tile once; a slot has at most one writer.
void check_cover(const Schedule& s) {
  std::vector<int> seen(static_cast<std::size_t>(s.sk_tiles()) * s.iters_per_tile, 0);
  std::vector<int> slot_writers(static_cast<std::size_t>(2 * s.grid), 0);
  for (int b = 0; b < s.grid; ++b) {
    REQUIRE(s.end(b) - s.begin(b) >= s.base);
    REQUIRE(s.end(b) - s.begin(b) <= s.base + 1);
    if (b + 1 < s.grid) REQUIRE(s.end(b) == s.begin(b + 1));
    for (int it = s.begin(b); it < s.end(b);) {
      const Segment seg = s.segment(b, it);
      REQUIRE(seg.slice_end > seg.slice_begin);
      REQUIRE(seg.tile >= s.dp_tiles);
      for (int i = seg.slice_begin; i < seg.slice_end; ++i) {
        const int global = (seg.tile - s.dp_tiles) * s.iters_per_tile + i;
        ++seen[static_cast<std::size_t>(global)];
        REQUIRE(s.owner(global) == b);
      }
      if (!seg.whole) {
        REQUIRE(seg.slot >= 0);
        REQUIRE(seg.slot < s.slots());
        REQUIRE(seg.slot == s.slot_of(b, seg.tile - s.dp_tiles));
        ++slot_writers[static_cast<std::size_t>(seg.slot)];
      }
      it += seg.slice_end - seg.slice_begin;
    }
  }
  REQUIRE(s.begin(0) == 0);
  REQUIRE(s.end(s.grid - 1) == s.sk_iters);
  for (int c : seen) REQUIRE(c == 1);
  for (int w : slot_writers) REQUIRE(w <= 1);
}

// C = alpha A B + beta C by the schedule, on the CPU: block after block, whole segments into C, partials into
// their slots, then the fix-up; drop_last: the fix-up forgets each split tile's last partial (planted bug).
std::vector<double> stream_k_on_cpu(const Case& c, const Schedule& s, const std::vector<double>& A,
                                    const std::vector<double>& B, std::vector<double> C, double alpha, double beta,
                                    bool drop_last) {
  const long long tiles_n = (c.n + c.bn - 1) / c.bn;
  std::vector<double> slots(static_cast<std::size_t>(s.slots()) * c.bm * c.bn, std::nan(""));
  auto tile_sum = [&](int tile, int slice_begin, int slice_end, long long r, long long col) {
    double sum = 0;
    for (long long p = static_cast<long long>(slice_begin) * c.bk; p < std::min<long long>(c.k, slice_end * c.bk); ++p)
      sum += A[static_cast<std::size_t>(r * c.k + p)] * B[static_cast<std::size_t>(p * c.n + col)];
    (void)tile;
    return sum;
  };
  auto each_element = [&](int tile, auto f) {
    const long long r0 = tile / tiles_n * c.bm, c0 = tile % tiles_n * c.bn;
    for (int i = 0; i < c.bm; ++i)
      for (int j = 0; j < c.bn; ++j)
        if (r0 + i < c.m && c0 + j < c.n) f(i, j, r0 + i, c0 + j);
  };
  auto store = [&](int tile, int sb, int se) {
    each_element(tile, [&](int, int, long long r, long long col) {
      double& out = C[static_cast<std::size_t>(r * c.n + col)];
      out = alpha * tile_sum(tile, sb, se, r, col) + (beta == 0 ? 0.0 : beta * out);
    });
  };
  for (int b = 0; b < s.grid; ++b) {
    for (int tile = b; tile < s.dp_tiles; tile += s.grid) store(tile, 0, s.iters_per_tile);
    for (int it = s.begin(b); it < s.end(b);) {
      const Segment seg = s.segment(b, it);
      if (seg.whole) {
        store(seg.tile, 0, s.iters_per_tile);
      } else {
        each_element(seg.tile, [&](int i, int j, long long r, long long col) {
          slots[(static_cast<std::size_t>(seg.slot) * c.bm + i) * c.bn + j] =
              tile_sum(seg.tile, seg.slice_begin, seg.slice_end, r, col);
        });
      }
      it += seg.slice_end - seg.slice_begin;
    }
  }
  for (int t = 0; t < s.sk_tiles(); ++t) {
    const int first = s.first_block(t), last = s.last_block(t) - (drop_last ? 1 : 0);
    if (s.first_block(t) == s.last_block(t)) continue;
    each_element(s.dp_tiles + t, [&](int i, int j, long long r, long long col) {
      double sum = 0;
      for (int b = first; b <= last; ++b) sum += slots[(static_cast<std::size_t>(s.slot_of(b, t)) * c.bm + i) * c.bn + j];
      double& out = C[static_cast<std::size_t>(r * c.n + col)];
      out = alpha * sum + (beta == 0 ? 0.0 : beta * out);
    });
  }
  return C;
}

std::vector<double> values(std::size_t count, std::uint64_t seed) {
  std::vector<double> v(count);
  for (std::size_t i = 0; i < count; ++i) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    v[i] = static_cast<double>(seed >> 40) / static_cast<double>(1ULL << 24) - 0.5;
  }
  return v;
}

double max_error(const Case& c, const std::vector<double>& got, const std::vector<double>& A,
                 const std::vector<double>& B, const std::vector<double>& C0, double alpha, double beta) {
  double worst = 0;
  for (long long i = 0; i < c.m; ++i)
    for (long long j = 0; j < c.n; ++j) {
      double sum = 0;
      for (long long p = 0; p < c.k; ++p)
        sum += A[static_cast<std::size_t>(i * c.k + p)] * B[static_cast<std::size_t>(p * c.n + j)];
      const std::size_t e = static_cast<std::size_t>(i * c.n + j);
      const double want = alpha * sum + (beta == 0 ? 0.0 : beta * C0[e]);
      const double err = std::fabs(got[e] - want);
      worst = std::isnan(got[e]) ? INFINITY : std::max(worst, err);
    }
  return worst;
}

}  // namespace

TEST_CASE("stream-K: every slice of every tile once, owners, one writer per slot (stream-K and the hybrid)") {
  for (const Case& c : cases())
    for (bool hybrid : {false, true}) {
      const Schedule s = make_schedule(c.m, c.n, c.k, c.bm, c.bn, c.bk, c.grid, hybrid);
      INFO(c.m << " x " << c.n << " x " << c.k << ", grid " << c.grid << (hybrid ? ", hybrid" : ""));
      CHECK(s.iters_per_tile == (c.k > 0 ? (c.k + c.bk - 1) / c.bk : 1));
      CHECK(s.dp_tiles == (hybrid ? s.tiles / c.grid * c.grid : 0));
      CHECK(s.sk_iters == s.sk_tiles() * s.iters_per_tile);
      check_cover(s);
    }
}

TEST_CASE("stream-K on the CPU: the walks, the slots and the fix-up give alpha A B + beta C; a dropped partial fails") {
  int planted_caught = 0, planted_runs = 0;
  for (const Case& c : cases())
    for (bool hybrid : {false, true})
      for (double beta : {0.0, -0.75}) {
        const Schedule s = make_schedule(c.m, c.n, c.k, c.bm, c.bn, c.bk, c.grid, hybrid);
        const auto A = values(static_cast<std::size_t>(c.m * c.k), 1 + c.m * 7 + c.k);
        const auto B = values(static_cast<std::size_t>(c.k * c.n), 2 + c.n * 11 + c.k);
        // beta = 0: C starts as NaN, so a path that reads it fails.
        const auto C0 = beta == 0 ? std::vector<double>(static_cast<std::size_t>(c.m * c.n), std::nan(""))
                                  : values(static_cast<std::size_t>(c.m * c.n), 3 + c.m + c.n);
        INFO(c.m << " x " << c.n << " x " << c.k << ", grid " << c.grid << (hybrid ? ", hybrid" : "") << ", beta "
                 << beta);
        const auto got = stream_k_on_cpu(c, s, A, B, C0, 1.5, beta, false);
        CHECK(max_error(c, got, A, B, C0, 1.5, beta) < 1e-12);
        if (s.split_tiles() > 0) {  // the planted fix-up: a split tile loses its last partial
          ++planted_runs;
          const auto bad = stream_k_on_cpu(c, s, A, B, C0, 1.5, beta, true);
          if (max_error(c, bad, A, B, C0, 1.5, beta) > 1e-6) ++planted_caught;
        }
      }
  CHECK(planted_runs > 100);
  CHECK(planted_caught == planted_runs);
}

TEST_CASE("stream-K wave arithmetic on a 132-SM H100 (the README's shapes, 128 x 256 x 16 tiles)") {
  // 128 x 4096 x 4096: 16 tiles fill 16 of 132 slots; stream-K deals 4096 iterations, 31 or 32 per block, and
  // every tile is summed by 9 or 10 blocks.
  Schedule s = make_schedule(128, 4096, 4096, 128, 256, 16, 132, false);
  CHECK(s.tiles == 16);
  CHECK(s.iters_per_tile == 256);
  CHECK(s.sk_iters == 4096);
  CHECK(s.base == 31);
  CHECK(s.extra == 4096 - 31 * 132);
  CHECK(s.split_tiles() == 16);
  for (int t = 0; t < s.sk_tiles(); ++t) {
    CHECK(s.last_block(t) - s.first_block(t) + 1 >= 9);
    CHECK(s.last_block(t) - s.first_block(t) + 1 <= 10);
  }
  CHECK(describe(s, 132, 1).find("16 tiles on 132 blocks (132 SMs x 1): 1 wave, the last 16 of 132 slots (12%)") == 0);
  // The hybrid is stream-K here: no full wave.
  CHECK(make_schedule(128, 4096, 4096, 128, 256, 16, 132, true).dp_tiles == 0);
  // 3072^3: 288 tiles = 2 full waves and 24 of 132 slots; the hybrid does 264 tiles whole and deals the last 24
  // tiles' 4608 iterations: 34 or 35 per block.
  s = make_schedule(3072, 3072, 3072, 128, 256, 16, 132, true);
  CHECK(s.tiles == 288);
  CHECK(s.dp_tiles == 264);
  CHECK(s.sk_iters == 24 * 192);
  CHECK(s.base == 34);
  CHECK(describe(s, 132, 1).find("3 waves, the last 24 of 132 slots (18%); 264 tiles data-parallel") != std::string::npos);
  // 4096^3: 512 tiles, 3 full waves and 116 of 132; whole waves only where the count divides: 1056 tiles.
  CHECK(make_schedule(4096, 4096, 4096, 128, 256, 16, 132, true).dp_tiles == 396);
  const Schedule whole = make_schedule(128 * 12, 256 * 88, 64, 128, 256, 16, 132, true);
  CHECK(whole.tiles == 1056);
  CHECK(whole.dp_tiles == 1056);
  CHECK(whole.sk_iters == 0);
  CHECK(whole.active_blocks() == 0);
  CHECK(whole.slots() == 0);
}

TEST_CASE("stream-K schedule refuses a zero grid, a zero tile and negative sizes") {
  CHECK_THROWS_AS(make_schedule(1, 1, 1, 128, 256, 16, 0, false), std::invalid_argument);
  CHECK_THROWS_AS(make_schedule(1, 1, 1, 0, 256, 16, 1, false), std::invalid_argument);
  CHECK_THROWS_AS(make_schedule(-1, 1, 1, 128, 256, 16, 1, false), std::invalid_argument);
}
