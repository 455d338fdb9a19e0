// Exercise 10 (chapter 10-scan-recursion): scan the part sums by calling the scan itself.
//
// ScanThenFan leaves one sum per 1024-element part. Scanning those with one thread (<<<1, 1>>>) is
// fine for a few parts and hopeless for 2^18 of them. But the part sums are just another int32
// array: scan them with the same three kernels, recursively, until one part is left.
//
//   level 0:  n elements          -> parts(n) sums        scan_parts, [recurse], add_base
//   level 1:  parts(n) sums       -> parts(parts(n))      scan_parts, [recurse], add_base
//   ...       until a level has a single part (its scan_parts alone finishes it)
//
// Workspace: each level's sums, then the next level's workspace after them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"

namespace scan_recursion {

constexpr int kPartSize = 1024;  // elements per part = threads per block
constexpr int kMaxBlocks = 128;  // grid cap; a grid-stride loop over parts covers the rest
constexpr int kWarpSize = 32;
constexpr int kWarps = kPartSize / kWarpSize;
constexpr unsigned kFullMask = 0xffffffffu;

__host__ __device__ inline std::size_t part_count(std::size_t n) { return (n + kPartSize - 1) / kPartSize; }

// a + b with two's-complement wrap-around (signed overflow is undefined; unsigned wraps).
__device__ __forceinline__ std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

__device__ __forceinline__ std::int32_t scan_warp(std::int32_t value) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const std::int32_t below = __shfl_up_sync(kFullMask, value, offset);
    if (lane >= offset) value = wrap_add(value, below);
  }
  return value;
}

// Inclusive scan across a block of kPartSize threads (warp scans, then a scan of the warp totals).
__device__ std::int32_t scan_block(std::int32_t value) {
  __shared__ std::int32_t warp_sums[kWarps];
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize, warp = static_cast<int>(threadIdx.x) / kWarpSize;
  value = scan_warp(value);
  if (lane == kWarpSize - 1) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) warp_sums[lane] = scan_warp(warp_sums[lane]);
  __syncthreads();
  if (warp > 0) value = wrap_add(value, warp_sums[warp - 1]);
  __syncthreads();  // warp_sums is free for the next part
  return value;
}

// Scans every part on its own and writes its sum. in and out may be the same array (the recursion
// scans the part sums in place): each thread reads its element before it writes it.
__global__ void scan_parts_kernel(const std::int32_t* in, std::int32_t* out, std::int32_t* part_sums, std::size_t n) {
  for (std::size_t part = blockIdx.x; part < part_count(n); part += gridDim.x) {
    const std::size_t i = part * kPartSize + threadIdx.x;
    const std::int32_t scanned = scan_block(i < n ? in[i] : 0);
    if (i < n) out[i] = scanned;
    if (threadIdx.x == kPartSize - 1) part_sums[part] = scanned;  // zeros past n leave the sum unchanged
  }
}

// One thread scans the part sums in place: <<<1, 1>>> (chapter 09's way, for the measurement).
__global__ void scan_part_sums_serial_kernel(std::int32_t* part_sums, std::size_t parts) {
  std::int32_t running = 0;
  for (std::size_t p = 0; p < parts; ++p) {
    running = wrap_add(running, part_sums[p]);
    part_sums[p] = running;
  }
}

// Adds scanned_part_sums[p - 1] to every element of part p >= 1 (64-bit indices).
__global__ void add_base_kernel(std::int32_t* data, const std::int32_t* scanned_part_sums, std::size_t n) {
  for (std::size_t part = blockIdx.x; part < part_count(n); part += gridDim.x) {
    if (part == 0) continue;
    const std::size_t i = part * kPartSize + threadIdx.x;
    if (i < n) data[i] = wrap_add(data[i], scanned_part_sums[part - 1]);
  }
}

// Bytes of one level's part sums, rounded up to 256 so that the next level starts aligned.
inline std::size_t sums_bytes(std::size_t n) { return (part_count(n) * sizeof(std::int32_t) + 255) / 256 * 256; }

// Scratch for n elements: this level's part sums, then (with more than one part) the workspace of
// the scan of those sums.
inline std::size_t workspace_bytes(std::size_t n) {
  if (n == 0) return 0;
  const std::size_t parts = part_count(n);
  return sums_bytes(n) + (parts > 1 ? workspace_bytes(parts) : 0);
}

inline unsigned blocks_for(std::size_t parts) {
  return static_cast<unsigned>(parts < kMaxBlocks ? parts : kMaxBlocks);
}

// The inclusive scan of n int32. d_in and d_out may be the same array.
inline void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                           cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t parts = part_count(n);
  auto* part_sums = static_cast<std::int32_t*>(d_workspace);
  scan_parts_kernel<<<blocks_for(parts), kPartSize, 0, stream>>>(d_in, d_out, part_sums, n);
  TUT_CHECK_LAUNCH();
  if (parts == 1) return;  // a single part is scanned already
  // The part sums are an int32 array of `parts` elements: scan them in place with this same
  // function, using the workspace after this level's sums.
  void* next_level_workspace = static_cast<unsigned char*>(d_workspace) + sums_bytes(n);
  inclusive_scan(part_sums, part_sums, parts, next_level_workspace, stream);
  add_base_kernel<<<blocks_for(parts), kPartSize, 0, stream>>>(d_out, part_sums, n);
  TUT_CHECK_LAUNCH();
}

// Chapter 09's structure, for the measurement: the part sums scanned by one thread.
inline void inclusive_scan_serial_sums(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n,
                                       void* d_workspace, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t parts = part_count(n);
  auto* part_sums = static_cast<std::int32_t*>(d_workspace);
  scan_parts_kernel<<<blocks_for(parts), kPartSize, 0, stream>>>(d_in, d_out, part_sums, n);
  TUT_CHECK_LAUNCH();
  if (parts == 1) return;
  scan_part_sums_serial_kernel<<<1, 1, 0, stream>>>(part_sums, parts);
  TUT_CHECK_LAUNCH();
  add_base_kernel<<<blocks_for(parts), kPartSize, 0, stream>>>(d_out, part_sums, n);
  TUT_CHECK_LAUNCH();
}

}  // namespace scan_recursion
