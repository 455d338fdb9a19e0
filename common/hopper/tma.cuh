// TMA (the Tensor Memory Accelerator, sm_90): 2-D tiles of a BF16 matrix copied from global into 128-byte swizzled
// shared memory by one thread, their arrival counted in bytes by an mbarrier (bulk_copy.cuh).
//
// Host:
//   TensorMap2d map = make_tensor_map_2d_bf16(base, rows, cols, ld, box_rows, box_cols)
//       a CUtensorMap for a row-major rows x cols matrix with leading dimension ld (elements), read in boxes of
//       box_rows x box_cols; elements outside rows x cols read as zero, so tiles past a matrix edge need no guard.
// Device (pass the map as a `const __grid_constant__ CUtensorMap` kernel parameter):
//   tma_load_2d(dst, map, col, row, barrier)                 one box whose first element is (row, col)
//   tma_load_2d_multicast(dst, map, col, row, barrier, mask) the same box into every CTA of the cluster in mask
//                                                            (sm_90a code only),
//                                                            at dst's offset in each, counted by each one's barrier
//   prefetch_tensor_map(map)                                 fetches the map's descriptor ahead of the first copy
//
// cuTensorMapEncodeTiled is a driver API function; it is reached through cudaGetDriverEntryPointByVersion so that
// programs link the runtime only (no -lcuda). Device functions compile to nothing below sm_90 (arch.cuh).
#pragma once

#include <cuda.h>  // CUtensorMap and its enums: types only, no driver library is linked
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include <cstdint>
#include <stdexcept>
#include <string>

#include "../bulk_copy.cuh"
#include "arch.cuh"
#include "wgmma.cuh"  // kBf16PerSwizzleRow

namespace tut::hopper {

// ---- Host -------------------------------------------------------------------------------------------------------
// The driver's cuTensorMapEncodeTiled, looked up once (the ABI of CUDA 12.0, the first to have it).
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t e =
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found);
    if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || fn == nullptr) {
      (void)cudaGetLastError();
      throw std::runtime_error("the CUDA driver has no cuTensorMapEncodeTiled (TMA needs driver 12.0+ and sm_90)");
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  return encode;
}

struct TensorMap2d {
  CUtensorMap map;
  int box_rows;
  int box_cols;
  std::uint32_t box_bytes() const { return static_cast<std::uint32_t>(box_rows) * box_cols * 2; }
};

// Throws std::invalid_argument naming the broken rule when TMA cannot describe the matrix: its base must be
// 16-byte aligned and each row must start 16 bytes after a multiple of 16 (ld a multiple of 8 BF16: a matrix
// whose K is not, such as K = 1, is stored with ld rounded up); a 128B-swizzled box is at most 64 BF16 wide
// (one 128-byte row) and at most 256 rows tall. rows and cols must be at least 1 (a K = 0 GEMM loads nothing).
inline TensorMap2d make_tensor_map_2d_bf16(const __nv_bfloat16* base, std::uint64_t rows, std::uint64_t cols,
                                           std::uint64_t ld, int box_rows, int box_cols) {
  auto fail = [](const std::string& why) { throw std::invalid_argument("make_tensor_map_2d_bf16: " + why); };
  if (rows == 0 || cols == 0) fail("a matrix dimension is 0");
  if (ld < cols) fail("ld " + std::to_string(ld) + " < cols " + std::to_string(cols));
  if (ld % 8 != 0) fail("ld " + std::to_string(ld) + " is no multiple of 8 BF16 (16 bytes): pad the rows");
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0) fail("the base address is not 16-byte aligned");
  // One 128-byte swizzled row per box row: the layout swizzle_128b_offset() and the wgmma descriptors assume.
  if (box_cols != kBf16PerSwizzleRow) fail("box_cols must be 64 (one 128-byte swizzled row)");
  if (box_rows < 1 || box_rows > 256) fail("box_rows must be 1..256");
  if (rows > (1ull << 31) || ld > (1ull << 31)) fail("a dimension is 2^31 or more");

  TensorMap2d out{};
  out.box_rows = box_rows;
  out.box_cols = box_cols;
  // Dimension 0 is the contiguous one (columns); strides are given for dimensions 1.. only, in bytes.
  const cuuint64_t global_dim[2] = {cols, rows};
  const cuuint64_t global_stride[1] = {ld * sizeof(__nv_bfloat16)};
  const cuuint32_t box_dim[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_stride[2] = {1, 1};
  const CUresult r = tensor_map_encoder()(
      &out.map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<__nv_bfloat16*>(base), global_dim, global_stride,
      box_dim, element_stride, CU_TENSOR_MAP_INTERLEAVE_NONE,
      // the layout wgmma's 128B-swizzle descriptors expect (wgmma.cuh, swizzle_128b_offset)
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      // OOB_FILL_NONE writes zeros for elements outside the matrix (NAN_REQUEST_ZERO_FMA would write NaN)
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) fail("cuTensorMapEncodeTiled failed with CUresult " + std::to_string(static_cast<int>(r)));
  return out;
}

// ---- Device -----------------------------------------------------------------------------------------------------
// The box lands at dst (1024-byte aligned for the 128B swizzle) in the issuing CTA's shared memory; the copy engine
// adds its bytes to barrier's transaction count as they arrive (the issuing thread announced them with
// mbarrier_arrive_expect_tx). Coordinates are elements, innermost (column) first; a box reaching past the matrix,
// or starting before it (negative coordinates), is filled with zeros there and still delivers all its bytes.
// col must be a multiple of 8 (16 bytes): on an H200 a box at column 71 stopped the kernel with an illegal
// instruction (test_tma.cu); a GEMM's columns are multiples of the 64-wide K-block anyway.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int col, int row,
                                            std::uint64_t* barrier) {
#if TUT_SM90_DEVICE_CODE
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          shared_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(col), "r"(row), "r"(shared_address(barrier))
      : "memory");
#else
  (void)dst, (void)map, (void)col, (void)row, (void)barrier;
#endif
}

// One global read, written to the same shared-memory offset in each CTA of the cluster whose rank has its bit set
// in cta_mask; each destination CTA's mbarrier at barrier's offset counts the bytes (each must expect them).
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap* map, int col, int row,
                                                      std::uint64_t* barrier, std::uint16_t cta_mask) {
#if TUT_SM90A_DEVICE_CODE  // ptxas advises .multicast::cluster for sm_90a only (slow on later architectures)
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(col), "r"(row), "r"(shared_address(barrier)), "h"(cta_mask)
      : "memory");
#else
  (void)dst, (void)map, (void)col, (void)row, (void)barrier, (void)cta_mask;
#endif
}

__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
#if TUT_SM90_DEVICE_CODE
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
#else
  (void)map;
#endif
}

}  // namespace tut::hopper
