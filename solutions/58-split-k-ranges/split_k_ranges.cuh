// Exercise 58 (chapter 58-bf16-gemm-split-k): the split of K. How many K ranges each output tile is cut into, and
// which slices of K each range covers.
//
// Chapter 58 runs one block per SM. C is `tiles` output tiles of 128 x 256, and K is `slices` slices of 64 (the last
// one perhaps ragged). Where C has fewer tiles than the GPU has SMs, each tile's K is cut into `splits` ranges: the
// blocks take (tile, range) units, each sums its range's slices into a workspace, and a second kernel adds the
// ranges. Unit u is range u / tiles of tile u % tiles, so the units of one range come one after another.
#pragma once

namespace split_k_ranges {

// The shortest range the rule gives, in slices: the ring of 4 stages (a shorter range cannot keep the copies ahead of
// the multiplies, and every range costs a tile of partial sums written and read again).
constexpr int kMinSlicesPerSplit = 4;

// One wave: sms / tiles ranges per tile (0 where the tiles alone fill it); ranges of at least kMinSlicesPerSplit
// slices: slices / kMinSlicesPerSplit of them. The smaller of the two, and at least 1.
inline int splits_for(int sms, int tiles, int slices) {
  if (tiles <= 0) return 1;
  const int to_fill_a_wave = sms / tiles;
  const int deep_enough = slices / kMinSlicesPerSplit;
  const int splits = to_fill_a_wave < deep_enough ? to_fill_a_wave : deep_enough;
  return splits < 1 ? 1 : splits;
}

struct Range {
  int first;  // the range covers slices first .. end - 1
  int end;
};

// Range s starts at s * slices / splits, rounded down: the starts rise by slices / splits or one more, so every slice
// is in one range, the last ends at `slices`, and the lengths differ by at most one. (A fixed length slices / splits
// drops the last slices % splits slices of every tile.) 64-bit products: split * slices may pass 2^31.
inline Range range_of(int split, int splits, int slices) {
  const auto start = [&](int s) { return static_cast<int>(static_cast<long long>(s) * slices / splits); };
  return {start(split), start(split + 1)};
}

}  // namespace split_k_ranges
