// Chapter 54: chapter 53's multi-stage cp.async pipeline, with the multiply done by wgmma: a warpgroup (4 warps,
// 128 threads) multiplies a 64 x kBlockN x 16 step with one wgmma.mma_async that reads both operands straight
// from shared memory through matrix descriptors, instead of each warp loading ldmatrix fragments and issuing
// mma.sync. The shared tiles change with it: rows of 64 BF16 (128 bytes, one K slice) in the 128-byte swizzle
// the descriptors name, each tile on a 1024-byte swizzle atom. sm_90a only (common/hopper/arch.cuh): elsewhere
// the kernel body compiles out and setup_gemm_wgmma() refuses with one line.
//
// Layout (common/gemm_tc/tc_workload.cuh): A M x K, B N x K, both row-major BF16 (K-major); C M x N FP32.
// A block of 2 warpgroups computes a 128 x kBlockN tile of C; warpgroup w the rows 64 w .. 64 w + 63, all
// kBlockN columns (one m64nNk16 wgmma per 16-deep step). kStages stages of (128 + kBlockN) x 64 BF16 of dynamic
// shared memory (the opt-in above 48 KiB is setup_gemm_wgmma(), called once per device).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "cli.hpp"
#include "cp_async.cuh"
#include "cuda_check.cuh"
#include "gemm/gemm_workload.cuh"
#include "gemm_tc/mma_sync.cuh"
#include "gemm_tc/tc_workload.cuh"
#include "gemm_tc/tile_copy.cuh"
#include "hopper/arch.cuh"
#include "hopper/warpgroup.cuh"
#include "hopper/wgmma.cuh"
#include "setup_registry.cuh"

