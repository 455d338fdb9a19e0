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

namespace slice_ring {

template <int kStages>
struct SliceRing {
  static_assert(kStages >= 2, "a ring of at least two stages");

  // TODO: the stage (0 .. kStages - 1) that slice `slice` of the block's tile number `tile` goes to.
  //   Rules: the block's first kStages slices are loaded without a wait, so each needs a stage of its own. Every
  //   later slice waits until its stage is freed, and the consumers free the stages in the order they read the
  //   slices: a slice must take the stage of the oldest slice still in the ring, else the producer waits for a
  //   release that comes only after the consumers have read a slice it has not loaded yet (a hang). As shipped:
  //   `slice % kStages`, the slice's place in its own tile.
  static int stage(int tile, int slice, int slices_per_tile) {
    (void)tile;
    (void)slices_per_tile;
    return slice % kStages;
  }

  // TODO: the parity the consumers wait for on full[stage] before they read this slice: that of the phase of
  //   full[stage] which this slice's load completes. The stage's first load completes its phase 0, the next load
  //   into the same stage its phase 1, and so on. As shipped: 0.
  static unsigned full_parity(int tile, int slice, int slices_per_tile) {
    (void)tile;
    (void)slice;
    (void)slices_per_tile;
    return 0;
  }

  // TODO: the parity the producer waits for on empty[stage] before it loads this slice (called only for the
  //   slices after the block's first kStages). The stage still holds the slice loaded into it before this one,
  //   until both consumers have freed it: that release completes a phase of empty[stage], and the stage's first
  //   release completes its phase 0. Wait for the parity of the phase that frees the stage for THIS load. As
  //   shipped: 0.
  static unsigned empty_parity(int tile, int slice, int slices_per_tile) {
    (void)tile;
    (void)slice;
    (void)slices_per_tile;
    return 0;
  }
};

}  // namespace slice_ring
