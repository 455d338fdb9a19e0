// Chapter 40's shard plan: which elements each shard holds, the same for the one-process form (shard p on
// GPU p) and the rank form (rank p holds shard p). Plain C++, so the host tests check it without a GPU.
#pragma once

#include <cstddef>

namespace scan_multi_gpu {

// ---- The split --------------------------------------------------------------------------------------------
// Shard p of P holds elements [shard_begin(p), shard_begin(p + 1)). Even split (last_weight = 100): n / P each,
// and one more for the first n % P shards (so n < P leaves the last shards empty). The last GPU does not
// reduce, so it can take more: last_weight is its shard in percent of each other shard's (the others split
// the rest evenly as above).
struct Split {
  std::size_t n = 0;
  int shards = 1;
  int last_weight = 100;  // percent; 100: all shards equal

  // Elements of the last shard: n * w / ((P - 1) * 100 + w), rounded down (all of n when P = 1).
  std::size_t last_count() const {
    if (shards == 1) return n;
    if (last_weight == 100) return n / shards;  // the even split's last shard (it never gets the remainder)
    const std::size_t weights = static_cast<std::size_t>(shards - 1) * 100 + static_cast<std::size_t>(last_weight);
    return n / weights * last_weight + n % weights * last_weight / weights;  // no overflow for any n
  }
  std::size_t begin(int p) const {
    if (p >= shards) return n;
    const std::size_t head = n - last_count();  // the first P - 1 shards' elements
    const int head_shards = shards > 1 ? shards - 1 : 1;
    const std::size_t q = head / head_shards, r = head % head_shards;
    const std::size_t up = static_cast<std::size_t>(p);
    return q * up + (up < r ? up : r);
  }
  std::size_t count(int p) const { return begin(p + 1) - begin(p); }
  // The largest shard (what each GPU must hold): shard 0 or the last.
  std::size_t largest() const {
    const std::size_t first = count(0), last = count(shards - 1);
    return first > last ? first : last;
  }
};

}  // namespace scan_multi_gpu
