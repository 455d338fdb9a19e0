// Chapter 18: chapter 17's single-pass look-back scan for the types and operators users scan.
// Same design (one tile per block, tile from an atomic counter, most of the tile landing in shared memory by
// cp.async and the rest in registers, pass 1 sums, warp 0 looks back, pass 2 rescans and stores), now a
// template over
//   - the value type T: int32, uint32, int64, float, double. A tile keeps the same *bytes* for every type
//     (a 16-byte vector holds 16 / sizeof(T) items), so items per thread scale with 1 / sizeof(T);
//   - the operator: Sum (identity 0; signed sums wrap in two's complement: they run on the unsigned twin
//     of T) or Max (identity -inf for floating point, numeric_limits<T>::lowest() for integers; NaN propagates).
// Status words: a 4-byte value shares one 64-bit word with its flag (chapter 17's relaxed words); an 8-byte
// value cannot, so each of its 32-bit halves shares a 64-bit word with a copy of the flag, and a reader takes the
// value only when both copies agree (PairedStatus; CUB instead packs an 8-byte primitive value with its flag in
// one 16-byte word, ScanTileState's ulonglong2, read and written with 16-byte accesses).
// Floating-point sums are not associative, so where the operator is not exactly regroupable (Op::regroupable)
// the look-back folds the predecessors' values one by one in tile order instead of a warp tree: then every
// tile's inclusive prefix is, bit for bit, ((A0 + A1) + A2) + ... of the tile aggregates, whichever
// predecessor's prefix the look-back happened to stop at, and the result is deterministic for a fixed size and
// tuning (README, "Floating-point sums").
//
//   init_tile_status_kernel<Flag>    reset the tile counter and every status word's flag to X
//   scan_tiles_kernel<K>            <<<tiles, threads, staged bytes>>>  one tile per block
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cuda/std/limits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "bulk_copy.cuh"
#include "cp_async.cuh"
#include "cuda_check.cuh"
#include "decoupled_lookback.cuh"
#include "setup_registry.cuh"
// Chapter 17's lesson header: its blocks per SM for __launch_bounds__ and its shared-memory opt-in.
#include "../17-scan-lookback-landing-zone/scan_lookback_landing_zone.cuh"
// The 4-byte types' tile status. Angle brackets: the include path decides. Chapters 18 and 40 put this folder
// on it; exercise 18's test puts only the exercise's (or the solution's) folder there, so its copy is found.
#include <packed_status.cuh>

namespace scan_copy_bound {

namespace lz = scan_lookback_landing_zone;
constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kVectorBytes = 16;  // one uint4: the unit of every load, copy and store of a full tile

// ---- Operators -----------------------------------------------------------------------------------------------
struct Sum {
  template <class T>
  __host__ __device__ static constexpr T identity() { return T(0); }
  template <class T>
  __host__ __device__ T operator()(T a, T b) const { return a + b; }
  // Integer sums give the same bits whatever the grouping; floating-point sums do not.
  template <class T>
  static constexpr bool regroupable = std::is_integral_v<T>;
};
// The identity seeds every tile's exclusive prefix, the look-back's missing predecessors and the lanes past the
// end, so op(identity, x) must be x for every x an input can hold: -inf for floating point (lowest(), the most
// negative finite value, would turn an input of -inf into -FLT_MAX from the second tile on), lowest() for integers.
// NaN policy: NaN propagates. Every output from the first NaN of the input on is NaN, with the bits of the last
// NaN so far; without NaN, max returns the first of equal maxima (-0.0 before 0.0 stays -0.0). Both rules are
// associative, so any grouping gives the same bits. (CUB's cuda::maximum, a < b ? b : a, drops a NaN that comes
// as its right operand: its NaN results depend on the grouping.)
struct Max {
  template <class T>
  __host__ __device__ static constexpr T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity) return -cuda::std::numeric_limits<T>::infinity();
    else return cuda::std::numeric_limits<T>::lowest();
  }
  template <class T>
  __host__ __device__ T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) return (a < b || b != b) ? b : a;  // b != b: b is NaN
    else return a < b ? b : a;
  }
  template <class T>
  static constexpr bool regroupable = true;  // max picks one of its operands: any grouping, same bits
};

// The type a scan runs on: signed sums on the unsigned twin (wrap-around is defined there), the rest on T.
template <class T, class Op, bool = std::is_same_v<Op, Sum> && std::is_integral_v<T> && std::is_signed_v<T>>
struct ScanTypeOf {
  using type = T;
};
template <class T, class Op>
struct ScanTypeOf<T, Op, true> {
  using type = std::make_unsigned_t<T>;
};
template <class T, class Op>
using ScanType = typename ScanTypeOf<T, Op>::type;

