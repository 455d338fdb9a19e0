// Chapter 06: ScanThenFan with each part staged in shared memory.
// After "CUDA high-performance classic problem: prefix sum" (OneFlow, Will Zhang, 2022), §4.
//
// Inclusive scan of n int32 in three kernels:
//   1. scan_parts_kernel     cut the input into parts of kPartSize elements; scan each part on its
//                            own and write the part's total to part_sums[part];
//   2. scan_part_sums_kernel scan part_sums in place, so part_sums[p] = total of parts 0..p;
//   3. add_base_kernel       add part_sums[p - 1] (the sum of everything before part p) to every
//                            element of part p.
// Each part is still scanned by ONE thread of its block, but no longer straight from global memory:
// all kPartSize threads first copy the part into shared memory (one coalesced load per warp), thread 0
// scans it there, and all threads copy the result back out (one coalesced store per warp).
//
// Values are scanned as uint32_t: the same bits as int32_t, and unsigned addition wraps by
// definition (signed overflow would be undefined behaviour), matching the CPU reference.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "scan_then_fan.cuh"

namespace scan_shared_memory {

constexpr int kPartSize = tut::scan_then_fan::kPartSize;  // elements per part = threads per block

// Inclusive scan of count values, in[0..count) -> out[0..count), by the calling thread alone.
// Returns the total. Each iteration waits for its load: nothing here runs in parallel.
__device__ __forceinline__ std::uint32_t scan_part_serial(const std::uint32_t* in, std::uint32_t* out,
                                                          int count) {
  std::uint32_t acc = 0;
  for (int i = 0; i < count; ++i) {
    acc += in[i];
    out[i] = acc;
  }
  return acc;
}

// Each block takes parts blockIdx.x, blockIdx.x + gridDim.x, ...; the block stages the part in
// shared memory, thread 0 scans it there, and the block writes the scanned part and its total.
__global__ void scan_parts_kernel(const std::uint32_t* in, std::uint32_t* out, std::uint32_t* part_sums,
                                  std::int64_t n, std::int64_t parts) {
  __shared__ std::uint32_t values[kPartSize];
  for (std::int64_t part = blockIdx.x; part < parts; part += gridDim.x) {
    const std::int64_t i = part * kPartSize + threadIdx.x;
    // Element i to slot threadIdx.x: a warp's 32 loads are 32 consecutive words, one 128-byte
    // request. Past the end, 0 (the identity of +) keeps the scan and the total right.
    values[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    if (threadIdx.x == 0) scan_part_serial(values, values, kPartSize);  // in place, on shared memory
    __syncthreads();
    if (i < n) out[i] = values[threadIdx.x];
    if (threadIdx.x == kPartSize - 1) part_sums[part] = values[threadIdx.x];
    // No barrier needed before the next part: each thread next writes only its own slot, which
    // no other thread reads after the barrier above.
  }
}

// Steps 2 and 3 (scan_part_sums_kernel<<<1, 1>>>, add_base_kernel) and the launches are the same in
// chapters 05-09: common/scan_then_fan.cuh. This chapter gives them its scan_parts_kernel.
using tut::scan_then_fan::workspace_bytes;

inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  tut::scan_then_fan::inclusive_scan<scan_parts_kernel>(d_in, d_out, n, d_workspace, stream);
}

}  // namespace scan_shared_memory
