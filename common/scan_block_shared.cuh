// The block scan in shared memory of the scan chapters 07 and 08 (after "CUDA high-performance classic
// problem: prefix sum", OneFlow, Will Zhang, 2022, §5-§6), introduced by chapter 07 and used unchanged by
// chapter 08, which changes only the warp scan, and by chapters 09-10 on their zero-padded layout
// (common/scan_zero_padded.cuh): ScanThenFan's step 1 (common/scan_then_fan.cuh) with the part staged in
// shared memory, one value per thread.
//
//   scan_block<WarpScan>(slot, warp_sums)   each warp scans its 32 values, warp 0 scans the 32 warp totals,
//                                           each warp adds the totals of the warps before it
//   scan_parts_in_place<WarpScan>           each part staged, scanned in place, written back with its total
//   scan_parts_kernel<WarpScan>             that, with the part as 1024 consecutive words of shared memory
// WarpScan::scan(slot, lane) scans the warp's 32 consecutive slots in place (slot: this lane's).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "scan_then_fan.cuh"

namespace tut::shared_block {

constexpr int kPartSize = tut::scan_then_fan::kPartSize;  // elements per part = threads per block
constexpr int kWarpSize = 32;
constexpr int kWarpsPerPart = kPartSize / kWarpSize;
static_assert(kWarpsPerPart == kWarpSize, "a part is 32 warps, so that one warp scans the 32 warp totals");

// Inclusive scan of the block's kPartSize values in shared memory; `slot` is this thread's value.
// On return *slot holds the scan up to and including this thread. warp_sums: kWarpsPerPart words
// of scratch. Call it after a __syncthreads() that follows any earlier reads of warp_sums.
template <class WarpScan>
__device__ __forceinline__ void scan_block(std::uint32_t* slot, std::uint32_t* warp_sums) {
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  WarpScan::scan(slot, lane);                             // 1. each warp scans its 32 values
  if (lane == kWarpSize - 1) warp_sums[warp] = *slot;     //    and publishes its total
  __syncthreads();
  if (warp == 0) WarpScan::scan(warp_sums + lane, lane);  // 2. warp 0 scans the 32 totals
  __syncthreads();
  if (warp > 0) *slot += warp_sums[warp - 1];             // 3. add the totals of the warps before
}

// The block's share of step 1, on a layout of the caller's: it takes parts blockIdx.x, blockIdx.x + gridDim.x,
// ..., stages each in shared memory (slot: this thread's value), scans it there with all its warps, and writes
// the scanned part and its total.
template <class WarpScan>
__device__ __forceinline__ void scan_parts_in_place(const std::uint32_t* in, std::uint32_t* out,
                                                    std::uint32_t* part_sums, std::int64_t n, std::int64_t parts,
                                                    std::uint32_t* slot, std::uint32_t* warp_sums) {
  for (std::int64_t part = blockIdx.x; part < parts; part += gridDim.x) {
    const std::int64_t i = part * kPartSize + threadIdx.x;
    // Element i to this thread's slot: a warp's 32 loads are 32 consecutive words, one 128-byte
    // request. Past the end, 0 (the identity of +) keeps the scan and the total right.
    *slot = i < n ? in[i] : 0;
    __syncthreads();  // also orders the previous part's reads of warp_sums before this part's writes
    scan_block<WarpScan>(slot, warp_sums);  // in place, on shared memory
    if (i < n) out[i] = *slot;
    if (threadIdx.x == kPartSize - 1) part_sums[part] = *slot;
    // No barrier needed before the next part: after scan_block each thread reads only its own
    // slot, and the barrier above comes before anyone writes warp_sums again.
  }
}

// Step 1 with the part as kPartSize consecutive words of shared memory.
template <class WarpScan>
__global__ void scan_parts_kernel(const std::uint32_t* in, std::uint32_t* out, std::uint32_t* part_sums,
                                  std::int64_t n, std::int64_t parts) {
  __shared__ std::uint32_t values[kPartSize];
  __shared__ std::uint32_t warp_sums[kWarpsPerPart];
  scan_parts_in_place<WarpScan>(in, out, part_sums, n, parts, values + threadIdx.x, warp_sums);
}

}  // namespace tut::shared_block
