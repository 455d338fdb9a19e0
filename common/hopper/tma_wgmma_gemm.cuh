// A complete BF16 GEMM from the Hopper blocks: TMA loads into a ring of kStages shared-memory stages guarded by
// full/empty mbarriers, one warpgroup multiplying each stage with wgmma, a guarded epilogue from the accumulator
// fragment. C (M x N, row-major, FP32, leading dimension ldc) = A (M x K, row-major) * B (N x K, row-major)^T.
// One CTA of 128 threads per 64 x kBlockN tile of C; no clusters, no warp specialisation (chapters 56-57).
//
// Thread 0 is the producer as well as a consumer: it fills the first kStages stages, and after the warpgroup has
// finished with a stage (everyone arrived on its empty barrier) refills it with the k-block kStages further on.
// Tiles past an edge of A or B (M, N or K no multiple of the tile) arrive zero-filled by TMA; the epilogue stores
// only the rows and columns inside C. Device code needs sm_90a (arch.cuh); launch_tma_wgmma_gemm() is the host
// side, which the caller runs only where sm90a_unavailable_reason() is nullptr.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "../bulk_copy.cuh"
#include "../cuda_check.cuh"
#include "arch.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

namespace tut::hopper {

template <int kBlockN, int kStages>
struct TmaWgmmaGemmShape {
  static_assert(kBlockN == 64 || kBlockN == 128 || kBlockN == 256, "one wgmma covers the tile's N: 64, 128, 256");
  static_assert(kStages >= 2 && kStages <= 8, "a ring of 2..8 stages");
  static constexpr int kBlockM = 64;                  // one warpgroup's wgmma is 64 rows tall
  static constexpr int kBlockK = kBf16PerSwizzleRow;  // 64 BF16: one 128-byte swizzled row per tile row
  static constexpr int kThreads = 128;                // one warpgroup
  static constexpr int kWgmmaK = 16;                  // K of one wgmma for BF16
  static constexpr int kTileABytes = kBlockM * kBlockK * 2;
  static constexpr int kTileBBytes = kBlockN * kBlockK * 2;
  static constexpr int kStageBytes = kTileABytes + kTileBBytes;
  // + 1024: the dynamic shared memory is realigned to the 1024-byte swizzle atom inside the kernel.
  static constexpr int kSharedBytes = kStages * kStageBytes + kSwizzleAtomBytes;
  static_assert(kTileABytes % kSwizzleAtomBytes == 0 && kTileBBytes % kSwizzleAtomBytes == 0,
                "every tile starts on a swizzle atom");
  static_assert(kSharedBytes <= 227 * 1024, "more shared memory than an sm_90 block can have");
};

template <int kBlockN, int kStages>
__global__ void __launch_bounds__(128) tma_wgmma_gemm_kernel(const __grid_constant__ CUtensorMap map_a,
                                                             const __grid_constant__ CUtensorMap map_b, float* c,
                                                             int m, int n, int k, int ldc) {
#if TUT_SM90A_DEVICE_CODE
  using Shape = TmaWgmmaGemmShape<kBlockN, kStages>;
  using namespace tut::bulk_copy;
  extern __shared__ unsigned char shared_raw[];
  __shared__ std::uint64_t full[kStages];   // stage holds its k-block: 1 arrival (with the bytes) + the TMA bytes
  __shared__ std::uint64_t empty[kStages];  // the warpgroup's wgmmas no longer read the stage: 128 arrivals

  // The stages: all A tiles, then all B tiles, each on a 1024-byte swizzle atom.
  unsigned char* shared = align_to_swizzle_atom(shared_raw);
  auto tile_a = [&](int s) { return shared + s * Shape::kTileABytes; };
  auto tile_b = [&](int s) { return shared + kStages * Shape::kTileABytes + s * Shape::kTileBBytes; };

  const int t = threadIdx.x;
  const int row0 = blockIdx.y * Shape::kBlockM;
  const int col0 = blockIdx.x * kBlockN;
  const int k_blocks = (k + Shape::kBlockK - 1) / Shape::kBlockK;

  auto load_stage = [&](int s, int kb) {  // thread 0 only
    mbarrier_arrive_expect_tx(&full[s], Shape::kStageBytes);  // both boxes deliver all their bytes, zeros included
    tma_load_2d(tile_a(s), &map_a, kb * Shape::kBlockK, row0, &full[s]);
    tma_load_2d(tile_b(s), &map_b, kb * Shape::kBlockK, col0, &full[s]);
  };

  if (t == 0) {
    prefetch_tensor_map(&map_a);
    prefetch_tensor_map(&map_b);
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], Shape::kThreads);
    }
    fence_mbarrier_init();  // the copy engine must see initialised barriers
  }
  __syncthreads();
  if (t == 0)
    for (int s = 0; s < kStages && s < k_blocks; ++s) load_stage(s, s);

  float acc[kBlockN / 2];
