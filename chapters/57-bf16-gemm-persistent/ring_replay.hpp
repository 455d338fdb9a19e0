// Chapter 57: the ring's mbarrier protocol replayed on the host, for any rule that names each slice's stage and
// phase parities. Chapter 57's schedule test (test_persistent_schedule.cpp) replays SliceRing with it, and exercise
// 57-slice-ring-phase replays the student's ring with it: one replay, two callers.
//
// A Ring (the rule under test) is a class with
//   static constexpr int kStages;                                           the stages of shared memory
//   static int stage(int tile, int slice, int slices);                      where the slice lands (0 .. kStages-1)
//   static unsigned full_parity(int tile, int slice, int slices);           the consumers' wait on full[stage]
//   static unsigned empty_parity(int tile, int slice, int slices);          the producer's wait on empty[stage]
//   static bool waits_empty(int tile, int slice, int slices);               whether the producer waits at all
// for slice `slice` (0 .. slices - 1) of the block's tile number `tile` (0 for the block's first tile, 1 for its
// second, ...), every tile having `slices` slices. The replay runs chapter 57's loops (gemm_persistent.cuh): the
// producer, per slice, waits on empty (where waits_empty), then loads into its stage (arrive_expect_tx on full);
// each of two consumer warpgroups, per slice, waits on full, issues its wgmma group, retires all but the newest,
// and frees the previous slice's stage (arrive on empty); at a tile's end it retires the last group and frees
// the last slice's stage.
//
// check_protocol reads the rule alone: each wait must name the phase of the event it waits for, and only a stage
// nobody used may be loaded without a wait. replay runs the protocol with emulated mbarriers and a random
// interleaving of the producer, the consumers and the copy engine. Both return "" or one line that says what
// went wrong, naming the slice as "tile T slice S".
#pragma once

#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace ring_replay {

inline std::string slice_name(int tile, int slice) {
  return "tile " + std::to_string(tile) + " slice " + std::to_string(slice);
}

// An mbarrier reduced to what the ring uses (PTX ISA, "mbarrier"): the arrivals and transaction bytes the current
// phase still waits for, and the count of completed phases. try_wait.parity(p) succeeds once the phase of parity
// p has completed: when the current (incomplete) phase's parity is not p. So a wait names a phase only up to its
// parity: a wait meant for phase k returns as soon as phase k - 1 has completed if it names the wrong parity.
struct Barrier {
  int expected = 1, pending = 1, completed = 0;
  long long tx = 0;
  explicit Barrier(int arrivals = 1) : expected(arrivals), pending(arrivals) {}
  void complete_if_done() {
    if (pending == 0 && tx == 0) ++completed, pending = expected;
  }
  void arrive() { --pending, complete_if_done(); }
  void arrive_expect_tx(long long bytes) { tx += bytes, arrive(); }
  void complete_tx(long long bytes) { tx -= bytes, complete_if_done(); }
  bool try_wait(unsigned parity) const { return static_cast<unsigned>(completed & 1) != parity; }
};

// One slice of a block's stream, as the rule places it.
struct Placed {
  int tile = 0, slice = 0;
  int stage = 0;
  unsigned full = 0, empty = 0;
  bool waits = false;
  int use = 0;       // how many slices of the stream used this stage before it: its full barrier's phase
  int previous = -1;  // the stream index of the stage's previous slice, or -1
};

