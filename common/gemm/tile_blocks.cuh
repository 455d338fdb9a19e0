// The SGEMM tile building blocks that later stages use unchanged, once (namespace tut::gemm):
//   chapter 24's 128-bit accesses (used by 24 and 25):
//     load_quad<kVectorized>(row, col, limit)       four floats of a row, zeros past `limit` (float4 or scalars)
//     load_shared_quad(frag, smem)                   four floats of shared memory into a fragment (one LDS.128)
//     load_tile_a_transposed<kVectorized, kBlockM, kThreads>(A, m, k, row0, k0, As)   As[c][r] = A[row0+r][k0+c]
//     load_tile_b<kVectorized, kThreads>(B, n, k, k0, col0, Bs)                       Bs[r][c] = B[k0+r][col0+c]
//   a thread's tile of 4 x 4 quads, kLanesM * 4 rows and kLanesN * 4 columns apart: chapter 24's contiguous
//   thread tile (kLanesM = kLanesN = 1, 24) and chapter 25's warp tile (its lanes as a kLanesM x kLanesN
//   grid, 25-27):
//     multiply_quads<kLanesM, kLanesN>(As, Bs, thread_row, thread_col, acc)
//     store_quads<kVectorized, kLanesM, kLanesN>(C, m, n, row0, col0, alpha, beta, acc)
// The tile sizes come from the array types (As[kBlockK][kBlockM + pad], Bs[kBlockK][kBlockN],
// acc[kThreadM][kThreadN]); all force-inlined, so a stage compiles to what its own copy compiled to.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace tut::gemm {

constexpr int kQuad = 4;  // floats per float4: the unit of every 128-bit access

// Four consecutive floats of one row from global memory, zeros outside the row's first `limit` columns.
// kVectorized: one 128-bit load (the caller guarantees alignment and limit % 4 == 0).
template <bool kVectorized>
__device__ __forceinline__ float4 load_quad(const float* __restrict__ row, int col, int limit) {
  if constexpr (kVectorized) {
    return col < limit ? *reinterpret_cast<const float4*>(row + col) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  } else {
    return make_float4(col + 0 < limit ? row[col + 0] : 0.0f, col + 1 < limit ? row[col + 1] : 0.0f,
                       col + 2 < limit ? row[col + 2] : 0.0f, col + 3 < limit ? row[col + 3] : 0.0f);
  }
}

// Four floats from a 16-byte aligned shared-memory address into four registers of a fragment (one LDS.128).
__device__ __forceinline__ void load_shared_quad(float* frag, const float* smem) {
  const float4 v = *reinterpret_cast<const float4*>(smem);
  frag[0] = v.x;
  frag[1] = v.y;
  frag[2] = v.z;
  frag[3] = v.w;
}

// Stage A[row0 .. +kBlockM-1][k0 .. +kBlockK-1] TRANSPOSED: As[c][r] = A[row0 + r][k0 + c]. Element quad e
// (thread t's i-th is t + i * kThreads) is row e / (kBlockK / 4), columns (e % (kBlockK / 4)) * 4 .. +3; it
// is read as one float4 and scattered down one column of As (a float4 cannot be scattered).
template <bool kVectorized, int kBlockM, int kThreads, int kBlockK, int kRowsA>
__device__ __forceinline__ void load_tile_a_transposed(const float* __restrict__ A, int m, int k, int row0, int k0,
                                                       float (&As)[kBlockK][kRowsA]) {
  constexpr int kLoadsA = kBlockM * kBlockK / kQuad / kThreads;  // float4s of A each thread stages per slice
  static_assert(kRowsA >= kBlockM && kRowsA % kQuad == 0, "rows of the transposed A stay 16-byte aligned");
  static_assert((kBlockM * kBlockK / kQuad) % kThreads == 0, "every thread stages the same number of A float4s");
#pragma unroll
  for (int i = 0; i < kLoadsA; ++i) {
    const int e = static_cast<int>(threadIdx.x) + i * kThreads;
    const int r = e / (kBlockK / 4), c = e % (kBlockK / 4) * 4;
    const int gr = row0 + r;
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (gr < m) v = load_quad<kVectorized>(A + static_cast<std::size_t>(gr) * k, k0 + c, k);
    As[c + 0][r] = v.x;
    As[c + 1][r] = v.y;
    As[c + 2][r] = v.z;
    As[c + 3][r] = v.w;
  }
}

