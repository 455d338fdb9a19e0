// Chapter 29: SGEMM at every shape, part 3: stream-K (Osama et al., PPoPP 2023), beside split-K.
//
// Split-K still quantises: a plan runs tiles x splits blocks, and the busiest SM runs ceil(blocks / SMs) of
// them. Stream-K launches exactly one full wave of persistent blocks (SMs x resident blocks per SM, from the
// occupancy calculator in the set-up) and gives each an equal share of all the MAC-loop iterations (the
// slices of every tile's K; stream_k_schedule.hpp). Each block walks its range tile by tile with chapter 27's
// accumulate_tile (included, not copied): a whole tile goes to C, a partial one to the block's workspace slot.
//
// The fix-up is a second kernel, as split-K's reduction, not the owning block waiting on per-tile flags:
//   - it cannot deadlock whatever else runs on the GPU (a block spinning on a flag of a block that is not yet
//     resident can hold the slot that block needs; the occupancy calculator's one wave is all resident only on
//     an otherwise idle GPU, not under MPS or beside another stream's kernels; chapter 15's atomic tile counter
//     is the remedy a flag-waiting fix-up would need), and needs no flags to reset between runs;
//   - it is deterministic by construction: one writer per C element, partials summed in block order, which
//     is K order (the same bits every run);
//   - its cost is one more launch (~3 us, as split-K's reduction) and the partials' bytes, at most two tiles
//     per block, mostly read back from L2.
// alpha and beta are applied once: by the block that did a tile whole, or by the fix-up; beta == 0 never reads C.
//
// Variants: stream-K alone, and the hybrid (data-parallel for the full waves' tiles, stream-K for the last
// wave's), for both of chapter 28's tiles. The stage's dispatcher does not choose them (not measured yet).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "cli.hpp"
#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "sgemm_split_k.cuh"
#include "sgemm_tuned.cuh"
#include "gemm/split_k_reduce.cuh"
#include "stream_k_schedule.hpp"

namespace sgemm_stream_k {

// The persistent blocks: data-parallel tiles first (hybrid; tile b, b + grid, ...), then block b's stream-K
// iterations [begin(b), end(b)), one segment per tile touched. Partials go to partials + slot x BM x BN
// (row-major, the tile's own layout).
template <class Cfg, bool kVectorized>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocksPerSm)
    sgemm_stream_k_kernel(int m, int n, int k, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                          float beta, float* __restrict__ C, Schedule s, float* __restrict__ partials) {
  if constexpr (sgemm_split_k::compiled_out_here<Cfg>()) {
    __trap();  // sm_75 cannot hold this tile: refused by the set-up before any launch
  } else {
    const int tiles_m = (m + Cfg::kBlockM - 1) / Cfg::kBlockM, tiles_n = (n + Cfg::kBlockN - 1) / Cfg::kBlockN;
    const int b = static_cast<int>(blockIdx.x);
    int thread_row, thread_col;
    sgemm_tuned::thread_origin<Cfg>(thread_row, thread_col);

    for (int tile = b; tile < s.dp_tiles; tile += static_cast<int>(gridDim.x)) {  // hybrid: whole tiles
      int tile_m, tile_n;
      sgemm_tuned::block_tile<Cfg>(tile, tiles_m, tiles_n, tile_m, tile_n);
      float acc[Cfg::kThreadM][Cfg::kThreadN] = {};
      __syncthreads();  // the previous tile's last multiply may still read the buffers this prologue refills
      sgemm_tuned::accumulate_tile<Cfg, kVectorized>(m, n, k, 0, k, A, B, tile_m * Cfg::kBlockM, tile_n * Cfg::kBlockN,
                                                     thread_row, thread_col, acc);
      sgemm_tuned::store_tile<Cfg, kVectorized>(C, m, n, tile_m * Cfg::kBlockM + thread_row,
                                                tile_n * Cfg::kBlockN + thread_col, alpha, beta, acc);
    }

    const int range_end = s.end(b);
    for (int it = s.begin(b); it < range_end;) {
      const Segment seg = s.segment(b, it);
      int tile_m, tile_n;
      sgemm_tuned::block_tile<Cfg>(seg.tile, tiles_m, tiles_n, tile_m, tile_n);
      const int k_begin = seg.slice_begin * Cfg::kBlockK;  // a multiple of kBlockK, as accumulate_tile needs
      const int k_end = min(k, seg.slice_end * Cfg::kBlockK);
      float acc[Cfg::kThreadM][Cfg::kThreadN] = {};
      __syncthreads();  // as above: one barrier between two tiles' pipelines
      sgemm_tuned::accumulate_tile<Cfg, kVectorized>(m, n, k, k_begin, k_end, A, B, tile_m * Cfg::kBlockM,
                                                     tile_n * Cfg::kBlockN, thread_row, thread_col, acc);
      if (seg.whole)
        sgemm_tuned::store_tile<Cfg, kVectorized>(C, m, n, tile_m * Cfg::kBlockM + thread_row,
                                                  tile_n * Cfg::kBlockN + thread_col, alpha, beta, acc);
      else  // the raw partial (alpha 1, beta 0: the slot is never read before it is written); float4 stores,
            // the slot being 16-byte aligned and kBlockN a multiple of 4
        sgemm_tuned::store_tile<Cfg, true>(partials + static_cast<std::size_t>(seg.slot) * Cfg::kBlockM * Cfg::kBlockN,
                                           Cfg::kBlockM, Cfg::kBlockN, thread_row, thread_col, 1.0f, 0.0f, acc);
      it += seg.slice_end - seg.slice_begin;
    }
  }
}