// ---- Tuning ---------------------------------------------------------------------------------------------------
enum class Staging { kCpAsync, kBulkCopy };  // how the shared-memory rows land (kBulkCopy: sm_90+, TMA)
enum class LoadHint { kDefault, kEvictFirst };    // the register rows: ld.global or ld.global.cs (__ldcs)
enum class StoreHint { kDefault, kStreaming };    // the output: st.global or st.global.cs (__stcs)

// One configuration for value type T: BlockThreads threads, each with StagedVectors 16-byte vectors landing in
// shared memory and RegisterVectors in registers; MinBlocksPerSM for __launch_bounds__. Timeline records per-tile
// time stamps (README, "Where the time goes").
template <class T, class Op, int BlockThreads, int StagedVectors, int RegisterVectors, int MinBlocksPerSM,
          Staging Stage = Staging::kCpAsync, LoadHint Load = LoadHint::kDefault,
          StoreHint Store = StoreHint::kDefault, bool Timeline = false>
struct Tuning {
  using Value = T;
  using Operator = Op;
  static constexpr int kVectorItems = kVectorBytes / static_cast<int>(sizeof(T));
  static constexpr int kBlockThreads = BlockThreads;
  static constexpr int kWarps = BlockThreads / kWarpSize;
  static constexpr int kStagedVectors = StagedVectors;      // rows 0 .. kStagedVectors-1: shared memory
  static constexpr int kRegisterVectors = RegisterVectors;  // the rows after them: registers
  static constexpr int kVectorsPerThread = StagedVectors + RegisterVectors;
  static constexpr int kItemsPerThread = kVectorsPerThread * kVectorItems;
  static constexpr int kWarpItems = kWarpSize * kItemsPerThread;  // one warp's contiguous segment
  static constexpr int kTileItems = BlockThreads * kItemsPerThread;
  static constexpr int kWarpStagedBytes = kWarpSize * StagedVectors * kVectorBytes;
  static constexpr int kStagedBytes = kWarps * kWarpStagedBytes;  // dynamic shared memory
  static constexpr int kMinBlocksPerSM = MinBlocksPerSM;
  static constexpr Staging kStaging = Stage;
  static constexpr LoadHint kLoadHint = Load;
  static constexpr StoreHint kStoreHint = Store;
  static constexpr bool kTimeline = Timeline;
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "4- and 8-byte value types (a vector holds 4 or 2 items)");
  static_assert(kVectorItems * sizeof(T) == kVectorBytes, "a vector is whole items");
  static_assert(BlockThreads % kWarpSize == 0 && BlockThreads >= kWarpSize && BlockThreads <= 1024,
                "a block is 1 to 32 whole warps");
  static_assert(StagedVectors > 0 && RegisterVectors >= 0, "at least one vector per thread in shared memory");
  static_assert(kStagedBytes <= 96 * 1024, "a tile that leaves room for two blocks per SM");
};

// The stage's shape for every type: chapter 17's 192 threads x (192 bytes in shared memory + 128 in
// registers), 6 blocks per SM; 60 KiB tiles (15,360 4-byte or 7,680 8-byte items).
template <class T, class Op>
using StageTuning = Tuning<T, Op, 192, 12, 8, 6>;

// ---- Tile status ------------------------------------------------------------------------------------------------
// The flags of chapter 15's status words (common/decoupled_lookback.cuh): X, A, P.
using tut::lookback::kAggregate;
using tut::lookback::kInclusive;
using tut::lookback::kInvalid;

// 4-byte values: PackedStatus (flag and value in one 64-bit word), in packed_status.cuh, included above: the
// block that exercise 18 asks for.

// 8-byte values: a 64-bit value leaves no room for the flag in one 64-bit atomic word, so each 32-bit half of it
// gets a word of its own with a copy of the flag (word 2t: flag | low half, word 2t + 1: flag | high half), each
// published and read with relaxed 64-bit atomics, as the 4-byte words are. A reader that sees the same flag in
// both words has both halves of one publication (a tile publishes A once, then P once); different flags are a
// publication caught halfway, read as X, so the look-back reads again. No fence and no second, dependent load:
// the flag and the value arrive together.
template <class T>
struct PairedStatus {
  static_assert(sizeof(T) == 8, "two 32-bit halves");
  using Flag = unsigned long long;  // the words the status reset clears (two per tile)
  struct Observed {
    Flag low, high;
  };
  static constexpr int kWordsPerTile = 2;
  Flag* words;

