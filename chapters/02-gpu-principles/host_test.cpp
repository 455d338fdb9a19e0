// Host tests of chapter 02's arithmetic: no GPU needed. They pin down what the GPU tests rely on:
// the peak formula, that the checks can see a one-step slip, that the pointer chase is one cycle
// and its jump-ahead is right, that the strided gather and the exchange are permutations, and that
// the exchange's shared-memory reads are right and free of bank conflicts.
#include "doctest.hpp"

#include <cmath>
#include <cstdint>
#include <numeric>
#include <set>
#include <vector>

#include "principles_math.hpp"

using namespace principles;

TEST_CASE("02: FP32 lanes per SM by compute capability") {
  CHECK(fp32_lanes_per_sm(7, 5).lanes == 64);
  CHECK(fp32_lanes_per_sm(8, 0).lanes == 64);  // A100 has half the FP32 lanes of GA10x
  CHECK(fp32_lanes_per_sm(8, 6).lanes == 128);
  CHECK(fp32_lanes_per_sm(8, 9).lanes == 128);
  CHECK(fp32_lanes_per_sm(9, 0).lanes == 128);
  CHECK(fp32_lanes_per_sm(9, 0).known);
  CHECK(fp32_lanes_per_sm(10, 0).lanes == 128);
  CHECK_FALSE(fp32_lanes_per_sm(42, 0).known);
  // 132 SMs x 128 lanes x 2 flop x 1.98 GHz (H100 SXM's boost clock, as kHz).
  CHECK(peak_fp32_gflops(132, 128, 1980000) == doctest::Approx(66908.16));
}

TEST_CASE("02: the article's GTX 280 figures") {
  // Its 933 GFLOP/s counts 3 flop per core per clock (MAD + co-issued MUL) ...
  CHECK(gtx280::kCores * 3 * gtx280::kShaderClockGhz == doctest::Approx(gtx280::kPeakGflops).epsilon(0.001));
  // ... while a loop of MADs alone peaks at 2 flop per core per clock: its 622 is that peak.
  CHECK(gtx280::kMadPeakGflops == doctest::Approx(621.6));
  CHECK(gtx280::kMeasuredGflops / gtx280::kMadPeakGflops == doctest::Approx(1.0).epsilon(0.001));
}

TEST_CASE("02: the FMA chains stay finite and a one-step slip changes every value") {
  for (float a0 : {-0.9f, -0.5f, -0.1f}) {
    float a = a0, b = a0 * 0.75f, ma = a0, mb = a0 * 0.75f;
    for (std::uint64_t s = 1; s <= (1u << 20) + 1; ++s) {
      const float pa = a, pb = b;
      ArticleStep{}(a, b);
      MirroredStep{}(ma, mb);
      REQUIRE(std::isfinite(a));
      REQUIRE(std::isfinite(b));
      REQUIRE(a < 0.0f);
      REQUIRE(b < 0.0f);
      // the check compares to the bit, so any change of value means a slip is caught
      REQUIRE((a != pa || b != pb));
      REQUIRE(std::isfinite(ma));
      REQUIRE(std::isfinite(mb));
    }
    CHECK((a != ma || b != mb));  // the two paths of the MIMD experiment give different results
  }
}

TEST_CASE("02: the chase map is a single cycle and chase_jump agrees with stepping") {
  for (std::uint32_t nodes : {1u << 4, 1u << 10, 1u << 14}) {
    const std::uint32_t mask = nodes - 1;
    std::uint32_t x = 0;
    std::uint64_t length = 0;
    do {
      x = chase_next(x, mask);
      ++length;
    } while (x != 0 && length <= nodes);
    CHECK(length == nodes);
  }
  const std::uint32_t mask = (1u << 26) - 1;
  for (std::uint32_t start : {0u, 12345u, mask}) {
    std::uint32_t x = start;
    for (std::uint64_t k = 0; k <= 5000; ++k) {
      REQUIRE(chase_jump(start, k, mask) == x);
      x = chase_next(x, mask);
    }
  }
  // Jumps compose: 2^40 hops = 2^39 + 2^39 hops.
  const std::uint32_t half = chase_jump(7, 1ull << 39, mask);
  CHECK(chase_jump(half, 1ull << 39, mask) == chase_jump(7, 1ull << 40, mask));
}