constexpr int kFixupThreads = 256;

// Tests only: a fix-up that forgets the last block's partial of every split tile (the planted bug the tests
// must catch). The stage always runs kSumAll.
enum class Fixup { kSumAll, kPlantedDropLast };

// One block per stream-K tile: where more than one block summed it, C = alpha (partial of the first block
// + ... + partial of the last) + beta C, in that order (K order: the same bits every run). One float4 of the
// tile per thread and step; C in float4s where kVectorized (n % 4 == 0, C 16-byte aligned).
template <class Cfg, bool kVectorized, Fixup kFixup>
__global__ void __launch_bounds__(kFixupThreads)
    stream_k_fixup_kernel(int m, int n, float alpha, float beta, float* __restrict__ C, Schedule s,
                          const float* __restrict__ partials) {
  static_assert(Cfg::kBlockN % 4 == 0, "the tile's rows are read as float4");
  constexpr int kQuadsPerRow = Cfg::kBlockN / 4;
  constexpr std::size_t kSlotFloats = static_cast<std::size_t>(Cfg::kBlockM) * Cfg::kBlockN;
  const int sk_tile = static_cast<int>(blockIdx.x);
  const int first = s.first_block(sk_tile);
  const int last = kFixup == Fixup::kPlantedDropLast ? s.last_block(sk_tile) - 1 : s.last_block(sk_tile);
  if (s.first_block(sk_tile) == s.last_block(sk_tile)) return;  // done whole by one block, stored to C
  const int tiles_m = (m + Cfg::kBlockM - 1) / Cfg::kBlockM, tiles_n = (n + Cfg::kBlockN - 1) / Cfg::kBlockN;
  int tile_m, tile_n;
  sgemm_tuned::block_tile<Cfg>(s.dp_tiles + sk_tile, tiles_m, tiles_n, tile_m, tile_n);
  const float4* first_slot = reinterpret_cast<const float4*>(partials + s.slot_of(first, sk_tile) * kSlotFloats);
  for (int q = static_cast<int>(threadIdx.x); q < Cfg::kBlockM * kQuadsPerRow; q += kFixupThreads) {
    const int row = tile_m * Cfg::kBlockM + q / kQuadsPerRow, col = tile_n * Cfg::kBlockN + q % kQuadsPerRow * 4;
    if (row >= m || col >= n) continue;
    float4 sum = first_slot[q];
    for (int b = first + 1; b <= last; ++b) {  // block order = K order
      const float4 v = reinterpret_cast<const float4*>(partials + s.slot_of(b, sk_tile) * kSlotFloats)[q];
      sum.x += v.x;
      sum.y += v.y;
      sum.z += v.z;
      sum.w += v.w;
    }
    float* c = C + static_cast<std::size_t>(row) * n + col;
    const float sums[4] = {sum.x, sum.y, sum.z, sum.w};
    if constexpr (kVectorized) {  // n % 4 == 0: the quad is wholly inside C
      const float4 old = beta == 0.0f ? make_float4(0.0f, 0.0f, 0.0f, 0.0f) : *reinterpret_cast<const float4*>(c);
      *reinterpret_cast<float4*>(c) = make_float4(split_k_reduce::scale_and_add(sums[0], alpha, beta, old.x),
                                                  split_k_reduce::scale_and_add(sums[1], alpha, beta, old.y),
                                                  split_k_reduce::scale_and_add(sums[2], alpha, beta, old.z),
                                                  split_k_reduce::scale_and_add(sums[3], alpha, beta, old.w));
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (col + j < n) c[j] = split_k_reduce::scale_and_add(sums[j], alpha, beta, beta == 0.0f ? 0.0f : c[j]);
    }
  }
}