  __device__ void publish(int tile, std::uint32_t flag, T value) const {
    std::uint64_t b;
    std::memcpy(&b, &value, sizeof b);
    const Flag tag = static_cast<Flag>(flag) << 32;
    const unsigned w = 2u * static_cast<unsigned>(tile);  // own tile: >= 0
    cuda::atomic_ref<Flag, cuda::thread_scope_device>(words[w]).store(tag | (b & 0xffffffffu), cuda::memory_order_relaxed);
    cuda::atomic_ref<Flag, cuda::thread_scope_device>(words[w + 1]).store(tag | (b >> 32), cuda::memory_order_relaxed);
  }
  __device__ Observed observe(int tile) const {
    return {cuda::atomic_ref<Flag, cuda::thread_scope_device>(words[2 * tile]).load(cuda::memory_order_relaxed),
            cuda::atomic_ref<Flag, cuda::thread_scope_device>(words[2 * tile + 1]).load(cuda::memory_order_relaxed)};
  }
  __device__ static std::uint32_t flag(Observed o) {
    const auto low = static_cast<std::uint32_t>(o.low >> 32), high = static_cast<std::uint32_t>(o.high >> 32);
    return low == high ? low : static_cast<std::uint32_t>(kInvalid);  // halfway through a publication: X
  }
  __device__ T value(Observed o, int) const {
    const std::uint64_t b = (o.high << 32) | (o.low & 0xffffffffu);
    T v;
    std::memcpy(&v, &b, sizeof v);
    return v;
  }
  __device__ static Observed virtual_inclusive() {
    const Flag tag = static_cast<Flag>(kInclusive) << 32;
    return {tag, tag};
  }
};

template <class T>
using TileStatus = std::conditional_t<sizeof(T) == 4, PackedStatus<T>, PairedStatus<T>>;

// Words per tile of a status layout: 1 (PackedStatus), 2 (PairedStatus).
template <class Status>
constexpr int words_per_tile() {
  if constexpr (sizeof(typename Status::Observed) == sizeof(typename Status::Flag)) return 1;
  else return Status::kWordsPerTile;
}

// ---- Workspace: counter (own 128-byte line), flags, then (8-byte values) aggregates and inclusive prefixes --
constexpr std::size_t kStatusOffset = 128;
inline std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }

template <class K>
inline std::size_t tile_count(std::size_t n) {
  return (n + K::kTileItems - 1) / K::kTileItems;
}

template <class K>
inline std::size_t workspace_bytes_for(std::size_t n) {
  using Status = TileStatus<typename K::Value>;
  return kStatusOffset + tile_count<K>(n) * words_per_tile<Status>() * sizeof(typename Status::Flag);
}

template <class T>
inline TileStatus<T> workspace_status(void* workspace) {
  using Flag = typename TileStatus<T>::Flag;
  return {reinterpret_cast<Flag*>(static_cast<unsigned char*>(workspace) + kStatusOffset)};
}
inline unsigned* workspace_tile_counter(void* workspace) { return static_cast<unsigned*>(workspace); }

// Resets the counter and every status word's flag to X before each scan.
template <class Flag>
__global__ void init_tile_status_kernel(unsigned* tile_counter, Flag* flags, std::int64_t tiles) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = first; t < tiles; t += stride) flags[t] = kInvalid;
  if (first == 0) *tile_counter = 0;
}

// ---- Items in a vector ------------------------------------------------------------------------------------------
template <class T>
struct Items {
  T item[kVectorBytes / sizeof(T)];
};
template <class T>
__device__ __forceinline__ Items<T> items_of(uint4 v) {
  Items<T> r;
  std::memcpy(&r, &v, sizeof r);  // a bit cast: registers only
  return r;
}
template <class T>
__device__ __forceinline__ uint4 vector_of(const Items<T>& x) {
  uint4 v;
  std::memcpy(&v, &x, sizeof v);
  return v;
}

