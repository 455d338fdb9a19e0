// Chapter 22: the article's SGEMM (seed 002, "Optimisation techniques for GPU programs", §2): register
// blocking with a 16 x 256 tile of C per block of 128 threads.
//
// Row-major C[m x n] = alpha * A[m x k] * B[k x n] + beta * C (leading dimensions k, n, n). Chapter 21
// gave each thread ONE element of C, so each FMA still needs two loads from shared memory. Here each
// thread keeps 32 elements of C in registers (16 rows x 2 columns, 16 float2) and every value it loads is
// used many times:
//   - a value of B (a float2: two columns of one row of the K step) is used by 16 rows: 32 FMAs;
//   - a value of Asub (one row, one K step) is used for 2 columns by each of the 128 threads.
//
//   block: 128 threads (4 warps x 32 lanes)           Csub: 16 rows x 256 columns
//   thread t owns columns 2t and 2t+1 of Csub          +--+--+--+-- ... --+--+
//   and all 16 rows: acc[0..15] (float2)               |t0|t1|t2|   ...   |t127|   each cell 16 x 2
//                                                      +--+--+--+-- ... --+--+
//   per K step of 32:                                  Asub (16 x 32) in shared memory, staged by all
//     1. the block copies Asub (16 rows x 32 K)        128 threads: warp w copies rows w, w+4, w+8, w+12
//        into shared memory, waits at a barrier;       (each row is 32 consecutive floats: one line)
//     2. for each of the 32 K values p: each thread
//        reads ONE float2 of B (row p, its 2 columns)  B is never staged: a warp's 32 float2 are 256
//        straight from global memory, then does        consecutive bytes of one row of B
//        acc[r] += Asub[r][p] * b for r = 0..15;       Asub[r][p]: one address per warp (a broadcast)
//     3. waits at a second barrier before the next Asub overwrites this one.
//
// The article's three design claims are template parameters here, so that one variant changes exactly
// one of them (see main.cu): the width of Csub (kTileN: 256, or Volkov and Demmel's 64), how B is read
// (kColumns: one float2 of two adjacent columns, or two floats of columns t and t + 128), and the depth of
// Asub (kTileK: 32, or 16, which doubles the barriers).
//
// Edges (any M, N, K): Asub is zero-filled past M and K; a K step past K stops early; columns past N are
// neither loaded nor stored (a predicated path that only edge threads take); rows past M are not stored.
// The float2 path needs 8-byte aligned pairs: N even and B, C 8-byte aligned; otherwise the same columns
// are read and written as two floats.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.cuh"
#include "gemm/gemm_workload.cuh"

