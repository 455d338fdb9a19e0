// wgmma: the warpgroup-level matrix multiply of sm_90a (PTX ISA 8.0, "Asynchronous Warpgroup Level Matrix
// Multiply-Accumulate Instructions"), for BF16 operands that both lie in shared memory, K-major, in the
// 128-byte swizzled layout a TMA load with CU_TENSOR_MAP_SWIZZLE_128B writes (tma.cuh), FP32 accumulators.
//
//   swizzle_128b_offset(row, byte)       where byte `byte` of row `row` of a 128-byte-wide tile lies (bytes)
//   align_to_swizzle_atom(p)             p rounded up to the 1024 bytes a swizzled tile must start on
//   make_smem_descriptor_sw128(tile)     the 64-bit matrix descriptor of a K-major tile of 64 BF16 per row
//   smem_descriptor_advance_k(d, k)      the descriptor of the same tile, k BF16 elements further along K
//   wgmma_m64k16_bf16<N>(acc, da, db, accumulate)   acc(64 x N) (+)= A(64 x 16) * B(N x 16)^T, asynchronous
//   wgmma_slice_bf16<N, kSliceK>(acc, da, db)       a K slice of those, fenced before and committed as one group
//   wgmma_fence()                        before the first wgmma that reads registers or shared memory written
//                                        by ordinary instructions
//   wgmma_commit_group()                 closes the group of wgmmas this warpgroup issued since the last one
//   wgmma_wait_group<kPending>()         waits until at most kPending groups are in flight
//   accumulator_fence(acc)               tells the compiler acc's registers change here (no instruction)
//   fence_proxy_async_shared()           makes ordinary shared-memory stores visible to wgmma and TMA
//   accumulator_coord(thread, i)         the (row, col) of register acc[i] of a thread of the warpgroup
//
// A warpgroup is 4 consecutive warps (128 threads, the first warp's index a multiple of 4); every thread of
// it executes each wgmma_*() call together (the instructions are .sync.aligned). Instructions compile only
// for sm_90a (arch.cuh); elsewhere each function is empty and its kernels must not call them.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "../cp_async.cuh"
#include "arch.cuh"

namespace tut::hopper {

using tut::async_copy::shared_address;

// ---- The 128-byte swizzled layout -----------------------------------------------------------------------------
// A K-major BF16 tile is stored as rows of 128 bytes (64 elements along K). 128B swizzling (PTX ISA, "Shared
// Memory Matrix Layout", swizzling modes; CuTe's Swizzle<3,4,3>) permutes the eight 16-byte chunks of each row:
// chunk c of row r lands at chunk c ^ (r % 8). Eight rows (1024 bytes) are one swizzle atom, so the tile must
// start at a 1024-byte-aligned shared address, which is also what lets the matrix descriptor's base offset be 0.
inline constexpr int kSwizzleBytes = 128;                     // one row of the tile
inline constexpr int kSwizzleAtomBytes = 8 * kSwizzleBytes;   // 8 rows: the pattern repeats after this
inline constexpr int kBf16PerSwizzleRow = kSwizzleBytes / 2;  // 64 BF16 along K per tile row

// The first 1024-byte-aligned address at or after p (dynamic shared memory is only 16-byte aligned: allocate a
// swizzle atom more than the tiles need).
__device__ __forceinline__ unsigned char* align_to_swizzle_atom(unsigned char* p) {
  return reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(p) + kSwizzleAtomBytes - 1) &
                                          ~std::uintptr_t(kSwizzleAtomBytes - 1));
}

__host__ __device__ constexpr std::uint32_t swizzle_128b_offset(std::uint32_t row, std::uint32_t byte_in_row) {
  return row * kSwizzleBytes + ((((byte_in_row >> 4) ^ (row & 7)) << 4) | (byte_in_row & 15));
}

// ---- Matrix descriptors (PTX ISA, "Matrix Descriptor Format") ------------------------------------------------
//   bits  0-13  start address >> 4
//   bits 16-29  leading dimension byte offset >> 4: for a swizzled K-major layout whose K extent per wgmma
//               (16 BF16 = 32 bytes) lies inside one 128-byte row, the hardware does not use it; 1 by convention
//   bits 32-45  stride dimension byte offset >> 4: from one 8-row group of the M/N dimension to the next,
//               8 rows x 128 bytes = 1024
//   bits 49-51  base offset: 0, as the tile starts 1024-byte aligned
//   bits 62-63  swizzle mode: 1 = 128-byte swizzle (2 = 64B, 3 = 32B, 0 = none)
__device__ __forceinline__ std::uint64_t make_smem_descriptor_sw128(const void* tile) {
  const std::uint32_t address = shared_address(tile);
  std::uint64_t desc = 0;
  desc |= static_cast<std::uint64_t>((address & 0x3FFFF) >> 4);
  desc |= static_cast<std::uint64_t>(1) << 16;
  desc |= static_cast<std::uint64_t>(kSwizzleAtomBytes >> 4) << 32;
  desc |= static_cast<std::uint64_t>(1) << 62;
  return desc;
}

// The descriptor k BF16 elements further along K within the same 128-byte rows (k a multiple of 16, < 64):
// only the start address moves (by 2k bytes); the hardware applies the swizzle to the address bits it computes,
// so the chunks it reads are still the permuted ones (the way CUTLASS's and DeepGEMM's mainloops step K).
__device__ __forceinline__ std::uint64_t smem_descriptor_advance_k(std::uint64_t desc, int k_elements) {
  return desc + static_cast<std::uint64_t>((k_elements * 2) >> 4);
}