namespace gemm_wgmma {

using tut::gemm_tc::bf16;

// The 128-byte swizzle of common/hopper/wgmma.cuh as copy_tile's layout: chunk `chunk` (16 bytes) of tile row
// `row` (64 BF16) -> element offset. Chunk c of row r lands at chunk c ^ (r % 8), so the 8 rows of a swizzle
// atom spread one chunk column over all 8 16-byte bank groups (and each row is still one 128-byte line).
struct Swizzled128 {
  static constexpr int kRowElements = tut::hopper::kBf16PerSwizzleRow;  // 64
  __host__ __device__ __forceinline__ int operator()(int row, int chunk) const {
    return static_cast<int>(tut::hopper::swizzle_128b_offset(row, chunk * 16) / sizeof(bf16));
  }
};

template <int kBlockN_, int kStages_>
struct WgmmaTile {
  static constexpr int kBlockN = kBlockN_, kStages = kStages_;
  static constexpr int kWarpgroups = 2, kThreads = kWarpgroups * tut::hopper::kWarpgroupThreads;  // 256
  static constexpr int kWgmmaM = 64, kWgmmaK = 16;        // wgmma.m64nNk16
  static constexpr int kBlockM = kWarpgroups * kWgmmaM;   // 128: warpgroup w takes rows 64 w ...
  static constexpr int kBlockK = Swizzled128::kRowElements;  // 64: one swizzled 128-byte row per tile row
  static constexpr int kATileElements = kBlockM * kBlockK, kBTileElements = kBlockN * kBlockK;
  static constexpr int kAccumulators = kBlockN / 2;       // per thread: a 64 x kBlockN tile over 128 threads
  // + one swizzle atom: the dynamic shared memory is realigned to 1024 bytes inside the kernel.
  static constexpr int kSharedBytes =
      kStages * (kATileElements + kBTileElements) * static_cast<int>(sizeof(bf16)) + tut::hopper::kSwizzleAtomBytes;
  // Two blocks per SM where their shared memory fits (228 KiB per SM, 1 KiB of it reserved per block): then
  // __launch_bounds__ also caps the registers at 65536 / (2 x 256) = 128 per thread.
  static constexpr int kBlocksPerSm = 2 * (kSharedBytes + 1024) <= 228 * 1024 ? 2 : 1;
  static_assert(kBlockN == 64 || kBlockN == 128 || kBlockN == 256, "one wgmma covers the tile's N: 64, 128, 256");
  static_assert(kBlockK % kWgmmaK == 0, "whole wgmma steps per slice");
  static_assert((kWgmmaM * kBlockK * sizeof(bf16)) % tut::hopper::kSwizzleAtomBytes == 0 &&
                    (kBTileElements * sizeof(bf16)) % tut::hopper::kSwizzleAtomBytes == 0,
                "every warpgroup's A tile and every B tile starts on a 1024-byte swizzle atom");
  static_assert(kStages >= 2 && kStages <= 8, "cp.async.wait_group takes kStages - 2");
  static_assert(kSharedBytes <= 227 * 1024, "fits an sm_90 block's shared memory");
};

template <int kBlockN, int kStages>
__global__ void __launch_bounds__(WgmmaTile<kBlockN, kStages>::kThreads,
                                                   WgmmaTile<kBlockN, kStages>::kBlocksPerSm)
    gemm_wgmma_kernel(int m, int n, int k, float alpha, const bf16* __restrict__ A, const bf16* __restrict__ B,
                      float beta, float* __restrict__ C, bool vec_a, bool vec_b, bool pairs_c) {
#if TUT_SM90A_DEVICE_CODE
  using Tile = WgmmaTile<kBlockN, kStages>;
  using namespace tut::gemm_tc;
  using namespace tut::async_copy;
  using namespace tut::hopper;
  extern __shared__ __align__(16) unsigned char shared_raw[];  // realigned below: only 16 bytes are promised
  bf16* const a_stages = reinterpret_cast<bf16*>(align_to_swizzle_atom(shared_raw));
  bf16* const b_stages = a_stages + kStages * Tile::kATileElements;
  const int warpgroup = warpgroup_index();
  const int warp_in_group = (static_cast<int>(threadIdx.x) / 32) % 4;
  const int m0 = static_cast<int>(blockIdx.y) * Tile::kBlockM, n0 = static_cast<int>(blockIdx.x) * kBlockN;
  const int slices = (k + Tile::kBlockK - 1) / Tile::kBlockK;

  // Starts the copies of slice s into stage s % kStages (asynchronous where a chunk is whole and aligned;
  // edge chunks and zeros are plain stores, visible after the fence and barrier like the rest).
  auto load_slice = [&](int s) {
    const int stage = s % kStages;
    copy_tile<Tile::kBlockM, Tile::kBlockK, Tile::kThreads, true>(a_stages + stage * Tile::kATileElements,
                                                                  Swizzled128{}, A, m, k, k, m0, s * Tile::kBlockK,
                                                                  vec_a);
    copy_tile<kBlockN, Tile::kBlockK, Tile::kThreads, true>(b_stages + stage * Tile::kBTileElements, Swizzled128{},
                                                            B, n, k, k, n0, s * Tile::kBlockK, vec_b);
  };

  // Prologue: slices 0 ... kStages - 2 in flight, one commit group each (empty groups past the last slice
  // keep the count of groups, and so the wait below, the same for every iteration).
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < slices) load_slice(s);
    cp_async_commit();
  }

  float acc[Tile::kAccumulators];
