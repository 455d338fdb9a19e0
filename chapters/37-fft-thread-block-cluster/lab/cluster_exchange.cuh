// Chapter 37's lab: the stage's cluster exchange with every FFT operation removed, to measure the design's
// ceiling. cluster_exchange_kernel<N, S> is fft_cluster_kernel<N, S> (../fft_thread_block_cluster.cuh) minus the
// column FFTs, the twiddles and the row FFTs: the same plan, launch, shared memory, register cap, thread
// mappings, global loads, tile slots, DSMEM gather, cluster barriers and store pattern. What is left moves each
// signal x (N1 rows x N2 columns, x[j1 N2 + j2]) to its transpose:
//   out[k1 + N1 j2] = x[k1 N2 + j2]        (N1 x N2 = 128 x 256 at N = 32768, 256 x 256 at 65536)
// one read and one write of global memory, like the stage: its share of cudaMemcpy is what the stage could
// reach with free butterflies.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "../fft_thread_block_cluster.cuh"
#include "cuda_check.cuh"

namespace fft_cluster_lab {

namespace cg = cooperative_groups;
using fft_cluster::ClusterPlan;

// Per signal (one cluster of C blocks; grid: batch x C blocks), the stage's steps without the arithmetic.
template <int N, class S>
__global__ void __maxnreg__((ClusterPlan<N, S>::kMaxRegisters))
    cluster_exchange_kernel(const float2* __restrict__ in, float2* __restrict__ out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using P = ClusterPlan<N, S>;
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

  // 1. Column phase: column j2 = rank W + c, its values j1 = t + i T1 (the stage's loads), into the column
  //    tile at padded(j1), where the stage puts its FFT output k1.
  {
    const int c = fft_cluster::column_of<P>(threadIdx.x), t = fft_cluster::column_thread<P>(threadIdx.x);
    const int j2 = rank * P::W + c;
    float2* column = shared + c * P::kColumnStride;
    fft_cluster::load_column<P>(src, j2, t, v);
#pragma unroll
    for (int i = 0; i < E; ++i) column[fft_tuned::padded<E>(fft_tuned::input_element<ColumnPlan>(t, i))] = v[i];
  }
  // 2. Every block's column tile written.
  cluster.sync();

  // 3. Gather (the stage's): row k1 = rank R + r, its values j2 = t + i T2 from the tiles of blocks j2 / W.
  const int r = fft_cluster::row_of<P>(threadIdx.x), t = fft_cluster::row_thread<P>(threadIdx.x);
  const int k1 = rank * P::R + r;
  fft_cluster::gather_row<P>(cluster, shared, k1, t, v);
  // 4. The stage's second barrier: no block exits while another still reads its tile (split: arrive now,
  //    wait after the stores).
  if constexpr (S::kSplitBarrier) {
    cluster.barrier_arrive();
  } else {
    cluster.sync();
  }

  // 5. Store (the stage's pattern, R consecutive k1 per j2): value j2 of row k1 to out[k1 + N1 j2].
#pragma unroll
  for (int i = 0; i < E; ++i) dst[k1 + P::N1 * fft_tuned::input_element<RowPlan>(t, i)] = v[i];
  if constexpr (S::kSplitBarrier) cluster.barrier_wait();
#else
  (void)in;
  (void)out;
  __trap();  // never launched: set_up() refuses GPUs without clusters
#endif
}

// The shape S of one of the chapter's configurations (fft_cluster::Cluster<S, ...>).
template <class Config>
struct shape_of;
template <class S, int kFrom, int kTo>
struct shape_of<fft_cluster::Cluster<S, kFrom, kTo>> {
  using type = S;
};

// The exchange at one length and shape: its one-time set-up per device and its launch (the stage's launch
// configuration, fft_cluster::launch_config).
template <int N, class S>
struct Exchange {
  using Plan = ClusterPlan<N, S>;
  static constexpr int kLog2n = fft_tuned::ilog2(N);

  // Clusters resident at once on the current device (cudaOccupancyMaxActiveClusters); 0: not set up there.
  static int active_clusters() { return active()[fft_cluster::current_device()]; }

  // Once per device, before anything is timed: the dynamic shared memory opt-in and the occupancy query.
  // Throws (one line) where the GPU has no clusters or cannot hold one cluster of this configuration.
  static void set_up() {
    int& resident = active()[fft_cluster::current_device()];
    if (resident > 0) return;
    if (!fft_cluster::clusters_supported())
      throw std::runtime_error("this GPU has no thread-block clusters (sm_90 and newer): the cluster exchange "
                               "cannot run here");
    TUT_CUDA_CHECK(cudaFuncSetAttribute(cluster_exchange_kernel<N, S>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(Plan::kSharedBytes)));
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config = fft_cluster::launch_config<N, S>(1, 0, &attribute);
    TUT_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&resident, cluster_exchange_kernel<N, S>, &config));
    if (resident == 0)
      throw std::runtime_error("a cluster of " + std::to_string(Plan::C) + " blocks of " +
                               std::to_string(Plan::kSharedBytes / 1024) + " KiB cannot be resident at N = " +
                               std::to_string(N) + " on this GPU (cudaOccupancyMaxActiveClusters: 0)");
  }

  // `batch` signals of N values, in to out (out-of-place). Needs set_up() on this device first.
  static void launch(const float2* in, float2* out, long long batch, cudaStream_t stream) {
    if (active_clusters() == 0)
      throw std::logic_error("37 lab: Exchange<N, S>::set_up() was not called on this device before a launch");
    if (batch <= 0) return;
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config = fft_cluster::launch_config<N, S>(batch, stream, &attribute);
    TUT_CUDA_CHECK(cudaLaunchKernelEx(&config, cluster_exchange_kernel<N, S>, in, out));
    TUT_CHECK_LAUNCH();
  }

 private:
  static int* active() {
    static int resident[fft_cluster::kMaxDevices] = {};
    return resident;
  }
};

// Calls fn(name, Exchange<N, S>{}) for each length N the chapter's configuration Config is built for.
template <class Config, class F>
void for_each_length(const char* name, F& fn) {
  using S = typename shape_of<Config>::type;
  if constexpr (Config::kMinLog2n <= fft_cluster::kFirstLog2n) fn(name, Exchange<32768, S>{});
  if constexpr (Config::kMaxLog2n >= fft_cluster::kLastLog2n) fn(name, Exchange<65536, S>{});
}

// Every exchange configuration: the chapter's configurations (fft_cluster::for_each_configuration), one lab
// variant each, at the lengths the chapter builds them for.
template <class F>
void for_each_exchange(F&& fn) {
  for_each_length<fft_cluster::StageShort>("exchange-c8", fn);  // the stage's shape: 32768
  for_each_length<fft_cluster::StageLong>("exchange-c8", fn);   // and 65536
  for_each_length<fft_cluster::C4>("exchange-c4", fn);
  for_each_length<fft_cluster::C8E32>("exchange-c8-e32", fn);
  for_each_length<fft_cluster::C8Split>("exchange-c8-split", fn);
}

}  // namespace fft_cluster_lab
