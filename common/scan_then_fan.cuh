// ScanThenFan, the frame around the part scans of the scan chapters 05-12 (after "CUDA
// high-performance classic problem: prefix sum", OneFlow, Will Zhang, 2022, §2-§10).
//
// Inclusive scan of n int32 in three steps:
//   1. scan_parts        the chapter's kernel: cut the input into parts of kPartSize elements, scan
//                        each part on its own and write the part's total to part_sums[part];
//   2. the part sums     scan part_sums in place, so part_sums[p] = total of parts 0..p:
//                          05-09  inclusive_scan            scan_part_sums_kernel<<<1, 1>>>, one thread;
//                          10-12  inclusive_scan_recursive  the same three steps, run on part_sums;
//   3. add_base_kernel   add part_sums[p - 1] (the sum of everything before part p) to every element
//                        of part p.
// Steps 2 and 3 and the host side do not change from stage to stage, so they live here once; each
// chapter's header holds only its scan_parts kernel, the part that it changes.
//
// Values are scanned as uint32_t: the same bits as int32_t, and unsigned addition wraps by
// definition (signed overflow would be undefined behaviour), matching the CPU reference.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"

namespace tut::scan_then_fan {

constexpr int kPartSize = 1024;  // elements per part = threads per block (the article's part_size)
constexpr int kMaxBlocks = 128;  // the article's block_num = min(part_num, 128), a grid-stride loop over parts

// A chapter's step 1 (the launchers' template argument), launched <<<block_count(parts), kPartSize>>>:
// each block takes parts blockIdx.x, blockIdx.x + gridDim.x, ..., scans each and writes its total to
// part_sums[part].
using ScanPartsKernel = void (*)(const std::uint32_t* in, std::uint32_t* out, std::uint32_t* part_sums,
                                 std::int64_t n, std::int64_t parts);

// The kernels and launchers are templates so that a chapter compiles only the kernels it launches.

// Launched <<<1, 1>>>: one thread scans all part totals in place.
template <class Word>
__global__ void scan_part_sums_kernel(Word* part_sums, std::int64_t parts) {
  Word acc = 0;
  for (std::int64_t p = 0; p < parts; ++p) {
    acc += part_sums[p];
    part_sums[p] = acc;
  }
}

// Thread t of the block adds the base of part p to element t of that part. Part 0 has base 0, so
// the loop starts at part 1.
template <class Word>
__global__ void add_base_kernel(const Word* part_sums, Word* out, std::int64_t n, std::int64_t parts) {
  for (std::int64_t part = 1 + blockIdx.x; part < parts; part += gridDim.x) {
    // 64-bit: the article computed this index in int32_t, which wraps past 2^31 elements.
    const std::int64_t i = part * kPartSize + threadIdx.x;
    if (i < n) out[i] += part_sums[part - 1];
  }
}

inline std::size_t part_count(std::size_t n) { return (n + kPartSize - 1) / kPartSize; }

inline unsigned block_count(std::size_t parts) {
  return static_cast<unsigned>(parts < kMaxBlocks ? parts : kMaxBlocks);
}

// ---- Chapters 05-09: the part sums scanned by one thread ---------------------------------------------

// One uint32 total per part.
inline std::size_t workspace_bytes(std::size_t n) { return part_count(n) * sizeof(std::uint32_t); }

// Enqueues the inclusive scan of n int32 on `stream`, with `scan_parts` as step 1; no allocation, no
// synchronisation. Every part total is written before it is read, so the workspace need not be zeroed.
template <ScanPartsKernel scan_parts>
void inclusive_scan(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                    cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t parts = part_count(n);
  const unsigned blocks = block_count(parts);
  // int32_t and uint32_t may alias each other (same type but for signedness), so the kernels can
  // work on the caller's int32 arrays through uint32 pointers.
  const auto* in = reinterpret_cast<const std::uint32_t*>(d_in);
  auto* out = reinterpret_cast<std::uint32_t*>(d_out);
  auto* part_sums = static_cast<std::uint32_t*>(d_workspace);
  const auto n64 = static_cast<std::int64_t>(n), parts64 = static_cast<std::int64_t>(parts);

  scan_parts<<<blocks, kPartSize, 0, stream>>>(in, out, part_sums, n64, parts64);
  TUT_CHECK_LAUNCH();
  scan_part_sums_kernel<std::uint32_t><<<1, 1, 0, stream>>>(part_sums, parts64);
  TUT_CHECK_LAUNCH();
  add_base_kernel<std::uint32_t><<<blocks, kPartSize, 0, stream>>>(part_sums, out, n64, parts64);
  TUT_CHECK_LAUNCH();
}

// ---- Chapters 10-12: the part sums scanned by this same algorithm (chapter 10's idea) --------------

// One uint32 total per part, for every level of the recursion: ceil(n / 1024) totals, then
// ceil(that / 1024) totals of those, ... down to a level with a single part.
inline std::size_t recursive_workspace_bytes(std::size_t n) {
  const std::size_t parts = part_count(n);
  return parts * sizeof(std::uint32_t) + (parts >= 2 ? recursive_workspace_bytes(parts) : 0);
}

// ScanThenFan on n uint32 (n >= 1); `in` and `out` may be the same array, as they are in the
// recursive calls, provided scan_parts reads each element before the same thread writes it back.
// `part_sums` has room for the totals of this level and of every level below.
template <ScanPartsKernel scan_parts>
void scan_then_fan_recursive(const std::uint32_t* in, std::uint32_t* out, std::size_t n, std::uint32_t* part_sums,
                             cudaStream_t stream) {
  const std::size_t parts = part_count(n);
  const unsigned blocks = block_count(parts);
  const auto n64 = static_cast<std::int64_t>(n), parts64 = static_cast<std::int64_t>(parts);

  scan_parts<<<blocks, kPartSize, 0, stream>>>(in, out, part_sums, n64, parts64);
  TUT_CHECK_LAUNCH();
  if (parts >= 2) {
    // The part totals are scanned by this same algorithm, in place; their own totals go right
    // after them in the workspace. Each level is 1024 times smaller, so this ends within a few
    // levels, at a level of one part.
    scan_then_fan_recursive<scan_parts>(part_sums, part_sums, parts, part_sums + parts, stream);
    add_base_kernel<std::uint32_t><<<blocks, kPartSize, 0, stream>>>(part_sums, out, n64, parts64);
    TUT_CHECK_LAUNCH();
  }
}

// Enqueues the inclusive scan of n int32 on `stream`, recursively; no allocation, no synchronisation.
// Every part total is written before it is read, so the workspace need not be zeroed.
template <ScanPartsKernel scan_parts>
void inclusive_scan_recursive(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                              cudaStream_t stream) {
  if (n == 0) return;
  // int32_t and uint32_t may alias each other (same type but for signedness), so the kernels can
  // work on the caller's int32 arrays through uint32 pointers.
  const auto* in = reinterpret_cast<const std::uint32_t*>(d_in);
  auto* out = reinterpret_cast<std::uint32_t*>(d_out);
  scan_then_fan_recursive<scan_parts>(in, out, n, static_cast<std::uint32_t*>(d_workspace), stream);
}

}  // namespace tut::scan_then_fan