// Stream-K with tile configuration Cfg: the set-up (opt-in, occupancy, grid, workspace) and the launch.
// As chapter 29's SplitDispatcher, one object serves the device it was set up on.
template <class Cfg>
class StreamK {
 public:
  explicit StreamK(std::string name) : name_(std::move(name)) {}

  // One-time set-up: the shared-memory opt-in of both kernel forms, their resident blocks per SM (the grid is
  // SMs x the smaller of the two: one full wave that is all resident at once), and a workspace for the
  // schedule of (m, n, k) (grown, never shrunk; allocated here, never in a launch).
  void set_up(int m, int n, int k, bool hybrid) {
    if (!prepared_) {
      int device = 0, optin = 0;
      TUT_CUDA_CHECK(cudaGetDevice(&device));
      TUT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
      TUT_CUDA_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
      if (Cfg::kSharedBytes > optin)
        throw std::runtime_error("stream-K " + name_ + ": the tile needs " + std::to_string(Cfg::kSharedBytes) +
                                 " bytes of shared memory per block; this GPU allows " + std::to_string(optin));
      blocks_per_sm_ = std::min(opt_in<true>(), opt_in<false>());
      if (blocks_per_sm_ <= 0) throw std::runtime_error("stream-K " + name_ + ": no block of this tile fits an SM");
      prepared_ = true;
    }
    reserve(schedule(m, n, k, hybrid).slots());
  }

  // The schedule of (m, n, k) on the grid of the set-up (host arithmetic: no model, no device call).
  Schedule schedule(int m, int n, int k, bool hybrid) const {
    require_ready();
    return make_schedule(m, n, k, Cfg::kBlockM, Cfg::kBlockN, Cfg::kBlockK, sms_ * blocks_per_sm_, hybrid);
  }

  // Grows the workspace to `slots` partial tiles (set-up only; the tests call it to size one by hand).
  void reserve(int slots) {
    const std::size_t floats = static_cast<std::size_t>(slots) * Cfg::kBlockM * Cfg::kBlockN;
    if (floats > workspace_.size()) workspace_ = tut::DeviceBuffer<float>(floats);
  }
  std::uint64_t workspace_bytes() const { return workspace_.size() * sizeof(float); }
  static std::uint64_t slot_bytes() { return std::uint64_t{sizeof(float)} * Cfg::kBlockM * Cfg::kBlockN; }