namespace sgemm_register_blocking {

constexpr int kTileM = 16;  // rows of Csub and of Asub: each thread's 16 float2 accumulators

// Which two columns of Csub a thread owns, and how it reads them from a row of B.
enum class BColumns {
  adjacent_float2,  // columns 2t and 2t + 1: one 64-bit load (the article)
  split_scalar,     // columns t and t + threads: two 32-bit loads, each coalesced (claim 2's variant)
};

template <int kTileN, int kTileK, BColumns kColumns>
struct Shape {
  static constexpr int kThreads = kTileN / 2;  // two columns per thread
  static constexpr int kAsubPerThread = kTileM * kTileK / kThreads;
  static_assert(kTileN % 64 == 0, "whole warps: 2 columns per thread, 32 threads per warp");
  static_assert((kTileM * kTileK) % kThreads == 0, "every thread copies the same number of Asub values");
  static_assert(kTileK % 16 == 0 && kTileK <= 32, "Asub is 16 x 16 or 16 x 32");
};

// C's epilogue with BLAS semantics: beta == 0 means C is output only and is not read (it may hold NaN).
__device__ __forceinline__ float epilogue(float acc, float alpha, float beta, const float* c) {
  return beta == 0.0f ? alpha * acc : fmaf(beta, *c, alpha * acc);
}

// Step 1: the block copies Asub = A[row0 .. row0+15][p0 .. p0+kTileK-1] into shared memory, zeros past
// M and K. Value e of the tile goes to thread e % threads: with 128 threads and kTileK = 32, warp w copies
// rows w, w + 4, w + 8, w + 12, lane l column l (the article's 4 x 32 arrangement); each warp instruction
// reads one 128-byte line of A and writes 32 consecutive words of shared memory (no bank conflicts).
template <int kThreads, int kTileK>
__device__ __forceinline__ void stage_asub(float (&As)[kTileM][kTileK], const float* __restrict__ A, int m, int k,
                                           int row0, int p0) {
#pragma unroll
  for (int i = 0; i < kTileM * kTileK / kThreads; ++i) {
    const int e = static_cast<int>(threadIdx.x) + i * kThreads;
    const int r = e / kTileK, c = e % kTileK;
    const int row = row0 + r, p = p0 + c;
    As[r][c] = row < m && p < k ? A[static_cast<long long>(row) * k + p] : 0.0f;
  }
}

// Step 2: `steps` K values of this Asub (kTileK unless the last step of K is short). For each: one load of
// the thread's two values of B (row p), then 16 x 2 FMAs into the accumulators.
// kVector: the two columns are adjacent, inside N and 8-byte aligned: one float2 load.
// The K loop is unrolled by 8: the compiler issues the B loads of 8 K values ahead of their FMAs, and the
// kernel stays near 120 registers (4 blocks of 128 threads per SM on sm_90). Unrolled fully, it took 152 to
// 196 registers depending on the variant, and spilled on sm_75.
template <int kTileK, bool kFullStep, bool kVector>
__device__ __forceinline__ void multiply_asub(float2 (&acc)[kTileM], const float (&As)[kTileM][kTileK],
                                              const float* __restrict__ b, int n, int col_x, int col_y,
                                              bool has_x, bool has_y, int steps) {
#pragma unroll 8
  for (int p = 0; p < kTileK; ++p) {
    if (!kFullStep && p >= steps) break;
    const float* b_row = b + p * n;  // p * n < K * N < 2^31
    float2 bv;
    if (kVector) {
      bv = *reinterpret_cast<const float2*>(b_row + col_x);
    } else {
      bv.x = has_x ? b_row[col_x] : 0.0f;
      bv.y = has_y ? b_row[col_y] : 0.0f;
    }
#pragma unroll
    for (int r = 0; r < kTileM; ++r) {
      const float a = As[r][p];  // the same address in every thread: one broadcast read
      acc[r].x = fmaf(a, bv.x, acc[r].x);
      acc[r].y = fmaf(a, bv.y, acc[r].y);
    }
  }
}

template <int kTileN, int kTileK, BColumns kColumns>
__global__ void __launch_bounds__(Shape<kTileN, kTileK, kColumns>::kThreads)
    sgemm_register_blocking_kernel(int m, int n, int k, float alpha, const float* __restrict__ A,
                                   const float* __restrict__ B, float beta, float* __restrict__ C,
                                   bool pairs_aligned) {
  constexpr int kThreads = Shape<kTileN, kTileK, kColumns>::kThreads;
  __shared__ float As[kTileM][kTileK];

  const int t = threadIdx.x;
  const int row0 = blockIdx.y * kTileM;
  const int col0 = blockIdx.x * kTileN;
  const int col_x = col0 + (kColumns == BColumns::adjacent_float2 ? 2 * t : t);
  const int col_y = col0 + (kColumns == BColumns::adjacent_float2 ? 2 * t + 1 : t + kThreads);
  const bool has_x = col_x < n, has_y = col_y < n;
  // Every thread of an interior block takes the float2 path; only threads at the right edge of C (or all
  // of them when N is odd) take the predicated one.
  const bool vector = kColumns == BColumns::adjacent_float2 && pairs_aligned && has_y;

  float2 acc[kTileM];
#pragma unroll
  for (int r = 0; r < kTileM; ++r) acc[r] = make_float2(0.0f, 0.0f);

  for (int p0 = 0; p0 < k; p0 += kTileK) {
    stage_asub<kThreads>(As, A, m, k, row0, p0);
    __syncthreads();  // Asub is complete
    const float* b = B + static_cast<long long>(p0) * n;  // row p0 of B
    const int steps = min(kTileK, k - p0);
    if (steps == kTileK) {
      if (vector) multiply_asub<kTileK, true, true>(acc, As, b, n, col_x, col_y, has_x, has_y, steps);
      else multiply_asub<kTileK, true, false>(acc, As, b, n, col_x, col_y, has_x, has_y, steps);
    } else {
      if (vector) multiply_asub<kTileK, false, true>(acc, As, b, n, col_x, col_y, has_x, has_y, steps);
      else multiply_asub<kTileK, false, false>(acc, As, b, n, col_x, col_y, has_x, has_y, steps);
    }
    __syncthreads();  // everyone is done with this Asub before the next one overwrites it
  }

  // Write the thread's 16 x 2 block of C: one float2 per row where the pair is aligned.
#pragma unroll
  for (int r = 0; r < kTileM; ++r) {
    const int row = row0 + r;
    if (row >= m) break;
    float* c = C + static_cast<long long>(row) * n;
    if (vector) {
      float2* c2 = reinterpret_cast<float2*>(c + col_x);
      float2 out = make_float2(alpha * acc[r].x, alpha * acc[r].y);
      if (beta != 0.0f) {
        const float2 old = *c2;
        out.x = fmaf(beta, old.x, out.x);
        out.y = fmaf(beta, old.y, out.y);
      }
      *c2 = out;
    } else {
      if (has_x) c[col_x] = epilogue(acc[r].x, alpha, beta, c + col_x);
      if (has_y) c[col_y] = epilogue(acc[r].y, alpha, beta, c + col_y);
    }
  }
}

template <int kTileN, int kTileK, BColumns kColumns>
void launch(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
            cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  auto aligned8 = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 8 == 0; };
  const bool pairs_aligned = n % 2 == 0 && aligned8(B) && aligned8(C);
  const dim3 grid = tut::gemm::tile_grid(m, n, kTileM, kTileN);
  sgemm_register_blocking_kernel<kTileN, kTileK, kColumns>
      <<<grid, Shape<kTileN, kTileK, kColumns>::kThreads, 0, stream>>>(m, n, k, alpha, A, B, beta, C, pairs_aligned);
  TUT_CHECK_LAUNCH();
}

