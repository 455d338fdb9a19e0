// Test of exercise 40: the shards' carries, on the host (a host test: "host": true in the manifest; CI runs it
// without a GPU). Against chapter 40's own carry_of (scan_multi_gpu.cuh, through shard_set.cuh, unchanged) for P = 1
// .. 8 shards with seeded random totals, totals that wrap past 2^32, and the last shard's word poisoned (it is never
// written); then at the level of chapter 40's Split: for adversarial n (0, 1, fewer elements than shards, 31 .. 33,
// 1023 .. 1025, 4097), P = 1 .. 8 and an even or uneven split (last_weight 100, 150, 300), the totals of the
// shards of a seeded random int32 array, and every carry must equal the CPU's inclusive scan just before the
// shard's first element (0 for a shard that starts at 0). The same source tests the exercise and the solution.
#include <shard_carries.cuh>

#include "doctest.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

namespace smg = scan_multi_gpu;

constexpr std::uint32_t kNeverWritten = 0xABABABABu;  // the last shard's word: poison (tut::kPoisonByte x 4)

// Chapter 40's carry of shard p from `totals` (its carry_of reads a Shard's pinned totals_host).
std::int32_t chapter_carry(std::vector<std::uint32_t>& totals, int p) {
  smg::Shard s;
  s.totals_host = totals.data();
  return smg::carry_of(s, p);
}

std::string list(const std::vector<std::uint32_t>& totals) {
  std::string text;
  for (std::size_t q = 0; q < totals.size(); ++q)
    text += (q ? ", " : "") + (q + 1 == totals.size() ? std::string("(never written)") : std::to_string(totals[q]));
  return text;
}

void require_carries(std::vector<std::uint32_t> totals, const std::string& what) {
  const std::vector<std::int32_t> got = shard_carries::carries_from_totals(totals);
  REQUIRE_MESSAGE(got.size() == totals.size(),
                  what << ": MISMATCH: " << got.size() << " carries for " << totals.size() << " shards (one each)");
  for (int p = 0; p < static_cast<int>(totals.size()); ++p) {
    const std::int32_t want = chapter_carry(totals, p);
    REQUIRE_MESSAGE(got[p] == want, what << ", totals " << list(totals) << ": MISMATCH: the carry of shard " << p
                                         << " is " << got[p] << ", expected " << want
                                         << (p == 0 ? " (nothing comes before shard 0)"
                                                    : " (the sum of the totals of shards 0 .. " + std::to_string(p - 1) +
                                                          ", uint32 arithmetic)"));
  }
}

}  // namespace

TEST_CASE("40: the carry of each shard is the sum of the totals before it, and never the last shard's word") {
  std::mt19937 rng(40);
  for (int shards = 1; shards <= 8; ++shards)
    for (int rep = 0; rep < 20; ++rep) {
      std::vector<std::uint32_t> totals(static_cast<std::size_t>(shards));
      for (std::uint32_t& t : totals) t = rng() % 1000;  // small first: an off-by-one shows as a readable number
      totals.back() = kNeverWritten;
      require_carries(totals, std::to_string(shards) + " shards");
    }
}

TEST_CASE("40: the carries wrap like the scan's int32 sums (uint32 arithmetic)") {
  std::mt19937 rng(4040);
  for (int shards = 2; shards <= 8; ++shards) {
    std::vector<std::uint32_t> big(static_cast<std::size_t>(shards), 0xFFFFFFFFu);  // each total is -1 as an int32
    big.back() = kNeverWritten;
    require_carries(big, std::to_string(shards) + " shards, every total 2^32 - 1");
    std::vector<std::uint32_t> any(static_cast<std::size_t>(shards));
    for (std::uint32_t& t : any) t = static_cast<std::uint32_t>(rng());
    any.back() = kNeverWritten;
    require_carries(any, std::to_string(shards) + " shards, random 32-bit totals");
  }
}

TEST_CASE("40: over chapter 40's Split, each carry is the scan of the array just before the shard") {
  std::mt19937 rng(4000);
  for (std::size_t n : {0, 1, 2, 3, 5, 7, 31, 32, 33, 1023, 1024, 1025, 4097})
    for (int shards = 1; shards <= 8; ++shards)
      for (int last_weight : {100, 150, 300}) {
        const smg::Split split{n, shards, last_weight};
        std::vector<std::int32_t> in(n);
        for (std::int32_t& x : in) x = static_cast<std::int32_t>(rng());  // the whole int32 range: sums wrap
        std::vector<std::uint32_t> scan(n);  // the CPU's inclusive scan, uint32 (wrapping)
        for (std::size_t i = 0; i < n; ++i) scan[i] = (i ? scan[i - 1] : 0u) + static_cast<std::uint32_t>(in[i]);
        // Step 1 on the host: every shard's total but the last's, which is never written.
        std::vector<std::uint32_t> totals(static_cast<std::size_t>(shards), kNeverWritten);
        for (int p = 0; p + 1 < shards; ++p) {
          std::uint32_t total = 0;
          for (std::size_t i = split.begin(p); i < split.begin(p + 1); ++i) total += static_cast<std::uint32_t>(in[i]);
          totals[static_cast<std::size_t>(p)] = total;
        }
        const std::vector<std::int32_t> got = shard_carries::carries_from_totals(totals);
        REQUIRE(got.size() == totals.size());
        for (int p = 0; p < shards; ++p) {
          const std::size_t begin = split.begin(p);
          const auto want = static_cast<std::int32_t>(begin == 0 ? 0u : scan[begin - 1]);
          REQUIRE_MESSAGE(got[static_cast<std::size_t>(p)] == want,
                          "n = " << n << ", " << shards << " shards, last_weight " << last_weight << ": MISMATCH: shard "
                                 << p << " (elements " << begin << " .. " << split.begin(p + 1) << ") gets carry "
                                 << got[static_cast<std::size_t>(p)] << ", but the inclusive scan before its first "
                                 << "element is " << want);
        }
      }
}