#pragma unroll
  for (int i = 0; i < kBlockN / 2; ++i) acc[i] = 0.0f;

  for (int kb = 0; kb < k_blocks; ++kb) {
    const int s = kb % kStages;
    const unsigned parity = (kb / kStages) & 1;  // the stage's use count, mod 2: which phase to wait for
    mbarrier_wait_parity(&full[s], parity);

    accumulator_fence(acc);
    wgmma_fence();  // the accumulators were last touched by ordinary instructions (zeroing) or an earlier wgmma
    const std::uint64_t desc_a = make_smem_descriptor_sw128(tile_a(s));
    const std::uint64_t desc_b = make_smem_descriptor_sw128(tile_b(s));
#pragma unroll
    for (int kk = 0; kk < Shape::kBlockK; kk += Shape::kWgmmaK)
      wgmma_m64k16_bf16<kBlockN>(acc, smem_descriptor_advance_k(desc_a, kk), smem_descriptor_advance_k(desc_b, kk),
                                 true);
    wgmma_commit_group();
    wgmma_wait_group<0>();  // this stage's reads are done (a deeper kernel keeps one group in flight)
    accumulator_fence(acc);

    mbarrier_arrive(&empty[s]);
    if (t == 0 && kb + kStages < k_blocks) {
      mbarrier_wait_parity(&empty[s], parity);  // all 128 threads are past their wgmmas on this stage
      load_stage(s, kb + kStages);
    }
    __syncwarp();  // warp 0 reconverges before its next .sync.aligned wgmma
  }

  // Epilogue: each register to its (row, col); pairs of adjacent columns as one float2 where both fit and align.
#pragma unroll
  for (int i = 0; i < kBlockN / 2; i += 2) {
    const AccumulatorCoord at = accumulator_coord(t, i);
    const int row = row0 + at.row;
    const int col = col0 + at.col;
    if (row >= m) continue;
    float* out = c + static_cast<std::size_t>(row) * ldc + col;
    if (col + 1 < n && (reinterpret_cast<std::uintptr_t>(out) % 8) == 0) {
      *reinterpret_cast<float2*>(out) = make_float2(acc[i], acc[i + 1]);
    } else {
      if (col < n) out[0] = acc[i];
      if (col + 1 < n) out[1] = acc[i + 1];
    }
  }
#else
  (void)c, (void)m, (void)n, (void)k, (void)ldc;
#endif
}

// Host: C = A * B^T for an M x K A with leading dimension lda and an N x K B with leading dimension ldb (both
// multiples of 8, make_tensor_map_2d_bf16), C with leading dimension ldc >= N. Throws std::invalid_argument for
// shapes TMA cannot describe. M or N = 0 launches nothing; K = 0 writes zeros.
template <int kBlockN, int kStages>
void launch_tma_wgmma_gemm(const __nv_bfloat16* a, int lda, const __nv_bfloat16* b, int ldb, float* c, int ldc, int m,
                           int n, int k, cudaStream_t stream = 0) {
  using Shape = TmaWgmmaGemmShape<kBlockN, kStages>;
  if (m < 0 || n < 0 || k < 0) throw std::invalid_argument("launch_tma_wgmma_gemm: a negative dimension");
  if (ldc < n) throw std::invalid_argument("launch_tma_wgmma_gemm: ldc < n");
  if (m == 0 || n == 0) return;
  if (k == 0) {  // an empty sum: C = 0 (a tensor map cannot describe a K = 0 matrix)
    TUT_CUDA_CHECK(cudaMemset2DAsync(c, static_cast<std::size_t>(ldc) * sizeof(float), 0, n * sizeof(float), m,
                                     stream));
    return;
  }
  const TensorMap2d map_a = make_tensor_map_2d_bf16(a, m, k, lda, Shape::kBlockM, Shape::kBlockK);
  const TensorMap2d map_b = make_tensor_map_2d_bf16(b, n, k, ldb, kBlockN, Shape::kBlockK);
  auto kernel = tma_wgmma_gemm_kernel<kBlockN, kStages>;
  TUT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Shape::kSharedBytes));
  const dim3 grid((n + kBlockN - 1) / kBlockN, (m + Shape::kBlockM - 1) / Shape::kBlockM);
  if (grid.y > 65535) throw std::invalid_argument("launch_tma_wgmma_gemm: M needs more than 65535 row tiles");
  kernel<<<grid, Shape::kThreads, Shape::kSharedBytes, stream>>>(map_a.map, map_b.map, c, m, n, k, ldc);
  TUT_CHECK_LAUNCH();
}

}  // namespace tut::hopper
