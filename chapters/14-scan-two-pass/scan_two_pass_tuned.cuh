// Chapter 14, tuned: the same reduce-then-scan in three launches, with the faithful stage's slow parts
// replaced, to show what bounds a two-pass scan. Not the article's code; the stage (scan_two_pass.cuh) is.
//   - one int32 per thread and 4-byte loads become ItemsPerThread int32 per thread in int4 vectors,
//     vector-striped per warp (chapter 16's register tile: each warp instruction moves 512 contiguous bytes);
//   - 1024 parts of one block each become one part per *warp* the GPU holds at once (SMs x blocks per SM x
//     warps per block: 132 x 4 x 8 = 4224 on an H200): one wave in each pass, and no barrier at all, since a
//     warp scans its part alone (chapter 14's scan pass has three barriers per 1024-element tile);
//   - the reduce pass walks each part backwards, so that what is left in L2 at its end is the start of every
//     part, which is what the scan pass reads first.
// The traffic stays a two-pass scan's: the input is read twice and the output written once, 12 bytes per
// element against a copy's 8, so its bound is 1.5 times the time of a copy of the same bytes.
//
//   reduce_parts_kernel<T>   <<<parts / warps per block, BlockThreads>>>  warp p sums part p -> part_sums[p]
//   scan_part_sums_kernel    <<<1, 1024>>>   exclusive scan of the <= kMaxParts part sums, in place
//   scan_parts_kernel<T>     <<<parts / warps per block, BlockThreads>>>  warp p scans part p, segment by
//                                            segment, from part_sums[p]
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "warp_scan.cuh"
#include "setup_registry.cuh"