// ---- Warp-wide steps, for any type and operator ----------------------------------------------------------------
// Inclusive scan across the warp (Kogge-Stone with shuffles; lanes below d keep their value).
template <class Op, class T>
__device__ __forceinline__ T scan_warp(T value) {
  const int lane = threadIdx.x % kWarpSize;
#pragma unroll
  for (int d = 1; d < kWarpSize; d *= 2) {
    const T left = __shfl_up_sync(kFullMask, value, d);
    if (lane >= d) value = Op{}(left, value);
  }
  return value;
}
// The operator over the warp, to every lane (butterfly; the same fixed tree on every run).
template <class Op, class T>
__device__ __forceinline__ T reduce_warp(T value) {
#pragma unroll
  for (int d = kWarpSize / 2; d > 0; d /= 2) value = Op{}(value, __shfl_xor_sync(kFullMask, value, d));
  return value;
}
// Folds lanes first .. end-1 of `value` in lane order, to every lane: acc = op(acc, value[l]), except that a lane
// whose flag is P (an inclusive prefix: the fold of everything up to it) restarts the fold, as does the first lane
// when there is no acc yet (have false). This is what keeps floating-point results independent of where a
// look-back stopped. A restart discards everything before it, so the fold starts at the last P in the range: in
// the common case (a P just behind the tile) that is one or two dependent steps instead of 32.
template <class Op, class T>
__device__ __forceinline__ T fold_lanes_in_order(T value, bool inclusive, int first, int end, T acc, bool have) {
  if (first >= end) return acc;
  const unsigned in_range = (end >= kWarpSize ? kFullMask : (1u << end) - 1u) & ~((1u << first) - 1u);
  const unsigned restarts = __ballot_sync(kFullMask, inclusive) & in_range;
  // Warp-uniform: the lane the fold starts from (the last P in range, else first).
  const int start = restarts != 0 ? kWarpSize - 1 - __clz(static_cast<int>(restarts)) : first;
  const T v = __shfl_sync(kFullMask, value, start);
  acc = (have && !((restarts >> start) & 1u)) ? Op{}(acc, v) : v;
  for (int l = start + 1; l < end; ++l) acc = Op{}(acc, __shfl_sync(kFullMask, value, l));  // no P after start
  return acc;
}

// ---- The look-back (warp 0; chapter 17's, generic) ------------------------------------------------------------
// The operator over all tiles before `tile`. Regroupable operators: window by window, a tree over each window
// (chapter 17). Others: find the nearest P first, then fold from it forward in tile order.
template <class K, class Status>
__device__ __forceinline__ typename K::Value look_back(const Status& status, int tile) {
  using T = typename K::Value;
  using Op = typename K::Operator;
  const int lane = threadIdx.x % kWarpSize;
  // Waits until no tile of the window ending before window_end is X (backing off, as in chapter 17).
  const auto observe_window = [&](int window_end) {
    const int predecessor = window_end - kWarpSize + lane;
    auto seen = predecessor >= 0 ? status.observe(predecessor) : Status::virtual_inclusive();
    unsigned sleep_ns = 64;
    while (__any_sync(kFullMask, Status::flag(seen) == kInvalid)) {
      __nanosleep(sleep_ns);
      sleep_ns = sleep_ns < 512 ? 2 * sleep_ns : 512;
      if (predecessor >= 0) seen = status.observe(predecessor);
    }
    return seen;
  };
  const auto value_in = [&](int window_end, auto seen) {
    const int predecessor = window_end - kWarpSize + lane;
    return predecessor >= 0 ? status.value(seen, predecessor) : Op::template identity<T>();
  };

  T exclusive_prefix = Op::template identity<T>();
  for (int window_end = tile;; window_end -= kWarpSize) {
    const auto seen = observe_window(window_end);
    const unsigned inclusive_lanes = __ballot_sync(kFullMask, Status::flag(seen) == kInclusive);
    const int nearest = inclusive_lanes != 0 ? kWarpSize - 1 - __clz(static_cast<int>(inclusive_lanes)) : 0;
    if constexpr (Op::template regroupable<T>) {
      const T window = reduce_warp<Op>(lane >= nearest ? value_in(window_end, seen) : Op::template identity<T>());
      exclusive_prefix = Op{}(window, exclusive_prefix);  // the older window on the left
      if (inclusive_lanes != 0) return exclusive_prefix;
    } else if (inclusive_lanes != 0) {
      // Fold forward from the nearest P. Predecessors below tile 0 are a virtual P of the identity: skip them
      // (tile 0's aggregate starts the fold as it is).
      const int from = window_end - kWarpSize + nearest;
      if (window_end == tile) {  // the common case: everything needed is in this window's registers
        const int first = from < 0 ? kWarpSize - window_end : nearest;
        return fold_lanes_in_order<Op>(value_in(window_end, seen), Status::flag(seen) == kInclusive, first,
                                       kWarpSize, exclusive_prefix, false);
      }
      // The P lies further back: read the windows from it to the tile again (their words are all at least A
      // now; one that has become P restarts the fold with the same bits).
      T acc = exclusive_prefix;
      bool have = false;
      for (int begin = from < 0 ? 0 : from; begin < tile; begin += kWarpSize) {
        const int end = begin + kWarpSize < tile ? begin + kWarpSize : tile;
        const int t = begin + lane;
        auto again = t < end ? status.observe(t) : Status::virtual_inclusive();
        // Read once as A or P before: X here only for an 8-byte value caught between its A and P halves.
        while (__any_sync(kFullMask, Status::flag(again) == kInvalid)) {
          if (t < end) again = status.observe(t);
        }
        const T v = t < end ? status.value(again, t) : Op::template identity<T>();
        const bool inclusive = t < end && Status::flag(again) == kInclusive;
        acc = fold_lanes_in_order<Op>(v, inclusive, 0, end - begin, acc, have);
        have = true;
      }
      return acc;
    }
  }
}

