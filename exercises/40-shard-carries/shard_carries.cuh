// Exercise 40 (chapter 40-scan-multi-gpu): the carries of the multi-GPU scan's shards.
//
// Chapter 40 scans one array split over P GPUs in three steps: every shard but the last reduces to one word (its
// total), the P words are exchanged so that every GPU holds all of them, and every GPU scans its shard with a
// carry: the sum of everything before the shard. This file is step 3's arithmetic on the host, between the
// exchange (totals, read back into pinned host memory) and the launches (chapter 17's kernel takes the carry as
// its carry_in). Chapter 40's shard and carry code (shard_set.cuh, scan_multi_gpu.cuh: Split, Shard, carry_of)
// is included unchanged; the test checks this function against it.
#pragma once

#include <cstdint>
#include <vector>

#include "../../chapters/40-scan-multi-gpu/shard_set.cuh"  // chapter 40, unchanged: Split, Shard, carry_of, ShardSet

namespace shard_carries {

// totals[q] is shard q's total, as every shard received it (q < P). The carry of shard p is
// totals[0] + ... + totals[p - 1] in uint32 arithmetic (it wraps, like the int32 sums of the scan), handed to the
// kernel as an int32. Shard 0's carry is 0. totals[P - 1] is never written: the last shard does not reduce (no
// shard comes after it), so its word holds whatever was there, and no carry may depend on it.
inline std::vector<std::int32_t> carries_from_totals(const std::vector<std::uint32_t>& totals) {
  // TODO: carries[p] = the sum of totals[q] for q < p (an exclusive prefix sum), in uint32 arithmetic, returned
  // as int32. Shard 0's carry is 0; totals.back() (the last shard's word) is never written, so it must not reach
  // any carry. As shipped every carry is 0: every shard but the first is scanned as if it started the array.
  return std::vector<std::int32_t>(totals.size(), 0);
}

}  // namespace shard_carries