  // C = alpha A B + beta C with schedule s: the persistent blocks, then the fix-up of the split tiles.
  void run(const Schedule& s, int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
           cudaStream_t stream, Fixup fixup = Fixup::kSumAll) {
    if (m <= 0 || n <= 0) return;
    require_ready();
    const std::uint64_t needed = static_cast<std::uint64_t>(s.slots()) * slot_bytes();
    if (needed > workspace_bytes())
      throw tut::UsageError("stream-K workspace of " + std::to_string(workspace_bytes()) + " bytes is too small for " +
                            std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k) + " (needs " +
                            std::to_string(needed) + "): the set-up did not size it");
    float* partials = workspace_.data();
    if (sgemm_tuned::can_vectorize(n, B, C))
      sgemm_stream_k_kernel<Cfg, true><<<s.grid, Cfg::kThreads, Cfg::kSharedBytes, stream>>>(m, n, k, alpha, A, B,
                                                                                           beta, C, s, partials);
    else
      sgemm_stream_k_kernel<Cfg, false><<<s.grid, Cfg::kThreads, Cfg::kSharedBytes, stream>>>(m, n, k, alpha, A, B,
                                                                                            beta, C, s, partials);
    TUT_CHECK_LAUNCH();
    if (s.sk_tiles() == 0) return;  // the hybrid with whole waves only: nothing to fix up
    const bool vec = n % 4 == 0 && sgemm_tuned::aligned16(C);
    const unsigned grid = static_cast<unsigned>(s.sk_tiles());
    if (fixup == Fixup::kPlantedDropLast)
      stream_k_fixup_kernel<Cfg, false, Fixup::kPlantedDropLast><<<grid, kFixupThreads, 0, stream>>>(m, n, alpha, beta,
                                                                                                   C, s, partials);
    else if (vec)
      stream_k_fixup_kernel<Cfg, true, Fixup::kSumAll><<<grid, kFixupThreads, 0, stream>>>(m, n, alpha, beta, C, s,
                                                                                         partials);
    else
      stream_k_fixup_kernel<Cfg, false, Fixup::kSumAll><<<grid, kFixupThreads, 0, stream>>>(m, n, alpha, beta, C, s,
                                                                                          partials);
    TUT_CHECK_LAUNCH();
  }

  // What a run at (m, n, k) does: the tile, the wave arithmetic, the schedule and the workspace.
  std::string explain(int m, int n, int k, bool hybrid) const {
    const Schedule s = schedule(m, n, k, hybrid);
    return name_ + " tiles, " + (hybrid ? "data-parallel + stream-K" : "stream-K") + ": " +
           describe(s, sms_, blocks_per_sm_) + " (workspace " + std::to_string(s.slots()) + " slots, " +
           std::to_string(static_cast<std::uint64_t>(s.slots()) * slot_bytes() >> 10) + " KiB; allocated " +
           std::to_string(workspace_bytes() >> 10) + " KiB)";
  }

  int blocks_per_sm() const { return blocks_per_sm_; }

 private:
  // Opts the kernel form in to its shared memory (first: the occupancy of a kernel over 48 KiB depends on it)
  // and returns how many of its blocks an SM holds.
  template <bool kVectorized>
  static int opt_in() {
    const auto kernel = sgemm_stream_k_kernel<Cfg, kVectorized>;
    TUT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSharedBytes));
    TUT_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
    int blocks = 0;
    TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, Cfg::kThreads, Cfg::kSharedBytes));
    return blocks;
  }

  void require_ready() const {
    if (!prepared_) throw std::logic_error("stream-K " + name_ + " was launched before its set-up (Workload::setup)");
  }

  std::string name_;
  bool prepared_ = false;
  int sms_ = 0, blocks_per_sm_ = 0;
  tut::DeviceBuffer<float> workspace_;
};

}  // namespace sgemm_stream_k
