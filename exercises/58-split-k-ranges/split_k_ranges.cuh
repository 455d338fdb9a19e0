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

// TODO: how many ranges to cut each tile's K into, for `tiles` tiles of `slices` slices on `sms` SMs (one block each).
//   Rules: as many as keep all tiles x splits units in one wave of `sms` blocks (a second wave would take as long as
//   the first), but no range shorter than kMinSlicesPerSplit slices; at least 1 (where the tiles alone fill a wave,
//   or K is short, there is no split). As shipped: 1, never a split.
inline int splits_for(int sms, int tiles, int slices) {
  (void)sms;
  (void)tiles;
  (void)slices;
  return 1;
}

struct Range {
  int first;  // the range covers slices first .. end - 1
  int end;
};

// TODO: the slices of range `split` (0 .. splits - 1) of a tile's `slices` slices.
//   Rules: every slice in exactly one range; no range empty (splits <= slices is given); ranges differ in length by at
//   most one slice, so that no unit is much longer than the others (the wave ends with its longest unit). As shipped:
//   every range slices / splits long, from split * (slices / splits).
inline Range range_of(int split, int splits, int slices) {
  const int length = slices / splits;
  return {split * length, split * length + length};
}

}  // namespace split_k_ranges