// ---- A carry into the scan -------------------------------------------------------------------------------------
// A value folded in front of every output, op(carry, out[i]): a scan that continues an earlier one (chapter 40:
// the sum of the shards before this one). Tile 0's exclusive prefix starts at it, as in chapter 17's carry_in; it
// reaches the other tiles through tile 0's inclusive prefix. "No carry" is not the identity (op(0, x) turns a
// -0.0f sum into +0.0f): the kernel has a carry only where it is instantiated WithCarry, and then takes its value as
// a kernel argument (no extra global traffic). Without one the kernel is chapter 18's as it was: a run-time flag
// costs the register-bound kernels a spill.
template <class T>
struct CarryIn {
  T value{};
  bool present = false;
};

// ---- One tile's block-wide steps --------------------------------------------------------------------------------
template <class K>
struct TileScanShared {
  typename K::Value warp_aggregates[K::kWarps];
  typename K::Value warp_offsets[K::kWarps];  // [w]: the operator over warps 0 .. w-1 (unused for warp 0)
  typename K::Value exclusive_prefix;
};

// The tile's aggregate (returned to every thread), and each warp's offset in the tile, the operator over the
// warps before it, left in shared memory (one barrier). Pass 2 reads the offset back after the look-back's
// barrier: held in a register it would be live across the look-back, where registers are scarcest.
template <class K>
__device__ __forceinline__ typename K::Value scan_warp_sums(typename K::Value segment, TileScanShared<K>& shared) {
  using T = typename K::Value;
  using Op = typename K::Operator;
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  if (lane == 0) shared.warp_aggregates[warp] = segment;
  __syncthreads();
  const T mine = lane < K::kWarps ? shared.warp_aggregates[lane] : Op::template identity<T>();
  const T scanned = scan_warp<Op>(mine);
  // Exclusive offset: the inclusive scan of the lane before (warp 0 has none).
  const T warp_offset = __shfl_sync(kFullMask, scanned, warp > 0 ? warp - 1 : 0);
  if (lane == 0) shared.warp_offsets[warp] = warp_offset;
  return __shfl_sync(kFullMask, scanned, K::kWarps - 1);
}

// Warp 0 publishes the aggregate, looks back, publishes the inclusive prefix; every thread gets the operator over
// all tiles before this one and the carry (nothing for tile 0 without a carry: the identity). One barrier.
template <class K, bool WithCarry, class Status>
__device__ __forceinline__ typename K::Value tile_exclusive_prefix(const Status& status, int tile,
                                                                   typename K::Value tile_aggregate,
                                                                   typename K::Value carry,
                                                                   TileScanShared<K>& shared) {
  using T = typename K::Value;
  using Op = typename K::Operator;
  const int lane = threadIdx.x % kWarpSize;
  if (threadIdx.x / kWarpSize == 0) {
    T exclusive_prefix = WithCarry ? carry : Op::template identity<T>();
    if (tile == 0) {
      if (lane == 0) status.publish(tile, kInclusive, WithCarry ? Op{}(carry, tile_aggregate) : tile_aggregate);
    } else {
      if (lane == 0) status.publish(tile, kAggregate, tile_aggregate);
      exclusive_prefix = look_back<K>(status, tile);
      if (lane == 0) status.publish(tile, kInclusive, Op{}(exclusive_prefix, tile_aggregate));
    }
    if (lane == 0) shared.exclusive_prefix = exclusive_prefix;
  }
  __syncthreads();
  return shared.exclusive_prefix;
}