// The block's stream of tiles x slices slices, placed by Ring, or a description of the first rule broken: a stage
// out of range, a parity that is not 0 or 1, a load into a used stage without a wait, a wait whose parity is not
// that of the phase it is for (the load's phase of full; the phase of empty that the stage's previous slice's
// release completes), or a wait that can never return.
template <class Ring>
std::string check_protocol(int tiles, int slices, std::vector<Placed>* placed_out = nullptr) {
  constexpr int kStages = Ring::kStages;
  std::vector<Placed> placed;
  std::vector<int> uses(kStages, 0), last(kStages, -1);
  for (int tile = 0; tile < tiles; ++tile)
    for (int s = 0; s < slices; ++s) {
      Placed p;
      p.tile = tile, p.slice = s;
      p.stage = Ring::stage(tile, s, slices);
      const std::string who = slice_name(tile, s) + ": ";
      if (p.stage < 0 || p.stage >= kStages)
        return who + "stage() gives " + std::to_string(p.stage) + ", not a stage of 0 .. " +
               std::to_string(kStages - 1);
      p.full = Ring::full_parity(tile, s, slices);
      p.waits = Ring::waits_empty(tile, s, slices);
      p.empty = p.waits ? Ring::empty_parity(tile, s, slices) : 0u;
      if (p.full > 1u) return who + "full_parity() gives " + std::to_string(p.full) + ": a parity is 0 or 1";
      if (p.empty > 1u) return who + "empty_parity() gives " + std::to_string(p.empty) + ": a parity is 0 or 1";
      p.use = uses[p.stage]++;
      p.previous = last[p.stage];
      last[p.stage] = static_cast<int>(placed.size());
      const std::string st = std::to_string(p.stage);
      const std::string prev =
          p.previous < 0 ? "" : slice_name(placed[p.previous].tile, placed[p.previous].slice);
      // The producer: a load into a stage used before must wait until the consumers freed it from its previous
      // slice (use - 1), which completes phase use - 1 of empty[stage].
      if (!p.waits && p.use > 0)
        return who + "the producer loads it into stage " + st + " without waiting on empty[" + st + "], but " + prev +
               " used stage " + st + " before it and may still be read (only a block's first " +
               std::to_string(kStages) + " slices skip the wait: they find their stages unused, so they need " +
               std::to_string(kStages) + " different stages)";
      if (p.waits && p.use == 0 && p.empty != 1u)
        return who + "the producer waits on empty[" + st + "] with parity 0 before stage " + st +
               "'s first use: no consumer ever frees a stage that nobody used, so the wait never returns (the "
               "kernel would hang; parity 1 names the phase before phase 0, which counts as complete)";
      if (p.waits && p.use > 0 && p.empty != static_cast<unsigned>((p.use - 1) & 1))
        return who + "the producer waited on empty[" + st + "] with parity " + std::to_string(p.empty) +
               " but the consumers free stage " + st + " from its previous slice, " + prev + ", by completing phase " +
               std::to_string(p.use - 1) + " of empty[" + st + "] (parity " + std::to_string((p.use - 1) & 1) +
               "); a wait for parity " + std::to_string(p.empty) +
               (p.use == 1 ? " returns at once" : " returns once phase " + std::to_string(p.use - 2) + " completed") +
               ", while " + prev + " may still be read";
      // The consumers: the load of this slice is the stage's use number `use`: it completes phase `use` of
      // full[stage].
      if (p.full != static_cast<unsigned>(p.use & 1))
        return who + "consumer waited on stage " + st + " parity " + std::to_string(p.full) +
               " but the producer's load of that slice completes phase " + std::to_string(p.use) + " of full[" + st +
               "] (parity " + std::to_string(p.use & 1) + "); a wait for parity " + std::to_string(p.full) +
               (p.use == 0 ? " returns at once, before anything landed"
                           : " returns once phase " + std::to_string(p.use - 1) + " (" + prev +
                                 "'s load) completed, before this slice lands");
      placed.push_back(p);
    }
  if (placed_out) *placed_out = std::move(placed);
  return "";
}

enum class Kind { kWaitEmpty, kLoad, kWaitFull, kIssue, kRetire, kArriveEmpty };
struct Op {
  Kind kind;
  int stage = 0;
  unsigned parity = 0;
  int index = 0;  // kLoad, kIssue, the waits: the slice's index in the block's stream (tile * slices + slice)
  int keep = 0;   // kRetire: groups left in flight (wgmma.wait_group's argument)
};

// kLastStageKept: the consumers do not free a tile's last stage before the epilogue (a planted bug).
enum class Planted { kNone, kLastStageKept };

// The kernel's loops (gemm_persistent.cuh) as op lists over the placed stream: the producer thread's, and one
// consumer warpgroup's.
inline std::pair<std::vector<Op>, std::vector<Op>> kernel_ops(const std::vector<Placed>& placed, int tiles,
                                                                int slices, Planted planted) {
  std::vector<Op> producer, consumer;
  for (int i = 0; i < static_cast<int>(placed.size()); ++i) {
    const Placed& p = placed[i];
    if (p.waits) producer.push_back({Kind::kWaitEmpty, p.stage, p.empty, i});
    producer.push_back({Kind::kLoad, p.stage, 0, i});
  }
  for (int tile = 0; tile < tiles; ++tile) {
    for (int s = 0; s < slices; ++s) {
      const int i = tile * slices + s;
      consumer.push_back({Kind::kWaitFull, placed[i].stage, placed[i].full, i});
      consumer.push_back({Kind::kIssue, placed[i].stage, 0, i});
      consumer.push_back({Kind::kRetire, 0, 0, 0, 1});
      if (s > 0) consumer.push_back({Kind::kArriveEmpty, placed[i - 1].stage});
    }
    consumer.push_back({Kind::kRetire, 0, 0, 0, 0});
    if (planted != Planted::kLastStageKept)
      consumer.push_back({Kind::kArriveEmpty, placed[tile * slices + slices - 1].stage});
  }
  return {producer, consumer};
}

