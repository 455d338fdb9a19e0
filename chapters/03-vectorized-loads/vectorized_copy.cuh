// Chapter 03: vectorised loads and stores.
// After "GPU programming in CUDA: optimising applications 3" (seed 001, UPV slides by Pedro Alonso),
// part 1 "vectorised reads", itself after NVIDIA's "CUDA Pro Tip: Increase Performance with Vectorized
// Memory Access". A device-to-device copy of int32 written three ways: one 32-bit load and store per
// element, one 64-bit (int2) per two elements, one 128-bit (int4) per four.
//
// Unlike the slides, the vector kernels accept any pointer into a buffer and any count:
//
//   src: | head (scalar) |  body: aligned Vec loads/stores ...  | tail (scalar) |
//        ^ src           ^ first sizeof(Vec)-aligned address      ^ head + vectors * kWidth
//
// A vector access must be naturally aligned (an int4 load at an address that is not a multiple of 16
// faults with "misaligned address"), so the head copies the up to kWidth-1 elements before the first
// aligned address one at a time, and the tail copies the up to kWidth-1 elements after the last whole
// vector. No thread ever issues a misaligned vector access. The precondition is that src and dst have
// the same alignment modulo sizeof(Vec); copy() below checks it and falls back to the scalar kernel.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"

namespace vectorized_copy {

using Element = std::int32_t;

// The number of int32 lanes of a vector type, checked against its size so that a new width cannot be
// added with the wrong count.
template <class Vec>
struct VectorWidth;
template <>
struct VectorWidth<int2> {
  static constexpr int value = 2;
};
template <>
struct VectorWidth<int4> {
  static constexpr int value = 4;
};
static_assert(sizeof(int2) == VectorWidth<int2>::value * sizeof(Element), "int2 is two int32 lanes");
static_assert(sizeof(int4) == VectorWidth<int4>::value * sizeof(Element), "int4 is four int32 lanes");
static_assert(alignof(int4) == 16 && alignof(int2) == 8, "vector types are naturally aligned");

__device__ __forceinline__ std::int64_t global_thread_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// Threads in the whole grid: the step of a grid-stride loop (64-bit: blocks * threads can pass 2^31).
__device__ __forceinline__ std::int64_t grid_threads() {
  return static_cast<std::int64_t>(gridDim.x) * blockDim.x;
}

// Elements from p up to the next multiple of `alignment` bytes (0 when p is already aligned).
// Elements are 4-byte aligned, so the distance is a whole number of elements.
__host__ __device__ __forceinline__ std::int64_t elements_to_alignment(const void* p, std::size_t alignment) {
  const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(p) % alignment;
  return misalignment == 0 ? 0 : static_cast<std::int64_t>((alignment - misalignment) / sizeof(Element));
}

// The slides' first kernel: a grid-stride loop of 32-bit loads and stores. Each iteration is one LDG
// and one STG (plus the address arithmetic), whatever the launch shape.
__global__ void copy_int32_kernel(const Element* __restrict__ src, Element* __restrict__ dst, std::int64_t n) {
  for (std::int64_t i = global_thread_index(); i < n; i += grid_threads()) dst[i] = src[i];
}

// The vector kernels' body. Requires: src and dst congruent modulo sizeof(Vec) (copy() checks it).
template <class Vec>
__device__ __forceinline__ void copy_vectorized(const Element* __restrict__ src, Element* __restrict__ dst,
                                                std::int64_t n) {
  constexpr int kWidth = VectorWidth<Vec>::value;
  const std::int64_t tid = global_thread_index();

  // Head: the elements before the first sizeof(Vec)-aligned address, one per thread (at most kWidth-1
  // threads work here; with --offset 0 and cudaMalloc'd buffers there are none).
  const std::int64_t to_alignment = elements_to_alignment(src, sizeof(Vec));
  const std::int64_t head = to_alignment < n ? to_alignment : n;
  if (tid < head) dst[tid] = src[tid];

  // Body: whole vectors only. src + head and dst + head are now sizeof(Vec)-aligned, so the casts are
  // legal vector accesses (128-bit LDG.E.128 / STG.E.128 for int4).
  const std::int64_t vectors = (n - head) / kWidth;
  const Vec* __restrict__ src_vec = reinterpret_cast<const Vec*>(src + head);
  Vec* __restrict__ dst_vec = reinterpret_cast<Vec*>(dst + head);
  for (std::int64_t v = tid; v < vectors; v += grid_threads()) dst_vec[v] = src_vec[v];

  // Tail: the up to kWidth-1 elements after the last whole vector, one per thread. The slides give the
  // whole tail to one thread in a loop; spreading it costs nothing and needs no loop.
  const std::int64_t tail_begin = head + vectors * kWidth;
  if (tid < n - tail_begin) dst[tail_begin + tid] = src[tail_begin + tid];
}

// Named, non-template kernels: the names show up as they are in ncu, in cuobjdump and in the PTX test.
__global__ void copy_int2_kernel(const Element* __restrict__ src, Element* __restrict__ dst, std::int64_t n) {
  copy_vectorized<int2>(src, dst, n);
}
__global__ void copy_int4_kernel(const Element* __restrict__ src, Element* __restrict__ dst, std::int64_t n) {
  copy_vectorized<int4>(src, dst, n);
}

// ---- Launch shapes ---------------------------------------------------------------------------------

enum class Width { int32 = 1, int2 = 2, int4 = 4 };

struct LaunchShape {
  unsigned blocks = 0;
  int threads = 0;
};

// The slides' launcher: 128 threads and ceil(items / 128) blocks, capped at MAX_BLOCKS (items: elements
// for the scalar kernel, vectors for the others). The slides never define MAX_BLOCKS; 65535 was the
// largest gridDim.x before compute capability 3.0, the usual origin of such a cap. Fixes the slides'
// int2 launcher, whose `threads = 128;` has no type and which takes `n` but uses `N`: here every
// width goes through this one typed function with one count.
constexpr int kSlidesThreads = 128;
constexpr std::int64_t kSlidesMaxBlocks = 65535;

inline LaunchShape slides_shape(std::int64_t n, Width w) {
  const std::int64_t items = (n + static_cast<int>(w) - 1) / static_cast<int>(w);
  const std::int64_t blocks = std::min((items + kSlidesThreads - 1) / kSlidesThreads, kSlidesMaxBlocks);
  return {static_cast<unsigned>(std::max<std::int64_t>(blocks, 1)), kSlidesThreads};
}

// The tuned launcher: 256 threads and at most as many blocks as can be resident at once
// (SMs x blocks per SM from the occupancy calculator), so that one wave covers the GPU and each
// thread loops. `resident_blocks` comes from query_resident_blocks(), called once before timing.
constexpr int kTunedThreads = 256;

inline LaunchShape tuned_shape(std::int64_t n, Width w, std::int64_t resident_blocks) {
  const std::int64_t items = (n + static_cast<int>(w) - 1) / static_cast<int>(w);
  const std::int64_t blocks = std::min((items + kTunedThreads - 1) / kTunedThreads, resident_blocks);
  return {static_cast<unsigned>(std::max<std::int64_t>(blocks, 1)), kTunedThreads};
}

// True when a vector of `w` lanes can be used for a copy between these two pointers: they must have the
// same alignment modulo the vector size, or no common head makes both aligned at once.
inline bool can_vectorize(const Element* src, const Element* dst, Width w) {
  const std::size_t bytes = static_cast<std::size_t>(w) * sizeof(Element);
  return reinterpret_cast<std::uintptr_t>(src) % bytes == reinterpret_cast<std::uintptr_t>(dst) % bytes;
}

// The kernel for a width and a pair of pointers. When src and dst differ in alignment modulo the vector
// size (e.g. src = buffer + 1, dst = buffer + 2), every vector would pair an aligned address on one side
// with a misaligned one on the other, so there is no vector path at all: fall back to 32-bit accesses.
// (Aligned loads plus shifts that realign the data in registers would handle it; beyond this chapter.)
using CopyKernel = void (*)(const Element*, Element*, std::int64_t);

inline CopyKernel kernel_for(const Element* src, const Element* dst, Width w) {
  if (w == Width::int32 || !can_vectorize(src, dst, w)) return copy_int32_kernel;
  return w == Width::int2 ? copy_int2_kernel : copy_int4_kernel;
}

inline Width width_of(CopyKernel k) {
  return k == copy_int4_kernel ? Width::int4 : k == copy_int2_kernel ? Width::int2 : Width::int32;
}

// Blocks of kTunedThreads that fit on the whole GPU at once, per kernel (they differ only if the
// kernels' register counts do). Asked once, before timing, because the occupancy calculator is a host
// call that the timed loop should not pay for.
struct ResidentBlocks {
  std::int64_t int32 = 1, int2 = 1, int4 = 1;
  std::int64_t of(Width w) const { return w == Width::int4 ? int4 : w == Width::int2 ? int2 : int32; }
};

inline ResidentBlocks query_resident_blocks() {
  int device = 0, sms = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  auto per_sm = [](CopyKernel k) {
    int blocks = 0;
    TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, kTunedThreads, 0));
    return std::max(blocks, 1);
  };
  ResidentBlocks r;
  r.int32 = static_cast<std::int64_t>(sms) * per_sm(copy_int32_kernel);
  r.int2 = static_cast<std::int64_t>(sms) * per_sm(copy_int2_kernel);
  r.int4 = static_cast<std::int64_t>(sms) * per_sm(copy_int4_kernel);
  return r;
}

enum class Shape { slides, tuned };

// Copies n elements from src to dst (any alignment, any n) with vectors of `w` lanes where the pointers
// allow it, launched with the slides' shape or the tuned one. Enqueues one kernel on `stream`.
inline void copy(const Element* src, Element* dst, std::int64_t n, Width w, Shape shape,
                 const ResidentBlocks& resident, cudaStream_t stream) {
  if (n == 0) return;
  const CopyKernel kernel = kernel_for(src, dst, w);
  const Width used = width_of(kernel);
  const LaunchShape s = shape == Shape::slides ? slides_shape(n, used) : tuned_shape(n, used, resident.of(used));
  kernel<<<s.blocks, s.threads, 0, stream>>>(src, dst, n);
  TUT_CHECK_LAUNCH();
}

}  // namespace vectorized_copy