namespace scan_two_pass_tuned {

constexpr int kWarpSize = 32;
constexpr int kVectorItems = 4;  // int32 per int4
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kSumsThreads = 1024;  // the one block that scans the part sums
constexpr int kSumsPerThread = 8;
constexpr int kMaxParts = kSumsThreads * kSumsPerThread;

// Blocks of BlockThreads; each warp moves a segment of 32 x ItemsPerThread elements per step of its part.
// ReverseReduce: the reduce pass walks each part from its end (see above).
template <int BlockThreads, int ItemsPerThread, bool ReverseReduce = true>
struct Tuning {
  static constexpr int kBlockThreads = BlockThreads;
  static constexpr int kVectorsPerThread = ItemsPerThread / kVectorItems;
  static constexpr int kWarps = BlockThreads / kWarpSize;
  static constexpr int kWarpItems = kWarpSize * ItemsPerThread;  // one warp's segment: a step of its part
  static constexpr bool kReverseReduce = ReverseReduce;
  static_assert(BlockThreads % kWarpSize == 0 && BlockThreads >= kWarpSize && BlockThreads <= 1024,
                "a block is 1 to 32 whole warps");
  static_assert(ItemsPerThread % kVectorItems == 0 && ItemsPerThread > 0, "whole int4 vectors per thread");
};

// 256 threads x 32 int32: 1024-element (4 KiB) segments per warp, 8 int4 loads in flight per thread.
using DefaultTuning = Tuning<256, 32>;

// ---- Warp building blocks, in common/warp_scan.cuh: chapter 12's predicated shuffle step and warp
// scan, and the sum over a warp by xor-butterfly shuffles ------------------------------------------------
using tut::warp::reduce_warp;
using tut::warp::scan_warp;
using tut::warp::shfl_up_add;

// ---- The register tile (chapter 16's layout) ------------------------------------------------------------
// Each warp owns a contiguous segment of 32 * ItemsPerThread elements; row r of it is 32 int4 vectors and lane
// l holds vector r * 32 + l, so every warp load or store instruction moves 512 contiguous bytes.
template <class T>
using TileItems = std::uint32_t[T::kVectorsPerThread][kVectorItems];

// Loads the warp's segment: int4 when `vector` (a full tile, 16-byte aligned buffers), else element by element
// with zeros past n.
template <class T>
__device__ __forceinline__ void load_segment(const std::uint32_t* in, std::int64_t segment_begin, std::int64_t n,
                                             bool vector, TileItems<T>& items) {
  const int lane = threadIdx.x % kWarpSize;
  if (vector) {
    const uint4* vectors = reinterpret_cast<const uint4*>(in + segment_begin) + lane;
#pragma unroll
    for (int r = 0; r < T::kVectorsPerThread; ++r) {
      const uint4 v = vectors[r * kWarpSize];
      items[r][0] = v.x;
      items[r][1] = v.y;
      items[r][2] = v.z;
      items[r][3] = v.w;
    }
  } else {
#pragma unroll
    for (int r = 0; r < T::kVectorsPerThread; ++r)
#pragma unroll
      for (int c = 0; c < kVectorItems; ++c) {
        const std::int64_t i = segment_begin + static_cast<std::int64_t>(r * kWarpSize + lane) * kVectorItems + c;
        items[r][c] = i < n ? in[i] : 0u;
      }
  }
}

// Stores the warp's segment, the way load_segment loaded it.
template <class T>
__device__ __forceinline__ void store_segment(std::uint32_t* out, std::int64_t segment_begin, std::int64_t n,
                                              bool vector, const TileItems<T>& items) {
  const int lane = threadIdx.x % kWarpSize;
  if (vector) {
    uint4* vectors = reinterpret_cast<uint4*>(out + segment_begin) + lane;
#pragma unroll
    for (int r = 0; r < T::kVectorsPerThread; ++r)
      vectors[r * kWarpSize] = make_uint4(items[r][0], items[r][1], items[r][2], items[r][3]);
  } else {
#pragma unroll
    for (int r = 0; r < T::kVectorsPerThread; ++r)
#pragma unroll
      for (int c = 0; c < kVectorItems; ++c) {
        const std::int64_t i = segment_begin + static_cast<std::int64_t>(r * kWarpSize + lane) * kVectorItems + c;
        if (i < n) out[i] = items[r][c];
      }
  }
}

// Turns the warp's segment into its inclusive scan and returns the segment's sum to every lane: each thread
// scans its vectors serially, one warp scan per row (interleaved) gives each vector the vectors to its left,
// the rows' totals carry from row to row.
template <class T>
__device__ __forceinline__ std::uint32_t scan_segment(TileItems<T>& items) {
  std::uint32_t row_scan[T::kVectorsPerThread];
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r) {
#pragma unroll
    for (int c = 1; c < kVectorItems; ++c) items[r][c] += items[r][c - 1];
    row_scan[r] = items[r][kVectorItems - 1];
  }
#pragma unroll
  for (int d = 1; d < kWarpSize; d *= 2)
#pragma unroll
    for (int r = 0; r < T::kVectorsPerThread; ++r) row_scan[r] = shfl_up_add(row_scan[r], d);
  std::uint32_t rows_before = 0;
#pragma unroll
  for (int r = 0; r < T::kVectorsPerThread; ++r) {
    const std::uint32_t before = rows_before + row_scan[r] - items[r][kVectorItems - 1];
#pragma unroll
    for (int c = 0; c < kVectorItems; ++c) items[r][c] += before;
    rows_before += __shfl_sync(kFullMask, row_scan[r], kWarpSize - 1);
  }
  return rows_before;
}

// ---- The parts --------------------------------------------------------------------------------------------
// `parts` consecutive runs of `part_segments` whole warp segments (the last part may be shorter; none is
// empty), one per warp.
struct PartShape {
  std::int64_t part_segments = 0;
  unsigned parts = 0;
};

template <class T>
inline PartShape part_shape(std::size_t n, unsigned max_parts) {
  const std::int64_t segments = static_cast<std::int64_t>((n + T::kWarpItems - 1) / T::kWarpItems);
  PartShape s;
  s.part_segments = (segments + max_parts - 1) / max_parts;
  s.parts = static_cast<unsigned>((segments + s.part_segments - 1) / s.part_segments);
  return s;
}

// The part sums (then their exclusive scan): at most kMaxParts uint32, whatever n is.
inline std::size_t workspace_bytes(std::size_t) { return kMaxParts * sizeof(std::uint32_t); }

// ---- Kernels ----------------------------------------------------------------------------------------------
// This warp's part (the global warp index) and its segments [first, end); false for a warp past the last part.
template <class T>
__device__ __forceinline__ bool part_of_warp(std::int64_t n, std::int64_t part_segments, int parts,
                                             std::int64_t& part, std::int64_t& first, std::int64_t& end) {
  part = static_cast<std::int64_t>(blockIdx.x) * T::kWarps + threadIdx.x / kWarpSize;
  const std::int64_t segments = (n + T::kWarpItems - 1) / T::kWarpItems;
  first = part * part_segments;  // 64-bit: n may exceed 2^31
  end = first + part_segments < segments ? first + part_segments : segments;
  return part < parts;
}