// ---- Moving the data -------------------------------------------------------------------------------------------
// One vector of the last tile (or of misaligned buffers), item by item: items first .. of the segment, the
// identity from segment_items on.
template <class T, class Op>
__device__ __forceinline__ uint4 load_vector_guarded(const T* segment, int first, int segment_items) {
  Items<T> x;
#pragma unroll
  for (int c = 0; c < kVectorBytes / static_cast<int>(sizeof(T)); ++c)
    x.item[c] = first + c < segment_items ? segment[first + c] : Op::template identity<T>();
  return vector_of(x);
}
template <class K>
__device__ __forceinline__ uint4 load_register_vector(const uint4* source) {
  if constexpr (K::kLoadHint == LoadHint::kEvictFirst) return __ldcs(source);  // streamed: evict first
  else return *source;
}
template <class K>
__device__ __forceinline__ void store_vector(uint4* destination, uint4 v) {
  if constexpr (K::kStoreHint == StoreHint::kStreaming) __stcs(destination, v);  // not re-read: evict first
  else *destination = v;
}

// Per-tile time stamps (Tuning::kTimeline): %globaltimer, in ns, shared by all SMs.
enum Stamp { kClaimed, kLanded, kSummed, kPrefixKnown, kStored, kStamps };
__device__ __forceinline__ std::uint64_t global_time_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// ---- Where a warp's segment lies -------------------------------------------------------------------------------
// The warp's segment of `tile` (tile indices fit an int: one block per tile; item indices are 64-bit, n may
// exceed 2^31). The last tile's guards compare 32-bit offsets in the segment with `items`, the segment's items
// below n (0 .. kWarpItems), rather than 64-bit indices with n; `begin` is clamped to n, so that a segment past
// the end still names an address inside the array.
struct Segment {
  std::int64_t begin;
  int items;
};
template <class K>
__device__ __forceinline__ Segment segment_of(int tile, std::int64_t n) {
  const std::int64_t begin = static_cast<std::int64_t>(tile) * K::kTileItems +
                             static_cast<std::int64_t>(threadIdx.x / kWarpSize) * K::kWarpItems;
  const std::int64_t clamped = begin < n ? begin : n;
  return {clamped, static_cast<int>(n - clamped < K::kWarpItems ? n - clamped : K::kWarpItems)};
}