#pragma unroll
  for (int i = 0; i < Tile::kAccumulators; ++i) acc[i] = 0.0f;
  for (int s = 0; s < slices; ++s) {
    // s + kStages - 1 groups committed; at most kStages - 2 still in flight: slice s has landed.
    cp_async_wait<kStages - 2>();
    // cp.async and st.shared write through the generic proxy; wgmma reads through the async proxy, which sees
    // this thread's writes only after this fence (and the other threads' after the barrier below).
    fence_proxy_async_shared();
    // Every thread's copies of slice s visible, and every warpgroup done with slice s - 1 (its wgmmas waited
    // for below), whose stage the refill below overwrites.
    __syncthreads();
    if (s + kStages - 1 < slices) load_slice(s + kStages - 1);
    cp_async_commit();

    // This warpgroup's 64 rows of the A tile and the whole B tile of stage s % kStages.
    const std::uint64_t desc_a = make_smem_descriptor_sw128(a_stages + (s % kStages) * Tile::kATileElements +
                                                            warpgroup * Tile::kWgmmaM * Tile::kBlockK);
    const std::uint64_t desc_b = make_smem_descriptor_sw128(b_stages + (s % kStages) * Tile::kBTileElements);
    accumulator_fence(acc);
    wgmma_fence();  // the accumulators were last written by ordinary instructions (zeroing) or the last wait
#pragma unroll
    for (int kk = 0; kk < Tile::kBlockK; kk += Tile::kWgmmaK)
      wgmma_m64k16_bf16<kBlockN>(acc, smem_descriptor_advance_k(desc_a, kk), smem_descriptor_advance_k(desc_b, kk),
                                 true);
    wgmma_commit_group();
    // The stage's reads and the accumulators are done before the next barrier frees the stage for a refill
    // (a deeper kernel keeps one group in flight and frees the stage one slice later).
    wgmma_wait_group<0>();
    accumulator_fence(acc);
  }
  cp_async_wait_all();  // only empty groups are left; no copy may outlive the block

  // Epilogue: an 8-column block j of the wgmma accumulators (registers 4 j .. 4 j + 3) is laid out as an
  // mma.sync m16n8 C fragment over the warp's 16 rows, so chapter 52's guarded fragment store writes it.
  const int row0 = m0 + warpgroup * Tile::kWgmmaM + warp_in_group * 16;
#pragma unroll
  for (int j = 0; j < kBlockN / 8; ++j) {
    const float fragment[4] = {acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]};
    store_c_fragment(fragment, C, m, n, row0, n0 + 8 * j, alpha, beta, pairs_c);
  }
#else
  (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)vec_a, (void)vec_b, (void)pairs_c;
#endif
}

template <int kBlockN, int kStages>
inline tut::PerDevice<tut::SetupDone> setup_done;

// Refuses (tut::UsageError, one line) where this program's sm_90a code cannot run, then opts in to kSharedBytes
// of dynamic shared memory (above the default 48 KiB); once per device.
template <int kBlockN, int kStages>
inline void setup_gemm_wgmma(const std::string& variant) {
  setup_done<kBlockN, kStages>.ensure([&] {
    if (const char* why = tut::hopper::sm90a_unavailable_reason()) throw tut::UsageError(variant + ": " + why);
    TUT_CUDA_CHECK(cudaFuncSetAttribute(gemm_wgmma_kernel<kBlockN, kStages>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        WgmmaTile<kBlockN, kStages>::kSharedBytes));
    return tut::SetupDone{};
  });
}

template <int kBlockN, int kStages>
inline void gemm(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                 cudaStream_t stream) {
  using Tile = WgmmaTile<kBlockN, kStages>;
  if (m == 0 || n == 0) return;
  setup_done<kBlockN, kStages>.require("bf16-gemm-wgmma", "setup_gemm_wgmma");
  const bool pairs_c = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0;
  gemm_wgmma_kernel<kBlockN, kStages>
      <<<tut::gemm::tile_grid(m, n, Tile::kBlockM, kBlockN), Tile::kThreads, Tile::kSharedBytes, stream>>>(
          m, n, k, alpha, A, B, beta, C, tut::gemm_tc::vector_ok(A, k), tut::gemm_tc::vector_ok(B, k), pairs_c);
  TUT_CHECK_LAUNCH();
}

// One tile shape as a variant of a chapter program (this chapter's, and chapter 55's previous stage): the launch
// and its set-up (the sm_90a check and the shared-memory opt-in).
template <int kBlockN, int kStages>
tut::gemm_tc::TcVariant as_variant(const std::string& name, const std::string& description, bool on_demand) {
  return {name, description, gemm<kBlockN, kStages>, 90, on_demand,
          [name](int, int, int) { setup_gemm_wgmma<kBlockN, kStages>(name); }};
}

}  // namespace gemm_wgmma
