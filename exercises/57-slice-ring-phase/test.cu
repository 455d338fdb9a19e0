// Test of exercise 57: the ring of chapter 57's persistent GEMM, replayed on the host with the student's stage and
// parities (a host test: "host": true in the manifest; CI runs it without a GPU). The replay is chapter 57's own
// (chapters/57-bf16-gemm-persistent/ring_replay.hpp, which chapter 57's schedule test runs on SliceRing): first
// each wait must name the phase of what it waits for, and only a block's first kStages slices may skip the wait
// for their stage; then the kernel's loops run with emulated mbarriers (phases, arrivals, bytes in flight), one
// producer, two consumer warpgroups and the copy engine, in 30 random interleavings per case, and every consumer
// must read the slice the producer loaded for it, no load may land in a stage still being read, and the block
// must finish. One tile per block first, then 1 to 7 tiles of 1 to 9 slices (slices per tile a multiple of
// kStages or not) with 2 to 6 stages. The same source tests the exercise and the solution.
#include <slice_ring.cuh>

#include "doctest.hpp"

#include <string>

#include "../../chapters/57-bf16-gemm-persistent/ring_replay.hpp"  // chapter 57's replay, unchanged

namespace {

// The student's ring as the replay's rule. Whether the producer waits is the kernel's, not the student's: it waits
// for every slice but the block's first kStages (gemm_persistent.cuh: count >= kStages).
template <int kStages_>
struct StudentRing {
  static constexpr int kStages = kStages_;
  using Ring = slice_ring::SliceRing<kStages>;
  static int stage(int tile, int slice, int slices) { return Ring::stage(tile, slice, slices); }
  static unsigned full_parity(int tile, int slice, int slices) { return Ring::full_parity(tile, slice, slices); }
  static unsigned empty_parity(int tile, int slice, int slices) { return Ring::empty_parity(tile, slice, slices); }
  static bool waits_empty(int tile, int slice, int slices) {
    return static_cast<long long>(tile) * slices + slice >= kStages;
  }
};

constexpr unsigned kSeeds = 30;  // random interleavings per case

template <int kStages>
void require_ring(int max_tiles, int max_slices) {
  const std::string why = ring_replay::replay_all<StudentRing<kStages>>(max_tiles, max_slices, kSeeds);
  REQUIRE_MESSAGE(why.empty(), "MISMATCH: " << why);
}

template <int... kStages>
void require_rings(int max_tiles, int max_slices) {
  (require_ring<kStages>(max_tiles, max_slices), ...);
}

}  // namespace

TEST_CASE("57: one tile per block: every consumer reads the slice the producer loaded, and nothing hangs") {
  require_rings<2, 3, 4, 5, 6>(1, 9);
}

TEST_CASE("57: 1 to 7 tiles per block: the ring runs on across tile boundaries (slices per tile 1 to 9)") {
  require_rings<2, 3, 4, 5, 6>(7, 9);
}