// ---- Ordering ---------------------------------------------------------------------------------------------------
__device__ __forceinline__ void wgmma_fence() {
#if TUT_SM90A_DEVICE_CODE
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmma_commit_group() {
#if TUT_SM90A_DEVICE_CODE
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
}
template <int kPending>
__device__ __forceinline__ void wgmma_wait_group() {
  static_assert(kPending >= 0 && kPending <= 7, "wgmma.wait_group takes 0..7");
#if TUT_SM90A_DEVICE_CODE
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
#endif
}
// Ordinary st.shared writes go through the generic proxy; wgmma and TMA read shared memory through the async
// proxy, which sees them only after this fence (and a barrier, for other threads' stores).
__device__ __forceinline__ void fence_proxy_async_shared() {
#if TUT_SM90_DEVICE_CODE
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}
// The accumulators are written asynchronously: this empty asm makes the compiler treat every register as read and
// written at this point, so it moves no use of them across a wgmma_wait_group (CUTLASS's warpgroup_fence_operand).
template <int kRegs>
__device__ __forceinline__ void accumulator_fence(float (&acc)[kRegs]) {
#pragma unroll
  for (int i = 0; i < kRegs; ++i) asm volatile("" : "+f"(acc[i])::"memory");
}

// ---- The instruction, one specialisation per N ------------------------------------------------------------------
// wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16 d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b,
// imm-trans-a, imm-trans-b: scale-d = 0 overwrites d (d = A*B), 1 accumulates; scale-a/b = 1 (no negation);
// trans = 0: both operands K-major. Written out per N because the asm operand list is N/2 registers long.
template <int N>
struct WgmmaBf16;

template <>
struct WgmmaBf16<64> {
  __device__ __forceinline__ static void mma(float (&d)[32], std::uint64_t desc_a, std::uint64_t desc_b, int scale_d) {
#if TUT_SM90A_DEVICE_CODE
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "setp.ne.b32 p, %34, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, %32, %33, p, 1, 1, 0, 0;\n\t}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#else
    (void)d, (void)desc_a, (void)desc_b, (void)scale_d;
#endif
  }
};

template <>
struct WgmmaBf16<128> {
  __device__ __forceinline__ static void mma(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b, int scale_d) {
#if TUT_SM90A_DEVICE_CODE
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "setp.ne.b32 p, %66, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1, 0, 0;\n\t}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#else
    (void)d, (void)desc_a, (void)desc_b, (void)scale_d;
#endif
  }
};

template <>
struct WgmmaBf16<256> {
  __device__ __forceinline__ static void mma(float (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b, int scale_d) {
#if TUT_SM90A_DEVICE_CODE
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "setp.ne.b32 p, %130, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, p, 1, 1, 0, 0;\n\t}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
          "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#else
    (void)d, (void)desc_a, (void)desc_b, (void)scale_d;
#endif
  }
};

template <int N>
__device__ __forceinline__ void wgmma_m64k16_bf16(float (&acc)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b,
                                                  bool accumulate) {
  static_assert(N == 64 || N == 128 || N == 256, "wgmma_m64k16_bf16 is instantiated for N = 64, 128 and 256");
  WgmmaBf16<N>::mma(acc, desc_a, desc_b, accumulate ? 1 : 0);
}

// One K slice of a consumer warpgroup, as the ladder's warp-specialised kernels issue it: acc (64 x N) += A (64 x
// kSliceK at desc_a) * B (N x kSliceK at desc_b)^T, kSliceK / 16 wgmmas closed as one group and left in flight (the
// caller's wgmma_wait_group decides when the slice's stage is free).
template <int N, int kSliceK>
__device__ __forceinline__ void wgmma_slice_bf16(float (&acc)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b) {
  static_assert(kSliceK % 16 == 0, "whole k16 steps");
  accumulator_fence(acc);
  wgmma_fence();  // the accumulators were last written by ordinary instructions (zeroing) or a wgmma
#pragma unroll
  for (int kk = 0; kk < kSliceK; kk += 16)
    wgmma_m64k16_bf16<N>(acc, smem_descriptor_advance_k(desc_a, kk), smem_descriptor_advance_k(desc_b, kk), true);
  wgmma_commit_group();
}

// ---- The accumulator fragment (PTX ISA, "Register Fragments", wgmma .m64nNk16 matrix D) ------------------------
// Warp w of the warpgroup holds rows 16w .. 16w+15. Within it, lane l holds row l/4 and row l/4 + 8, and in each
// 8-column block j two adjacent columns 2(l%4), 2(l%4)+1: register i is block i/4, row offset 8 * ((i/2) % 2),
// column offset i % 2. So a thread has N/2 registers, in pairs of adjacent columns (a float2 store each).
struct AccumulatorCoord {
  int row;
  int col;
};
__host__ __device__ constexpr AccumulatorCoord accumulator_coord(int thread_in_warpgroup, int i) {
  return AccumulatorCoord{(thread_in_warpgroup / 32) * 16 + (thread_in_warpgroup % 32) / 4 + 8 * ((i >> 1) & 1),
                          (i >> 2) * 8 + (thread_in_warpgroup % 4) * 2 + (i & 1)};
}

}  // namespace tut::hopper