// Warp p adds up part p: each lane accumulates its vectors of every segment; no barrier, no shared memory.
template <class T>
__global__ __launch_bounds__(T::kBlockThreads) void reduce_parts_kernel(const std::uint32_t* in, std::uint32_t* part_sums,
                                                                        std::int64_t n, std::int64_t part_segments,
                                                                        int parts, bool vector_io) {
  std::int64_t part, first, end;
  if (!part_of_warp<T>(n, part_segments, parts, part, first, end)) return;  // the whole warp
  const int lane = threadIdx.x % kWarpSize;
  std::uint32_t sum = 0;
  for (std::int64_t k = 0; k < end - first; ++k) {
    const std::int64_t segment = T::kReverseReduce ? end - 1 - k : first + k;
    const std::int64_t begin = segment * T::kWarpItems;
    if (vector_io && begin + T::kWarpItems <= n) {  // the segment's int4 loads, all issued before the adds
      const uint4* vectors = reinterpret_cast<const uint4*>(in + begin) + lane;
#pragma unroll
      for (int r = 0; r < T::kVectorsPerThread; ++r) {
        const uint4 v = vectors[r * kWarpSize];
        sum += v.x + v.y + v.z + v.w;
      }
    } else {  // the last segment or misaligned buffers (the order of the sum does not matter)
#pragma unroll 1
      for (std::int64_t i = begin + lane; i < begin + T::kWarpItems && i < n; i += kWarpSize) sum += in[i];
    }
  }
  sum = reduce_warp(sum);
  if (threadIdx.x % kWarpSize == 0) part_sums[part] = sum;
}

// One block turns the part sums into their exclusive scan, in place: thread t owns the kSumsPerThread sums
// from kSumsPerThread * t on.
__global__ __launch_bounds__(kSumsThreads) void scan_part_sums_kernel(std::uint32_t* part_sums, int parts) {
  __shared__ std::uint32_t warp_totals[kSumsThreads / kWarpSize];
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  std::uint32_t mine[kSumsPerThread];
  std::uint32_t thread_total = 0;
#pragma unroll
  for (int c = 0; c < kSumsPerThread; ++c) {
    const int p = threadIdx.x * kSumsPerThread + c;
    mine[c] = p < parts ? part_sums[p] : 0u;
    thread_total += mine[c];
  }
  const std::uint32_t inclusive = scan_warp(thread_total);
  if (lane == kWarpSize - 1) warp_totals[warp] = inclusive;
  __syncthreads();
  if (warp == 0) warp_totals[lane] = scan_warp(warp_totals[lane]);
  __syncthreads();
  std::uint32_t running = inclusive - thread_total + (warp > 0 ? warp_totals[warp - 1] : 0u);
#pragma unroll
  for (int c = 0; c < kSumsPerThread; ++c) {
    const int p = threadIdx.x * kSumsPerThread + c;
    if (p < parts) part_sums[p] = running;
    running += mine[c];
  }
}

// Warp p scans part p segment by segment, in registers: each segment's scan plus `base` (the part's prefix,
// then + each segment's sum, which scan_segment returns to every lane). No barrier: warps never wait for
// each other, so while some scan, the others' loads keep the memory busy.
template <class T>
__global__ __launch_bounds__(T::kBlockThreads) void scan_parts_kernel(const std::uint32_t* in,
                                                                      const std::uint32_t* part_prefix,
                                                                      std::uint32_t* out, std::int64_t n,
                                                                      std::int64_t part_segments, int parts,
                                                                      bool vector_io) {
  std::int64_t part, first, end;
  if (!part_of_warp<T>(n, part_segments, parts, part, first, end)) return;  // the whole warp
  std::uint32_t base = part_prefix[part];
  for (std::int64_t segment = first; segment < end; ++segment) {
    const bool vector = vector_io && (segment + 1) * T::kWarpItems <= n;
    TileItems<T> items;
    load_segment<T>(in, segment * T::kWarpItems, n, vector, items);
    const std::uint32_t segment_sum = scan_segment<T>(items);
#pragma unroll
    for (int r = 0; r < T::kVectorsPerThread; ++r)
#pragma unroll
      for (int c = 0; c < kVectorItems; ++c) items[r][c] += base;
    store_segment<T>(out, segment * T::kWarpItems, n, vector, items);
    base += segment_sum;
  }
}