// ---- The kernel ------------------------------------------------------------------------------------------------
// One tile per block; the grid has as many blocks as tiles. vector_io: both buffers are 16-byte aligned, so full
// tiles use cp.async (or bulk copies) and uint4 stores. carry: WithCarry only, folded in front of every output
// (CarryIn). stamps: kStamps per tile (kTimeline only).
template <class K, bool WithCarry = false>
__global__ __launch_bounds__(K::kBlockThreads, lz::min_blocks_per_sm(K::kMinBlocksPerSM)) void scan_tiles_kernel(
    const typename K::Value* in, typename K::Value* out, std::int64_t n, bool vector_io, unsigned* tile_counter,
    TileStatus<typename K::Value> status, typename K::Value carry, std::uint64_t* stamps) {
  using T = typename K::Value;
  using Op = typename K::Operator;
  constexpr int kItems = K::kVectorItems;
  extern __shared__ uint4 staged_vectors[];
  __shared__ TileScanShared<K> shared;
  __shared__ unsigned tile_shared;
  __shared__ std::uint64_t tile_landed;  // kBulkCopy: completes when all of the tile's staged bytes have landed
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr bool kBulk = K::kStaging == Staging::kBulkCopy;
#else
  constexpr bool kBulk = false;  // below sm_90 the bulk-copy shape stages with cp.async
#endif
  constexpr int kStagedRowsPerWarp = kWarpSize * K::kStagedVectors;
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const auto is_full = [&](int t) { return vector_io && (static_cast<std::int64_t>(t) + 1) * K::kTileItems <= n; };
  // (Timeline only) thread 0 keeps the stamps in shared memory and writes them out at the end: a global
  // address held across the tile would cost registers the stage has none of to spare.
  __shared__ std::uint64_t tile_stamps[kStamps];
  const auto stamp = [&](Stamp s) {
    if constexpr (K::kTimeline)
      if (threadIdx.x == 0) tile_stamps[s] = global_time_ns();
  };

  // 1. The tile, from the counter; with bulk copies the thread that learns it starts every warp's copy.
  if (threadIdx.x == 0) {
    const unsigned t = atomicAdd(tile_counter, 1u);
    tile_shared = t;
    if constexpr (kBulk) {
      if (is_full(t)) {
        tut::bulk_copy::mbarrier_init(&tile_landed, 1);
        tut::bulk_copy::fence_mbarrier_init();
        tut::bulk_copy::mbarrier_arrive_expect_tx(&tile_landed, K::kStagedBytes);
        for (int w = 0; w < K::kWarps; ++w)
          tut::bulk_copy::bulk_copy_global_to_shared(staged_vectors + w * kStagedRowsPerWarp,
                                         in + static_cast<std::int64_t>(t) * K::kTileItems + w * K::kWarpItems,
                                         K::kWarpStagedBytes, &tile_landed);
      }
    }
  }
  __syncthreads();
  const int tile = static_cast<int>(tile_shared);
  stamp(kClaimed);
  const Segment segment = segment_of<K>(tile, n);
  uint4* staged = staged_vectors + warp * kStagedRowsPerWarp;     // row r, this lane: staged[r * 32 + lane]
  uint4 held[K::kRegisterVectors > 0 ? K::kRegisterVectors : 1];  // row kStagedVectors + r, this lane

  // 2. Land the warp's segment: staged rows by copies that bypass registers, register rows by loads issued
  //    before the wait, so both are in flight together.
  if (is_full(tile)) {
    const uint4* source = reinterpret_cast<const uint4*>(in + segment.begin) + lane;
    if constexpr (!kBulk) {
#pragma unroll
      for (int r = 0; r < K::kStagedVectors; ++r)
        tut::async_copy::cp_async_16(staged + r * kWarpSize + lane, source + r * kWarpSize);
    }
#pragma unroll
    for (int r = 0; r < K::kRegisterVectors; ++r)
      held[r] = load_register_vector<K>(source + (K::kStagedVectors + r) * kWarpSize);
    if constexpr (kBulk) {
      while (!tut::bulk_copy::mbarrier_try_wait_parity(&tile_landed, 0)) {
      }
    } else {
      tut::async_copy::cp_async_wait_all();
    }
  } else {  // the last tile or misaligned buffers: item by item, the identity past the end
#pragma unroll
    for (int r = 0; r < K::kVectorsPerThread; ++r) {
      const uint4 v = load_vector_guarded<T, Op>(in + segment.begin, (r * kWarpSize + lane) * kItems, segment.items);
      if (r < K::kStagedVectors) staged[r * kWarpSize + lane] = v;
      else held[r - K::kStagedVectors] = v;
    }
  }
  stamp(kLanded);
  const auto vector_at = [&](int r) {
    return items_of<T>(r < K::kStagedVectors ? staged[r * kWarpSize + lane] : held[r - K::kStagedVectors]);
  };

  // 3. Pass 1: the thread's items in order, the warp's segment (fixed tree), the warps' offsets (one barrier).
  T thread_sum = vector_at(0).item[0];
#pragma unroll
  for (int r = 0; r < K::kVectorsPerThread; ++r) {
    const Items<T> x = vector_at(r);
#pragma unroll
    for (int c = r == 0 ? 1 : 0; c < kItems; ++c) thread_sum = Op{}(thread_sum, x.item[c]);
  }
  const T tile_aggregate = scan_warp_sums<K>(reduce_warp<Op>(thread_sum), shared);
  stamp(kSummed);

  // 4. Warp 0 looks back while the other warps wait (one barrier).
  const T exclusive_prefix = tile_exclusive_prefix<K, WithCarry>(status, tile, tile_aggregate, carry, shared);
  stamp(kPrefixKnown);
  // From here on the tile, its segment and this warp's offset are read back from shared memory, not kept in
  // registers across the look-back: with the register rows held there, the 56 registers of six blocks per SM
  // leave none to spare (more would spill to local memory).
  const int tile_again = static_cast<int>(tile_shared);
  const Segment segment_again = segment_of<K>(tile_again, n);
  const bool full = is_full(tile_again);
  // Everything before this warp's segment: the identity's only role is on tile 0's first warp without a carry.
  const bool first_warp = warp == 0;
  const bool has_prefix = tile_again > 0 || WithCarry;  // exclusive_prefix holds tiles or the carry
  const bool has_base = has_prefix || !first_warp;
  const T warp_offset = shared.warp_offsets[warp];
  const T base = !has_prefix ? warp_offset : first_warp ? exclusive_prefix : Op{}(exclusive_prefix, warp_offset);

  // 5. Pass 2: scan each vector, scan the row across the warp, put the rows above and the base in front, store.
  T rows_before{};
  bool have_rows = has_base;
  if (has_base) rows_before = base;
#pragma unroll
  for (int r = 0; r < K::kVectorsPerThread; ++r) {
    const int v = r * kWarpSize + lane;
    Items<T> x = vector_at(r);
#pragma unroll
    for (int c = 1; c < kItems; ++c) x.item[c] = Op{}(x.item[c - 1], x.item[c]);
    const T row_inclusive = scan_warp<Op>(x.item[kItems - 1]);
    const T left = __shfl_up_sync(kFullMask, row_inclusive, 1);  // the vectors to this one's left in the row
    const T row_total = __shfl_sync(kFullMask, row_inclusive, kWarpSize - 1);
    // before = rows_before (op) left, where either may be absent (the identity would change -0.0f for sums).
    const bool has_left = lane > 0;
    if (has_left || have_rows) {
      const T before = !have_rows ? left : !has_left ? rows_before : Op{}(rows_before, left);
#pragma unroll
      for (int c = 0; c < kItems; ++c) x.item[c] = Op{}(before, x.item[c]);
    }
    rows_before = have_rows ? Op{}(rows_before, row_total) : row_total;
    have_rows = true;
    if (full) {
      store_vector<K>(reinterpret_cast<uint4*>(out + segment_again.begin) + v, vector_of(x));
    } else {
#pragma unroll
      for (int c = 0; c < kItems; ++c)
        if (v * kItems + c < segment_again.items) out[segment_again.begin + v * kItems + c] = x.item[c];
    }
  }
  if constexpr (K::kTimeline) {
    __syncthreads();  // (timeline only) every warp's stores issued
    stamp(kStored);
    if (threadIdx.x == 0)
      for (int s = 0; s < kStamps; ++s) stamps[static_cast<std::int64_t>(tile_shared) * kStamps + s] = tile_stamps[s];
  }
}

