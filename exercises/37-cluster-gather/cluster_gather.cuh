// Exercise 37 (chapter 37-fft-thread-block-cluster): the gather through distributed shared memory (DSMEM) that
// replaces the four-step FFT's transpose inside a thread-block cluster. Needs sm_90 (Hopper) or newer: below it the
// kernel is not compiled (it traps) and the test skips with a message.
//
// A signal of N = 32768 or 65536 complex values, N1 rows x N2 columns (x[j1 N2 + j2]), is held by a cluster of C
// blocks. Block b first computes the column FFTs of its W = N2 / C columns j2 in [b W, b W + W), times the twiddle,
// into its column tile in shared memory; value (k1, j2) lands in block j2 / W at the slot
// fft_cluster::column_tile_slot<P>(k1, j2). After a cluster barrier, block b needs the R = N1 / C rows k1 in
// [b R, b R + R): row k1's values j2 = 0 .. N2 - 1 lie spread over all C blocks' tiles, and a block reads another's
// shared memory through cluster.map_shared_rank(pointer into its own shared memory, rank).
//
// Chapter 37's header is included unchanged: ClusterPlan (the shapes), column_tile_slot, the thread mappings,
// load_column, launch_config, and chapter 35's block FFT. The kernel below is chapter 37's fft_cluster_kernel with
// its gather in gather_row_dsmem(), the function to write.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <type_traits>

#include "../../chapters/37-fft-thread-block-cluster/fft_thread_block_cluster.cuh"  // chapter 37, unchanged
#include "fft/complex.cuh"

namespace cluster_gather {

namespace cg = cooperative_groups;

// Row k1's values j2 = fft_tuned::input_element<RowPlan>(t, i) (i < E) of one signal, into v, read from the column
// tiles of the cluster's blocks (shared: this block's dynamic shared memory; every block's tile has the same
// layout). Cluster is cg::cluster_group (a template parameter: the type exists only where clusters do).
template <class P, class Cluster>
__device__ __forceinline__ void gather_row_dsmem(const Cluster& cluster, float2* shared, int k1, int t,
                                                 float2 (&v)[P::E]) {
  // TODO: for each i < P::E: j2 = fft_tuned::input_element<typename P::RowPlan>(t, i); find where value (k1, j2)
  // lives (fft_cluster::column_tile_slot<P>(k1, j2): the block's rank and the slot in its shared memory) and read it
  // there through cluster.map_shared_rank(pointer, rank), which maps an address of this block's shared memory to the
  // same address in block `rank`'s. As shipped every value reads as 0: the gather never happens.
  (void)cluster, (void)shared, (void)k1, (void)t;
#pragma unroll
  for (int i = 0; i < P::E; ++i) v[i] = make_float2(0.0f, 0.0f);
}

// The stage's shapes (chapter 37): 8 blocks per cluster, 16 values per thread; 3 blocks per SM at 32768.
using ShortShape = fft_cluster::Shape<8, 16, 3>;
using LongShape = fft_cluster::Shape<8, 16>;
template <int N>
using ShapeOf = std::conditional_t<N == 32768, ShortShape, LongShape>;
constexpr int kMinLog2n = fft_cluster::kFirstLog2n, kMaxLog2n = fft_cluster::kLastLog2n;  // 32768, 65536

// Chapter 37's kernel with gather_row_dsmem (one cluster of C blocks per signal).
template <int N, class S>
__global__ void __maxnreg__((fft_cluster::ClusterPlan<N, S>::kMaxRegisters))
    cluster_fft_kernel(const float2* __restrict__ in, float2* __restrict__ out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using P = fft_cluster::ClusterPlan<N, S>;
  using ColumnPlan = typename P::ColumnPlan;
  using RowPlan = typename P::RowPlan;
  constexpr int E = P::E;
  extern __shared__ __align__(16) float2 shared[];
  const cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const long long signal = blockIdx.x / P::C;
  const float2* src = in + signal * N;
  float2* dst = out + signal * N;
  float2 v[E];
  {  // 1. column phase: column j2 = rank W + c, FFT, twiddle, into this block's column tile
    const int c = fft_cluster::column_of<P>(threadIdx.x), t = fft_cluster::column_thread<P>(threadIdx.x);
    const int j2 = rank * P::W + c;
    float2* column = shared + c * P::kColumnStride;
    fft_cluster::load_column<P>(src, j2, t, v);
    fft_tuned::block_fft<ColumnPlan, fft_tuned::kStageTwiddles>(v, column, t);
#pragma unroll
    for (int i = 0; i < E; ++i) {
      const int k1 = fft_tuned::output_element<ColumnPlan>(t, i);
      column[fft_tuned::padded<E>(k1)] = tut::fft::cmul(v[i], tut::fft::twiddle((j2 * k1) & (N - 1), N));
    }
  }
  cluster.sync();  // 2. every block's tile is written
  const int r = fft_cluster::row_of<P>(threadIdx.x);
  int t = fft_cluster::row_thread<P>(threadIdx.x);
  asm volatile("" : "+r"(t));  // as chapter 37: keeps the column phase's twiddles from living on
  const int k1 = rank * P::R + r;
  gather_row_dsmem<P>(cluster, shared, k1, t, v);  // 3. the gather under test
  cluster.sync();  // 4. nobody reads this block's tile any more: it is reused, and it must outlive remote reads
  fft_tuned::block_fft<RowPlan, fft_tuned::kStageTwiddles>(v, shared + P::kRowOffset + r * P::kRowStride, t);  // 5. row phase
#pragma unroll
  for (int i = 0; i < E; ++i) dst[k1 + P::N1 * fft_tuned::output_element<RowPlan>(t, i)] = v[i];
#else
  (void)in;
  (void)out;
  __trap();  // never launched: the test skips without clusters
#endif
}

// True when the current device runs both lengths with clusters (sm_90+, and the blocks' shared memory fits).
inline bool clusters_here() {
  return fft_cluster::clusters_supported() && fft_cluster::Cluster<ShortShape, 15, 15>::fits(15) &&
         fft_cluster::Cluster<LongShape, 16, 16>::fits(16);
}

// The shared-memory opt-in of both kernels on the current device. Once, before a launch.
inline void setup() {
  if (!clusters_here()) throw std::runtime_error("exercise 37 needs thread-block clusters (sm_90 or newer)");
  TUT_CUDA_CHECK(cudaFuncSetAttribute(cluster_fft_kernel<32768, ShortShape>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(fft_cluster::ClusterPlan<32768, ShortShape>::kSharedBytes)));
  TUT_CUDA_CHECK(cudaFuncSetAttribute(cluster_fft_kernel<65536, LongShape>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(fft_cluster::ClusterPlan<65536, LongShape>::kSharedBytes)));
}

template <int N>
void launch(const float2* in, float2* out, long long batch, cudaStream_t stream) {
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = fft_cluster::launch_config<N, ShapeOf<N>>(batch, stream, &attribute);
  TUT_CUDA_CHECK(cudaLaunchKernelEx(&config, cluster_fft_kernel<N, ShapeOf<N>>, in, out));
  TUT_CHECK_LAUNCH();
}

inline void forward(const float2* in, float2* out, int log2n, long long batch, void*, cudaStream_t stream) {
  tut::fft::require_length("cluster_gather::forward", log2n, kMinLog2n, kMaxLog2n);
  if (batch <= 0) return;
  if (log2n == 15) launch<32768>(in, out, batch, stream);
  else launch<65536>(in, out, batch, stream);
}

}  // namespace cluster_gather