// One block: the producer, two consumer warpgroups and the copy engine, each step chosen at random among those
// that can go on. Returns "" when the rule passes check_protocol and every consumer read every slice it expected
// from a stage nobody overwrote before its group retired, else what went wrong (a broken rule, a wrong slice, an
// overwrite, or no step possible before the end: a hang).
template <class Ring>
std::string replay(int tiles, int slices, unsigned seed, Planted planted = Planted::kNone) {
  constexpr int kStages = Ring::kStages;
  constexpr int kConsumers = 2;
  std::vector<Placed> placed;
  if (std::string why = check_protocol<Ring>(tiles, slices, &placed); !why.empty()) return why;
  auto name = [&](int i) { return i < 0 ? std::string("nothing") : slice_name(i / slices, i % slices); };
  const auto [producer, consumer] = kernel_ops(placed, tiles, slices, planted);
  std::vector<Barrier> full(kStages, Barrier(1)), empty(kStages, Barrier(kConsumers));
  std::vector<int> stage_slice(kStages, -1);      // which slice each stage holds
  std::deque<std::pair<int, int>> copies;         // in flight: (stage, slice)
  std::size_t producer_pc = 0;
  std::size_t consumer_pc[kConsumers] = {0, 0};
  std::deque<std::pair<int, int>> groups[kConsumers];  // wgmma groups in flight: (stage, slice)
  std::mt19937 rng(seed);
  auto ready = [&](const Op& op) {
    if (op.kind == Kind::kWaitEmpty) return empty[op.stage].try_wait(op.parity);
    if (op.kind == Kind::kWaitFull) return full[op.stage].try_wait(op.parity);
    return true;
  };
  for (;;) {
    // Agents: 0 the producer, 1 .. kConsumers the consumers, kConsumers + 1 the copy engine.
    std::vector<int> can;
    if (producer_pc < producer.size() && ready(producer[producer_pc])) can.push_back(0);
    for (int w = 0; w < kConsumers; ++w)
      if (consumer_pc[w] < consumer.size() && ready(consumer[consumer_pc[w]])) can.push_back(1 + w);
    if (!copies.empty()) can.push_back(1 + kConsumers);
    if (can.empty()) break;
    const int agent = can[std::uniform_int_distribution<std::size_t>(0, can.size() - 1)(rng)];
    if (agent == 1 + kConsumers) {  // the oldest copy lands
      const auto [stage, slice] = copies.front();
      copies.pop_front();
      for (int w = 0; w < kConsumers; ++w)
        for (const auto& g : groups[w])
          if (g.first == stage)
            return name(slice) + " landed in stage " + std::to_string(stage) + " while consumer " +
                   std::to_string(w) + "'s wgmma group still read " + name(g.second) + " from it";
      stage_slice[stage] = slice;
      full[stage].complete_tx(1);
      continue;
    }
    if (agent == 0) {
      const Op& op = producer[producer_pc++];
      if (op.kind == Kind::kLoad) {
        full[op.stage].arrive_expect_tx(1);
        copies.push_back({op.stage, op.index});
      }
      continue;
    }
    const int w = agent - 1;
    const Op& op = consumer[consumer_pc[w]++];
    if (op.kind == Kind::kIssue) {
      if (stage_slice[op.stage] != op.index)
        return name(op.index) + ": consumer " + std::to_string(w) + " waited on full[" + std::to_string(op.stage) +
               "] and read " + name(stage_slice[op.stage]) + " from stage " + std::to_string(op.stage) +
               " instead of " + name(op.index);
      groups[w].push_back({op.stage, op.index});
    } else if (op.kind == Kind::kRetire) {
      while (static_cast<int>(groups[w].size()) > op.keep) groups[w].pop_front();
    } else if (op.kind == Kind::kArriveEmpty) {
      empty[op.stage].arrive();
    }
  }
  bool done = producer_pc == producer.size();
  for (int w = 0; w < kConsumers; ++w) done = done && consumer_pc[w] == consumer.size();
  if (done) return "";
  // Who waits for what.
  auto waiting = [&](const std::string& who, const std::vector<Op>& ops, std::size_t pc) {
    if (pc == ops.size()) return who + " has finished";
    const Op& op = ops[pc];
    const bool on_empty = op.kind == Kind::kWaitEmpty;
    return who + " waits on " + (on_empty ? "empty[" : "full[") + std::to_string(op.stage) + "] parity " +
           std::to_string(op.parity) + (on_empty ? " to load " : " for ") + name(op.index);
  };
  std::string why = "no step possible before the end (the kernel would hang): " +
                    waiting("the producer", producer, producer_pc);
  for (int w = 0; w < kConsumers; ++w) why += "; " + waiting("consumer " + std::to_string(w), consumer, consumer_pc[w]);
  return why;
}

// Every tile count 1 .. max_tiles and slice count 1 .. max_slices, `seeds` interleavings each; the first failure's
// description ("T tiles of S slices, K stages: ..."), or "".
template <class Ring>
std::string replay_all(int max_tiles, int max_slices, unsigned seeds, Planted planted = Planted::kNone) {
  for (int tiles = 1; tiles <= max_tiles; ++tiles)
    for (int slices = 1; slices <= max_slices; ++slices)
      for (unsigned seed = 0; seed < seeds; ++seed) {
        const std::string why = replay<Ring>(tiles, slices, seed, planted);
        if (!why.empty())
          return std::to_string(tiles) + (tiles == 1 ? " tile of " : " tiles of ") + std::to_string(slices) +
                 (slices == 1 ? " slice, " : " slices, ") + std::to_string(Ring::kStages) + " stages: " + why;
      }
  return "";
}

}  // namespace ring_replay