// True when both buffers are 16-byte aligned (uint4, cp.async and bulk copies need it).
inline bool vector_aligned(const void* in, const void* out) {
  return ((reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) % kVectorBytes) == 0;
}

// The devices on which tuning K's kernel (with or without a carry) has its shared-memory attributes.
template <class K, bool WithCarry>
inline tut::PerDevice<tut::SetupDone> shared_memory_allowed;

// One-time set-up of tuning K on the current device (Workload::setup; idempotent, cheap on repeat): the dynamic
// shared memory above 48 KiB and the largest shared carveout, as chapter 17's setup_inclusive_scan_with.
// WithCarry: the set-up of the kernel that takes a carry (inclusive_scan_with given a CarryIn).
template <class K, bool WithCarry = false>
inline void setup_scan() {
  shared_memory_allowed<K, WithCarry>.ensure([] {
    lz::allow_staged_shared_memory(scan_tiles_kernel<K, WithCarry>, K::kStagedBytes);
    return tut::SetupDone{};
  });
}

// Enqueues the inclusive scan of n values with tuning K: the status reset, then one kernel. Throws
// std::logic_error when setup_scan<K>() (setup_scan<K, true>() for a carry) has not run on the current device
// (n = 0 enqueues nothing and needs none). stamps: kStamps per tile for a Timeline tuning, else unused. carry_in:
// out[i] = op(carry, x[0] .. x[i]) where present (CarryIn; none by default).
template <class K>
inline void inclusive_scan_with(const typename K::Value* in, typename K::Value* out, std::size_t n,
                                void* workspace, cudaStream_t stream, std::uint64_t* stamps = nullptr,
                                CarryIn<typename K::Value> carry_in = {}) {
  using T = typename K::Value;
  if (n == 0) return;
  if (carry_in.present) shared_memory_allowed<K, true>.require("scan_copy_bound", "setup_scan<Tuning, true>");
  else shared_memory_allowed<K, false>.require("scan_copy_bound", "setup_scan<Tuning>");
  const std::size_t tiles = tile_count<K>(n);  // < 2^31 for any n that fits in a GPU's memory
  const TileStatus<T> status = workspace_status<T>(workspace);
  const std::size_t words = tiles * words_per_tile<TileStatus<T>>();
  init_tile_status_kernel<<<tut::lookback::init_status_blocks(words), tut::lookback::kInitThreads, 0, stream>>>(
      workspace_tile_counter(workspace), status.words, static_cast<std::int64_t>(words));
  TUT_CHECK_LAUNCH();
  const auto launch = [&](auto kernel) {
    kernel<<<static_cast<unsigned>(tiles), K::kBlockThreads, K::kStagedBytes, stream>>>(
        in, out, static_cast<std::int64_t>(n), vector_aligned(in, out), workspace_tile_counter(workspace), status,
        carry_in.value, stamps);
    TUT_CHECK_LAUNCH();
  };
  if (carry_in.present) launch(scan_tiles_kernel<K, true>);
  else launch(scan_tiles_kernel<K, false>);
}

}  // namespace scan_copy_bound