// ---- Host ---------------------------------------------------------------------------------------------------
// One part per warp the GPU holds at once in both passes (their occupancy), worked out once per device and
// tuning by setup_inclusive_scan_with<T>() (the queries cost microseconds, which a small scan would notice).
template <class T>
inline unsigned resident_parts_on_current_device() {
  int sms = 0, scan_blocks = 0, reduce_blocks = 0;
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, tut::current_device()));
  TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&scan_blocks, scan_parts_kernel<T>,
                                                               T::kBlockThreads, 0));
  TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&reduce_blocks, reduce_parts_kernel<T>,
                                                               T::kBlockThreads, 0));
  const int blocks_per_sm = scan_blocks < reduce_blocks ? scan_blocks : reduce_blocks;  // one wave in each
  const long long resident = static_cast<long long>(sms) * (blocks_per_sm > 0 ? blocks_per_sm : 1) * T::kWarps;
  return static_cast<unsigned>(resident < kMaxParts ? resident : kMaxParts);
}

struct TwoPassPlan {
  unsigned resident_parts = 1;
};
template <class T>
inline tut::PerDevice<TwoPassPlan> two_pass_plans;

// One-time set-up of tuning T on the current device (idempotent, cheap on repeat): call it on every device
// before inclusive_scan_with<T> runs there. (Workload::setup calls it through the variant's setup.)
template <class T>
inline void setup_inclusive_scan_with() {
  two_pass_plans<T>.ensure([] { return TwoPassPlan{resident_parts_on_current_device<T>()}; });
}

// Enqueues the inclusive scan of n int32 on `stream`: three launches, no allocation, no synchronisation.
// Throws std::logic_error when setup_inclusive_scan_with<T>() has not run on the current device (n = 0
// enqueues nothing and needs none).
template <class T>
inline void inclusive_scan_with(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                                cudaStream_t stream) {
  if (n == 0) return;
  const TwoPassPlan& plan = two_pass_plans<T>.require("scan_two_pass_tuned", "setup_inclusive_scan_with<Tuning>");
  // int32_t and uint32_t may alias each other, so the kernels work on the caller's arrays as uint32.
  const auto* in = reinterpret_cast<const std::uint32_t*>(d_in);
  auto* out = reinterpret_cast<std::uint32_t*>(d_out);
  auto* part_sums = static_cast<std::uint32_t*>(d_workspace);
  // int4 accesses need both buffers 16-byte aligned; otherwise every tile goes element by element.
  const bool vector_io = ((reinterpret_cast<std::uintptr_t>(d_in) | reinterpret_cast<std::uintptr_t>(d_out)) %
                          sizeof(uint4)) == 0;
  const PartShape shape = part_shape<T>(n, plan.resident_parts);
  const auto n64 = static_cast<std::int64_t>(n);
  const auto parts = static_cast<int>(shape.parts);
  const unsigned blocks = (shape.parts + T::kWarps - 1) / T::kWarps;
  reduce_parts_kernel<T><<<blocks, T::kBlockThreads, 0, stream>>>(in, part_sums, n64, shape.part_segments, parts,
                                                                  vector_io);
  TUT_CHECK_LAUNCH();
  scan_part_sums_kernel<<<1, kSumsThreads, 0, stream>>>(part_sums, parts);
  TUT_CHECK_LAUNCH();
  scan_parts_kernel<T><<<blocks, T::kBlockThreads, 0, stream>>>(in, part_sums, out, n64, shape.part_segments,
                                                                parts, vector_io);
  TUT_CHECK_LAUNCH();
}

// The default tuning's set-up on the current device.
inline void setup_inclusive_scan() { setup_inclusive_scan_with<DefaultTuning>(); }

inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  inclusive_scan_with<DefaultTuning>(d_in, d_out, n, d_workspace, stream);
}

}  // namespace scan_two_pass_tuned
