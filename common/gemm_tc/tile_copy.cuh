// Global-to-shared copies of BF16 operand tiles for the tensor-core chapters (51-53): a tile of kRows rows
// of kCols elements, K contiguous, cut into 16-byte chunks of 8 elements. The shared layout is the
// caller's (`Layout`: (row, chunk) -> element offset of the chunk), so chapter 51's padded rows and
// 52-53's swizzled rows use the same copy.
//
//   vector_ok(ptr, ld)      whether every row of a K-major matrix starts 16-byte aligned (ld % 8 == 0 and an
//                           aligned base): only then is a whole in-range chunk one 16-byte copy
//   copy_tile<..., kAsync>  each thread copies chunks t, t + kThreads, ...: a chunk fully inside the matrix
//                           and aligned as one 16-byte load/store (kAsync: cp.async, no register), a chunk
//                           outside as zeros, a chunk across the edge (or unaligned) element by element
//                           with zeros past the edge. Zeros in the K tail make the extra products 0.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cp_async.cuh"

namespace tut::gemm_tc {

constexpr int kChunkElements = 8;  // 16 bytes of BF16

inline bool vector_ok(const void* ptr, int ld) {
  return ld % kChunkElements == 0 && reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0;
}

// rows x cols matrix at `g` (leading dimension ld), tile origin (row0, col0).
template <int kRows, int kCols, int kThreads, bool kAsync, class Layout>
__device__ __forceinline__ void copy_tile(__nv_bfloat16* smem, Layout layout, const __nv_bfloat16* g, int rows,
                                          int cols, int ld, int row0, int col0, bool vec) {
  static_assert(kCols % kChunkElements == 0, "tile rows are whole 16-byte chunks");
  constexpr int kChunksPerRow = kCols / kChunkElements;
  constexpr int kChunks = kRows * kChunksPerRow;
  static_assert(kChunks % kThreads == 0, "every thread copies the same number of chunks");
#pragma unroll
  for (int i = 0; i < kChunks / kThreads; ++i) {
    const int c = static_cast<int>(threadIdx.x) + i * kThreads;
    const int r = c / kChunksPerRow, ch = c % kChunksPerRow;
    const int gr = row0 + r, gc = col0 + ch * kChunkElements;
    __nv_bfloat16* dst = smem + layout(r, ch);
    const bool row_in = gr < rows;
    const __nv_bfloat16* src = g + static_cast<std::size_t>(row_in ? gr : 0) * ld + gc;
    if (vec && row_in && gc + kChunkElements <= cols) {
      if constexpr (kAsync)
        async_copy::cp_async_16(reinterpret_cast<uint4*>(dst), reinterpret_cast<const uint4*>(src));
      else
        *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
    } else if (!row_in || gc >= cols) {
      *reinterpret_cast<uint4*>(dst) = make_uint4(0, 0, 0, 0);  // all outside: zeros, nothing read
    } else {
#pragma unroll
      for (int e = 0; e < kChunkElements; ++e) dst[e] = gc + e < cols ? src[e] : __float2bfloat16_rn(0.0f);
    }
  }
}

}  // namespace tut::gemm_tc