// The article's kernel: Csub 16 x 256, 128 threads, Asub 16 x 32, B as one float2 per thread per step.
inline void sgemm_register_blocking(int m, int n, int k, float alpha, const float* A, const float* B, float beta,
                                    float* C, cudaStream_t stream) {
  launch<256, 32, BColumns::adjacent_float2>(m, n, k, alpha, A, B, beta, C, stream);
}

// Claim 1: Csub 16 x 64 (the width of Volkov and Demmel's kernel, which the article improves on). Two
// columns per thread make that 32 threads per block; A is read 4 times as often.
inline void sgemm_csub_16x64(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                             cudaStream_t stream) {
  launch<64, 32, BColumns::adjacent_float2>(m, n, k, alpha, A, B, beta, C, stream);
}

// Claim 2: B read as two 32-bit floats per thread per step (columns t and t + 128, each load a coalesced
// 128-byte line per warp) instead of one 64-bit float2 of two adjacent columns.
inline void sgemm_b_scalar_loads(int m, int n, int k, float alpha, const float* A, const float* B, float beta,
                                 float* C, cudaStream_t stream) {
  launch<256, 32, BColumns::split_scalar>(m, n, k, alpha, A, B, beta, C, stream);
}

// Claim 3: Asub 16 x 16: the same work per K value, but two barriers per 16 K values instead of per 32.
inline void sgemm_asub_16x16(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                             cudaStream_t stream) {
  launch<256, 16, BColumns::adjacent_float2>(m, n, k, alpha, A, B, beta, C, stream);
}

}  // namespace sgemm_register_blocking
