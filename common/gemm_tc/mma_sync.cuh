// Warp-level tensor-core building blocks of chapters 52-53 (sm_80+): ldmatrix and mma.sync m16n8k16 BF16
// with FP32 accumulation, and the XOR swizzle of a shared tile whose rows are 4 chunks of 16 bytes. Below
// sm_80 the bodies compile out (the chapters' hosts refuse such a GPU before any launch).
//
// Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16" with .bf16): lane = 4 * group + quad.
//   A 16 x 16 (row-major), 4 registers of 2 BF16:  a0 (row group,     k 2 quad + {0,1})
//                                                   a1 (row group + 8, k 2 quad + {0,1})
//                                                   a2 (row group,     k 2 quad + 8 + {0,1})
//                                                   a3 (row group + 8, k 2 quad + 8 + {0,1})
//   B 16 x 8 (k x n, "col"), 2 registers:           b0 (k 2 quad + {0,1}, n group), b1 (k + 8)
//   C 16 x 8 FP32, 4 registers:                     c0, c1 (row group, n 2 quad + {0,1}), c2, c3 (row group + 8)
// The index helpers are __host__ too: test_mma_layout.cu emulates a warp on the CPU with them.
// ldmatrix .x4 loads four 8 x 8 matrices of 16-bit values: lanes 8 i ... 8 i + 7 give the addresses of matrix
// i's 8 rows (16 bytes each), and register i of lane (4 group + quad) receives matrix i's row `group`,
// elements 2 quad, 2 quad + 1: exactly an A or B register above when matrix i is that register's 8 x 8 block
// with K along its rows.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace tut::gemm_tc {

// Rows of 32 BF16 (4 chunks of 16 bytes, 64 bytes): two rows fill one 128-byte line of the 32 banks. An
// 8 x 8 ldmatrix reads one chunk of 8 consecutive rows; unswizzled, those 8 chunks fall on only 2 of the
// line's 8 16-byte bank groups (4-way conflict). XOR-ing the chunk index with (row / 2) % 4 gives rows
// 2j and 2j + 1 the 4 chunk positions in a different order for each j, so 8 consecutive rows hit 8
// distinct bank groups: no conflict, for ldmatrix and for the 16-byte stores of the copy alike.
struct Swizzled32 {
  static constexpr int kRowElements = 32;
  __host__ __device__ __forceinline__ int operator()(int row, int chunk) const {
    return row * kRowElements + ((chunk ^ ((row >> 1) & 3)) << 3);
  }
};

// Four 8 x 8 matrices; `row_address` is this lane's row (lane 8 i + r: row r of matrix i).
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const __nv_bfloat16* row_address) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(row_address));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(a));
#else
  (void)row_address;
  r[0] = r[1] = r[2] = r[3] = 0;
#endif
}

// d += a * b for one 16 x 8 x 16 tile, BF16 in, FP32 accumulate.
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                               std::uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  (void)d, (void)a, (void)b0, (void)b1;
#endif
}

// The lane's ldmatrix row for an A block of 16 rows x 16 k at (row0, k0), matrices in a0..a3 order:
// lanes 0-15 rows 0-15 at k0, lanes 16-31 rows 0-15 at k0 + 8.
__host__ __device__ __forceinline__ int a_ldmatrix_row(int lane) { return lane & 15; }
__host__ __device__ __forceinline__ int a_ldmatrix_chunk(int lane) { return lane >> 4; }
// The lane's row for two B blocks of 8 n x 16 k at (n0, k0): registers r0, r1 = b0, b1 of n0 ... n0 + 7,
// r2, r3 = b0, b1 of n0 + 8 ... n0 + 15: lanes 0-7 n 0-7 k 0, 8-15 n 0-7 k 8, 16-23 n 8-15 k 0, 24-31 n 8-15 k 8.
__host__ __device__ __forceinline__ int b_ldmatrix_row(int lane) { return (lane & 7) + ((lane >> 4) << 3); }
__host__ __device__ __forceinline__ int b_ldmatrix_chunk(int lane) { return (lane >> 3) & 1; }

// Writes one thread's FP32 accumulators of a 16 x 8 C tile at (row0, col0): rows row0 + group (+ 8), columns
// col0 + 2 quad (+ 1), alpha acc + beta C (beta == 0: C not read), guarded at the matrix edge. `pairs`: C's
// rows are 8-byte aligned (n even, aligned base), so an in-range pair is one float2 store.
__device__ __forceinline__ void store_c_fragment(const float (&acc)[4], float* C, int m, int n, int row0, int col0,
                                                 float alpha, float beta, bool pairs) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int col = col0 + 2 * (lane & 3);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int row = row0 + (lane >> 2) + 8 * h;
    if (row >= m) continue;
    float* c = C + static_cast<std::size_t>(row) * n + col;
    float v0 = alpha * acc[2 * h], v1 = alpha * acc[2 * h + 1];
    if (pairs && col + 1 < n) {
      if (beta != 0.0f) {
        const float2 old = *reinterpret_cast<const float2*>(c);
        v0 += beta * old.x;
        v1 += beta * old.y;
      }
      *reinterpret_cast<float2*>(c) = make_float2(v0, v1);
    } else {
      if (col < n) c[0] = beta != 0.0f ? v0 + beta * c[0] : v0;
      if (col + 1 < n) c[1] = beta != 0.0f ? v1 + beta * c[1] : v1;
    }
  }
}

}  // namespace tut::gemm_tc