// Stage B[k0 .. +kBlockK-1][col0 .. +kBlockN-1] as it lies in global memory, float4 by float4.
template <bool kVectorized, int kThreads, int kBlockK, int kBlockN>
__device__ __forceinline__ void load_tile_b(const float* __restrict__ B, int n, int k, int k0, int col0,
                                            float (&Bs)[kBlockK][kBlockN]) {
  constexpr int kLoadsB = kBlockK * kBlockN / kQuad / kThreads;  // float4s of B each thread stages per slice
  static_assert((kBlockK * kBlockN / kQuad) % kThreads == 0, "every thread stages the same number of B float4s");
#pragma unroll
  for (int i = 0; i < kLoadsB; ++i) {
    const int e = static_cast<int>(threadIdx.x) + i * kThreads;
    const int r = e / (kBlockN / 4), c = e % (kBlockN / 4) * 4;
    const int gr = k0 + r;
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (gr < k) v = load_quad<kVectorized>(B + static_cast<std::size_t>(gr) * n, col0 + c, n);
    *reinterpret_cast<float4*>(&Bs[r][c]) = v;
  }
}

// acc += A_s^T[:][rows of this thread] * B_s[:][columns of this thread]. The thread's rows are
// thread_row + im * kLanesM * 4 + 0..3, its columns thread_col + in * kLanesN * 4 + 0..3.
template <int kLanesM, int kLanesN, int kBlockK, int kRowsA, int kBlockN, int kThreadM, int kThreadN>
__device__ __forceinline__ void multiply_quads(const float (&As)[kBlockK][kRowsA],
                                                   const float (&Bs)[kBlockK][kBlockN], int thread_row,
                                                   int thread_col, float (&acc)[kThreadM][kThreadN]) {
  constexpr int kWarpIterM = kThreadM / kQuad;  // quads down the thread's share of the warp tile
  constexpr int kWarpIterN = kThreadN / kQuad;  // quads across
  static_assert(kThreadM % kQuad == 0 && kThreadN % kQuad == 0, "fragments are read as float4");
#pragma unroll
  for (int kk = 0; kk < kBlockK; ++kk) {
    float a_frag[kThreadM];
    float b_frag[kThreadN];
#pragma unroll
    for (int im = 0; im < kWarpIterM; ++im)
      load_shared_quad(&a_frag[im * kQuad], &As[kk][thread_row + im * kLanesM * kQuad]);
#pragma unroll
    for (int in = 0; in < kWarpIterN; ++in)
      load_shared_quad(&b_frag[in * kQuad], &Bs[kk][thread_col + in * kLanesN * kQuad]);
#pragma unroll
    for (int i = 0; i < kThreadM; ++i)
#pragma unroll
      for (int j = 0; j < kThreadN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
  }
}

// C = alpha * acc + beta * C for the elements of this thread's quads that lie inside the matrix; float4
// stores when kVectorized (n % 4 == 0, so a quad row is wholly inside or outside); beta == 0 never reads C.
// row0/col0: the thread's first row and column in C; quad (im, in) starts kLanesM * 4 * im rows and
// kLanesN * 4 * in columns further.
template <bool kVectorized, int kLanesM, int kLanesN, int kThreadM, int kThreadN>
__device__ __forceinline__ void store_quads(float* __restrict__ C, int m, int n, int row0, int col0,
                                                float alpha, float beta, const float (&acc)[kThreadM][kThreadN]) {
#pragma unroll
  for (int i = 0; i < kThreadM; ++i) {
    const int gr = row0 + i / kQuad * (kLanesM * kQuad) + i % kQuad;
    if (gr >= m) break;  // rows increase with i
    float* c_row = C + static_cast<std::size_t>(gr) * n;
#pragma unroll
    for (int j = 0; j < kThreadN; j += kQuad) {
      const int gc = col0 + j / kQuad * (kLanesN * kQuad);
      if constexpr (kVectorized) {
        if (gc < n) {
          float4 out = make_float4(alpha * acc[i][j], alpha * acc[i][j + 1], alpha * acc[i][j + 2],
                                   alpha * acc[i][j + 3]);
          if (beta != 0.0f) {
            const float4 old = *reinterpret_cast<const float4*>(c_row + gc);
            out.x = fmaf(beta, old.x, out.x);
            out.y = fmaf(beta, old.y, out.y);
            out.z = fmaf(beta, old.z, out.z);
            out.w = fmaf(beta, old.w, out.w);
          }
          *reinterpret_cast<float4*>(c_row + gc) = out;
        }
      } else {
#pragma unroll
        for (int q = 0; q < kQuad; ++q)
          if (gc + q < n)
            c_row[gc + q] = beta == 0.0f ? alpha * acc[i][j + q] : fmaf(beta, c_row[gc + q], alpha * acc[i][j + q]);
      }
    }
  }
}

}  // namespace tut::gemm
