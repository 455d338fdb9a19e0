// Exercise 57 (chapter 57-bf16-gemm-persistent): the ring of stages of the persistent GEMM: which stage each slice
// of a block's tiles lands in, and which mbarrier phase each of the two waits names.
//
// Chapter 57 runs one block per SM, and the block takes tile after tile: its tile number 0 (its first), 1 (its
// second), ... Every tile has the same K, cut into `slices_per_tile` slices of 64. One producer thread loads the
// slices with TMA into a ring of kStages shared-memory stages, and two consumer warpgroups multiply them. Each stage
// has two mbarriers: full[stage] completes a phase when a load's bytes have landed in the stage, and empty[stage]
// completes a phase when both consumers are done with the slice the stage held. The kernel's loops
// (gemm_persistent.cuh), for each of the block's tiles and each slice s of it:
//   producer:   except for the block's first kStages slices, which find their stages unused:
//                 wait on empty[stage] with empty_parity
//               load the slice into `stage` (completes a phase of full[stage] when it lands)
//   consumers:  wait on full[stage] with full_parity; multiply the slice;
//               once the multiply of the slice before it is done: arrive on empty[that slice's stage]
//               at the tile's end: the last multiply done, arrive on empty[the tile's last slice's stage]
// All three functions below are called with the same arguments by the producer and by the consumers.
//
// An mbarrier's wait names a phase only by its parity. A barrier's phases are numbered 0, 1, 2, ... from its
// init; mbarrier.try_wait.parity(p) returns once the latest phase of parity p has completed, that is, as soon as
// the current (not yet completed) phase has the other parity; the phase before phase 0 counts as completed. So a
// wait with the wrong parity does not wait for the phase you meant: it returns at once, when the phase before it
// has completed.
#pragma once

#include <cstdint>

namespace slice_ring {

template <int kStages>
struct SliceRing {
  static_assert(kStages >= 2, "a ring of at least two stages");

  // One counter over all of the block's tiles: slice `slice` of its tile number `tile` is slice `count` of the
  // block's stream. A counter restarted at each tile (count = slice) would put the next tile's first slice into
  // stage 0 while the previous tile's last slices still occupy other stages, and name phases that completed a
  // tile earlier, unless slices_per_tile were a multiple of 2 kStages.
  static std::uint32_t count(int tile, int slice, int slices_per_tile) {
    return static_cast<std::uint32_t>(tile) * static_cast<std::uint32_t>(slices_per_tile) +
           static_cast<std::uint32_t>(slice);
  }

  // The stages in turn: slice count takes the stage that slice count - kStages, the oldest in the ring, held.
  static int stage(int tile, int slice, int slices_per_tile) {
    return static_cast<int>(count(tile, slice, slices_per_tile) % kStages);
  }

  // Slice count is its stage's use number count / kStages: its load completes that phase of full[stage].
  static unsigned full_parity(int tile, int slice, int slices_per_tile) {
    return (count(tile, slice, slices_per_tile) / kStages) & 1u;
  }

  // The stage's previous use, count / kStages - 1 (slice count - kStages), is freed by the release that completes
  // that phase of empty[stage]: one phase behind the full barrier's. (count >= kStages here.)
  static unsigned empty_parity(int tile, int slice, int slices_per_tile) {
    return (count(tile, slice, slices_per_tile) / kStages - 1u) & 1u;
  }
};

}  // namespace slice_ring
