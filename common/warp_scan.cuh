// Warp- and block-wide sums of uint32 in registers, shared by the scan chapters 11-17.
//
//   shfl_up_add(val, d)        one Kogge-Stone step as one predicated PTX shuffle-and-add (chapter 12's idea)
//   scan_warp(val)             inclusive scan across the 32 lanes: five shfl_up_add steps
//   reduce_warp(val)           sum across the 32 lanes, returned to every lane (xor butterfly)
//   scan_block_32_warps<WarpScan>(val, warp_sums)
//                              inclusive scan across a block of 32 warps (1024 threads): scan each warp,
//                              warp 0 scans the 32 warp totals, each warp adds the totals before it
//                              (WarpScan: PredicatedWarpScan, scan_warp, unless the caller names another)
//   scan_parts_kernel<WarpScan> ScanThenFan's step 1 around it, the part in registers (chapters 11, 12)
//
// All are force-inlined, so a chapter that calls them compiles to the same instructions as one that
// defines them itself. Addition is uint32 and wraps on overflow, like the CPU reference.
// Chapter 11's warp scan (__shfl_up_sync with a `lane >= d` test) is that chapter's own and stays there;
// it passes it to the block scan and the kernel here.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tut::warp {

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;  // all 32 lanes take part in every shuffle

// One Kogge-Stone step: returns val + (lane (lane - d)'s val) where lane - d exists, else val.
//   shfl.sync.up.b32 left|has_left, val, d, 0, mask
// gives left = lane (lane - d)'s val and has_left = (lane >= d); a lane below d gets its own val
// back, which is then also its result, so only the add needs the predicate: `@has_left add`.
// (Operand 0 declares the whole warp one segment that starts at lane 0, as CUB's WarpScanShfl does.)
// `asm volatile` keeps the compiler from moving the shuffle into code that only some lanes run:
// every lane in the mask must execute shfl.sync. add.u32 wraps on overflow like the CPU reference.
__device__ __forceinline__ std::uint32_t shfl_up_add(std::uint32_t val, int d) {
  std::uint32_t result;
  asm volatile(
      "{\n\t"
      ".reg .u32 left;\n\t"
      ".reg .pred has_left;\n\t"
      "shfl.sync.up.b32 left|has_left, %1, %2, 0, %3;\n\t"
      "@has_left add.u32 left, left, %1;\n\t"
      "mov.u32 %0, left;\n\t"
      "}"
      : "=r"(result)
      : "r"(val), "r"(d), "r"(kFullMask));
  return result;
}

// Inclusive scan of one value per lane across the warp, in registers: one predicated shfl_up_add
// per step, d = 1, 2, 4, 8, 16. No lane index, no compare, no branch.
__device__ __forceinline__ std::uint32_t scan_warp(std::uint32_t val) {
#pragma unroll
  for (int d = 1; d < kWarpSize; d *= 2) val = shfl_up_add(val, d);
  return val;
}

// Sum over the warp, returned to every lane (butterfly: after five xor-shuffles all lanes agree).
__device__ __forceinline__ std::uint32_t reduce_warp(std::uint32_t val) {
#pragma unroll
  for (int d = kWarpSize / 2; d > 0; d /= 2) val += __shfl_xor_sync(kFullMask, val, d);
  return val;
}

// scan_warp as a type: the warp scan of scan_block_32_warps unless a caller names another (chapter 11
// passes its unpredicated shuffle loop).
struct PredicatedWarpScan {
  __device__ __forceinline__ static std::uint32_t scan(std::uint32_t val) { return scan_warp(val); }
};

// Inclusive scan of a block of 32 warps (1024 threads, one value each), in registers; returns the
// scan up to and including this thread. warp_sums: 32 words of shared scratch; on return
// warp_sums[31] is the block's total, for every thread to read. Call it after a __syncthreads()
// that follows any earlier reads of warp_sums. 32 warps, so that one warp scans the 32 warp totals.
// WarpScan::scan(val) is the warp scan (chapter 11 introduced this block scan with its own).
template <class WarpScan = PredicatedWarpScan>
__device__ __forceinline__ std::uint32_t scan_block_32_warps(std::uint32_t val, std::uint32_t* warp_sums) {
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  val = WarpScan::scan(val);                                         // 1. each warp scans its 32 values
  if (lane == kWarpSize - 1) warp_sums[warp] = val;                  //    and publishes its total
  __syncthreads();
  if (warp == 0) warp_sums[lane] = WarpScan::scan(warp_sums[lane]);  // 2. warp 0 scans the 32 totals
  __syncthreads();
  if (warp > 0) val += warp_sums[warp - 1];                          // 3. add the totals of the warps before
  return val;
}

// ScanThenFan's step 1 with the part in registers (chapter 11's, used by 11 and 12 with their warp scans):
// each block takes parts blockIdx.x, blockIdx.x + gridDim.x, ...; each thread loads one element of the
// part into a register, the block scans the part with all its warps, and writes the scanned part and its
// total. Launched <<<blocks, 1024>>> by common/scan_then_fan.cuh's launchers; each thread reads its element
// before it writes it (in may be out).
template <class WarpScan>
__global__ void scan_parts_kernel(const std::uint32_t* in, std::uint32_t* out, std::uint32_t* part_sums,
                                  std::int64_t n, std::int64_t parts) {
  constexpr int kPartSize = kWarpSize * kWarpSize;  // 32 warps of 32 threads, one element each
  __shared__ std::uint32_t warp_sums[kWarpSize];
  for (std::int64_t part = blockIdx.x; part < parts; part += gridDim.x) {
    const std::int64_t i = part * kPartSize + threadIdx.x;
    // Element i to this thread's register: a warp's 32 loads are 32 consecutive words, one 128-byte
    // request. Past the end, 0 (the identity of +) keeps the scan and the total right.
    std::uint32_t val = i < n ? in[i] : 0;
    __syncthreads();  // orders the previous part's reads of warp_sums before this part's writes
    val = scan_block_32_warps<WarpScan>(val, warp_sums);  // in registers
    if (i < n) out[i] = val;
    if (threadIdx.x == kPartSize - 1) part_sums[part] = val;
  }
}

}  // namespace tut::warp