TEST_CASE("02: the strided gather reads every element exactly once") {
  for (std::uint64_t n : {0ull, 1ull, 5ull, 31ull, 64ull, 1000ull, 1025ull}) {
    for (std::uint64_t stride : {2ull, 32ull}) {
      std::vector<int> hits(n, 0);
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t j = strided_source(i, n, stride);
        REQUIRE(j < n);
        ++hits[j];
      }
      for (std::uint64_t j = 0; j < n; ++j) REQUIRE(hits[j] == 1);
    }
  }
  CHECK(strided_source(1, 1024, 32) - strided_source(0, 1024, 32) == 32);  // neighbours 128 bytes apart
  // 64-bit sizes: past 2^32 elements the map still stays in range.
  const std::uint64_t big = (1ull << 33) + 7;
  CHECK(strided_source(big - 8, big, 32) < big);
  CHECK(strided_source(big - 1, big, 32) == big - 1);  // the leftover element stays in place
}

namespace {
std::vector<int> apply_exchange(const std::vector<int>& tile) {
  std::vector<int> out(tile.size());
  for (int g = 0; g < kExchangeTile; ++g) out[g] = tile[exchange_source(g)];
  return out;
}
}  // namespace

TEST_CASE("02: the exchange is a permutation of order 11, so 1 to 10 rounds all move data") {
  std::vector<int> start(kExchangeTile);
  std::iota(start.begin(), start.end(), 0);
  std::vector<int> tile = start;
  for (int round = 1; round <= 11; ++round) {
    tile = apply_exchange(tile);
    std::set<int> seen(tile.begin(), tile.end());
    REQUIRE(seen.size() == static_cast<std::size_t>(kExchangeTile));
    if (round < 11) CHECK(tile != start);
    else CHECK(tile == start);
  }
}

TEST_CASE("02: the exchange's shared-memory reads fetch the right values without bank conflicts") {
  // Simulate both kernels' index arithmetic: value r of thread t is tile element r * 128 + t.
  constexpr int kHalf = kExchangeThreads / 2;
  for (int row_length : {kExchangeThreads + 2, kHalf + 2}) {
    const bool halved = row_length == kHalf + 2;
    const int turns = halved ? 2 : 1;
    const int per_turn = kExchangeValues / turns;
    for (int turn = 0; turn < turns; ++turn) {
      // The buffer as the storing threads fill it: value v of column c = thread turn * 64 + c.
      std::vector<int> buffer(kExchangeValues * row_length, -1);
      const int columns = halved ? kHalf : kExchangeThreads;
      for (int c = 0; c < columns; ++c)
        for (int v = 0; v < kExchangeValues; ++v)
          buffer[v * row_length + c] = v * kExchangeThreads + turn * kHalf + c;
      for (int t = 0; t < kExchangeThreads; ++t)
        for (int j = 0; j < per_turn; ++j) {
          const int r = turn * per_turn + j;  // the new value this read fills
          REQUIRE(buffer[exchange_read_offset(t, j, row_length)] == exchange_source(r * kExchangeThreads + t));
        }
      // Each warp's read of one j touches 32 different banks.
      for (int warp = 0; warp < kExchangeThreads / 32; ++warp)
        for (int j = 0; j < per_turn; ++j) {
          std::set<int> banks;
          for (int lane = 0; lane < 32; ++lane) banks.insert(exchange_read_offset(warp * 32 + lane, j, row_length) % 32);
          REQUIRE(banks.size() == 32);
        }
    }
  }
}
