// Test of exercise 58: the split of K of chapter 58's plan (a host test: "host": true in the manifest; CI runs it
// without a GPU). The ranges first: over many tiles' slice counts and splits, every slice must be in exactly one
// range, no range empty, lengths at most one apart. Then the rule: at the ladder's sweep shapes on 132 SMs (an H100
// or H200) and on 92, 114 and 28 SMs, the student's split must be chapter 58's (split_k_schedule.hpp's
// plan_split_k, included unchanged), and whatever it is, within one wave and no range shorter than 4 slices. Each
// failure is one line naming the case. The same source tests the exercise and the solution.
#include <split_k_ranges.cuh>

#include "doctest.hpp"

#include <string>
#include <vector>

#include "../../chapters/58-bf16-gemm-split-k/split_k_schedule.hpp"  // chapter 58's plan, unchanged

namespace {

// "" or what is wrong with the student's ranges for `splits` ranges of `slices` slices.
std::string ranges_problem(int splits, int slices) {
  std::vector<int> owner(static_cast<std::size_t>(slices), -1);
  int shortest = slices, longest = 0;
  for (int s = 0; s < splits; ++s) {
    const split_k_ranges::Range r = split_k_ranges::range_of(s, splits, slices);
    const std::string name = "range " + std::to_string(s) + " of " + std::to_string(splits) + " over " +
                             std::to_string(slices) + " slices";
    if (r.first < 0 || r.end > slices || r.first >= r.end)
      return name + " is [" + std::to_string(r.first) + ", " + std::to_string(r.end) + "): empty or outside the tile";
    for (int i = r.first; i < r.end; ++i) {
      if (owner[static_cast<std::size_t>(i)] >= 0)
        return "slice " + std::to_string(i) + " is in range " + std::to_string(owner[static_cast<std::size_t>(i)]) +
               " and in " + name;
      owner[static_cast<std::size_t>(i)] = s;
    }
    shortest = std::min(shortest, r.end - r.first);
    longest = std::max(longest, r.end - r.first);
  }
  for (int i = 0; i < slices; ++i)
    if (owner[static_cast<std::size_t>(i)] < 0)
      return "slice " + std::to_string(i) + " of " + std::to_string(slices) + " is in no range (" +
             std::to_string(splits) + " ranges): its products are never summed";
  if (longest - shortest > 1)
    return std::to_string(splits) + " ranges over " + std::to_string(slices) + " slices: lengths from " +
           std::to_string(shortest) + " to " + std::to_string(longest) + " (at most one apart)";
  return "";
}

struct Shape {
  int m, n, k;
};

}  // namespace

TEST_CASE("58: every slice of K in exactly one range, none empty, lengths at most one apart") {
  for (int slices = 1; slices <= 300; ++slices)
    for (int splits = 1; splits <= std::min(slices, 140); ++splits) {
      const std::string why = ranges_problem(splits, slices);
      REQUIRE_MESSAGE(why.empty(), "MISMATCH: " << why);
    }
  for (int splits : {66, 132})  // the sweep's K-heavy shapes: 1024 and 2048 slices
    for (int slices : {1024, 2048, 1 << 20}) {
      const std::string why = ranges_problem(splits, slices);
      REQUIRE_MESSAGE(why.empty(), "MISMATCH: " << why);
    }
}

TEST_CASE("58: the split is chapter 58's rule: one wave of units, no range under 4 slices") {
  const Shape shapes[] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {512, 512, 512},   {1024, 1024, 1024},
                          {8192, 16, 4096},   {16, 8192, 4096},   {128, 8192, 8192}, {256, 256, 65536},
                          {1024, 1024, 16384}, {64, 64, 131072},  {8192, 8192, 128}, {1, 1, 255},
                          {1, 1, 512},        {300, 300, 300}};
  for (int sms : {132, 114, 92, 28})
    for (const Shape& s : shapes) {
      const gemm_split_k::SplitKPlan p = gemm_split_k::plan_split_k(sms, s.m, s.n, s.k, 128, 256, 64);
      const int got = split_k_ranges::splits_for(sms, p.tiles(), p.slices);
      const std::string name = std::to_string(s.m) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k) +
                               " on " + std::to_string(sms) + " SMs (" + std::to_string(p.tiles()) + " tiles of " +
                               std::to_string(p.slices) + " slices)";
      REQUIRE_MESSAGE(got >= 1, "MISMATCH: " << name << ": " << got << " ranges (at least 1)");
      REQUIRE_MESSAGE((got == 1 || static_cast<long long>(got) * p.tiles() <= sms),
                      "MISMATCH: " << name << ": " << got << " ranges make " << got * p.tiles()
                                   << " units, more than one wave of " << sms);
      REQUIRE_MESSAGE((got == 1 || p.slices / got >= split_k_ranges::kMinSlicesPerSplit),
                      "MISMATCH: " << name << ": " << got << " ranges of " << p.slices / got
                                   << " slices (at least " << split_k_ranges::kMinSlicesPerSplit << ")");
      REQUIRE_MESSAGE(got == p.splits, "MISMATCH: " << name << ": " << got << " ranges, chapter 58's rule gives "
                                                    << p.splits << " (the most that keep both rules)");
    }
}
