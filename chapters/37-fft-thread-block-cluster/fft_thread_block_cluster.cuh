// Chapter 37: N = 32768 and 65536, one signal per thread-block CLUSTER. A signal of 32768 complex floats is
// 256 KiB, more than one block's 227 KiB of shared memory; chapter 36's one-block kernel stops at 16384 and
// chapter 35's four-step goes through global memory twice. Hopper groups up to 8 blocks (portable limit) into a
// cluster whose blocks run at the same time on one GPC and read one another's shared memory (distributed
// shared memory, DSMEM). C blocks then hold one signal between them, and the four-step's transpose goes through
// DSMEM instead of global memory: one read and one write of global memory, like a copy.
//
//   N = 8 .. 16384     chapter 36's stage, unchanged (fft_one_block_large::fft_one_block_large)
//   N = 32768, 65536   fft_cluster_kernel<N, Shape>: the four-step N = N1 x N2 inside a cluster of C blocks
//   N = 131072 .. 2^20 chapter 35's four-step (until chapter 38)
//
// The four-step (chapter 35's regime 3): x[j1 N2 + j2], j1 < N1 rows, j2 < N2 columns, k = k1 + N1 k2:
//   X[k1 + N1 k2] = sum_j2 W_N2^(j2 k2) [ W_N^(j2 k1) sum_j1 W_N1^(j1 k1) x[j1 N2 + j2] ]
// Block b (its rank in the cluster) of the signal's cluster:
//   1. columns j2 in [b W, b W + W), W = N2 / C: loads them (W consecutive values per row: 256-byte runs for
//      W = 32), N1-point FFTs in registers (chapter 35's block_fft), times W_N^(j2 k1), into its column tile;
//   2. cluster barrier: every block's tile is written;
//   3. rows k1 in [b R, b R + R), R = N1 / C: gathers each row's N2 values from the C tiles through DSMEM
//      (consecutive threads: consecutive k1, consecutive slots of one remote tile: coalesced 8-byte reads);
//   4. cluster barrier: nobody reads this block's tile any more (it is reused, and a block's shared memory
//      must outlive every remote read of it);
//   5. N2-point FFTs along its rows, stores X[k1 + N1 k2] (R consecutive k1 per k2: 256-byte runs for R = 32).
// With kSplitBarrier the row phase has its own buffer: step 4 becomes an arrive right after the gather and a
// wait just before the block exits, so the barrier's latency hides behind the row FFTs (more shared memory).
//
// Set-up (setup_fft_cluster(), the variant's FftVariant::setup, once per device): the dynamic shared memory
// opt-in and cudaOccupancyMaxActiveClusters per configuration. A GPU without clusters (below sm_90), or one
// where a configuration's cluster cannot be resident, runs chapter 35's four-step instead, said once on stderr.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "../36-fft-one-block-large/fft_one_block_large.cuh"  // chapter 36's stage and, through it, chapter 35's
#include "cluster_residency.hpp"
#include "cuda_check.cuh"
#include "dispatch.hpp"

namespace fft_cluster {

namespace cg = cooperative_groups;
using fft_tuned::ilog2;

constexpr int kMinLog2n = 3, kMaxLog2n = 20;      // the stage: chapter 35's range
constexpr int kFirstLog2n = 15, kLastLog2n = 16;  // the lengths this chapter's kernel handles
constexpr int kSharedBudget = 227 * 1024;         // sm_90's opt-in shared memory per block

// A launch shape: C blocks per cluster, E values per thread in both phases (threads per block = N / (C E)),
// the blocks per SM whose threads the register cap must let fit (0: one), whether the row phase gets its
// own buffer (the split barrier above), and the twiddles, in the block FFTs and between the phases (chapter 35's
// stage's, or one sincospif per factor for the comparison).
template <int kC, int kE, int kMinBlocks = 0, bool kSplit = false, fft_tuned::Twiddles kTw = fft_tuned::kStageTwiddles>
struct Shape {
  static_assert(kTw != fft_tuned::Twiddles::kTable, "chapter 35's twiddle table needs its own set-up: not here");
  static constexpr int kClusterBlocks = kC;
  static constexpr int kValuesPerThread = kE;
  static constexpr int kMinBlocksPerSM = kMinBlocks;
  static constexpr bool kSplitBarrier = kSplit;
  static constexpr fft_tuned::Twiddles kTwiddles = kTw;
};

// Everything a configuration's kernel and launch derive from N and the shape. N1 = 2^floor(log2 N / 2) rows,
// N2 = N / N1 columns: 128 x 256 at N = 32768, 256 x 256 at 65536.
template <int N, class S>
struct ClusterPlan {
  static constexpr int C = S::kClusterBlocks, E = S::kValuesPerThread;
  static constexpr int N1 = 1 << (ilog2(N) / 2), N2 = N / N1;
  static constexpr int kSlice = N / C;        // values per block, in either phase
  static constexpr int W = N2 / C;            // columns per block
  static constexpr int R = N1 / C;            // rows per block
  static constexpr int kThreads = kSlice / E;
  using ColumnPlan = fft_tuned::BlockPlan<N1, E>;  // chapter 35's plan: N1-point FFTs, T1 = N1 / E threads
  using RowPlan = fft_tuned::BlockPlan<N2, E>;
  // Column c's padded buffer starts at c x kColumnStride, row r's at r x kRowStride: odd strides, so that a
  // half-warp (16 columns or 16 rows at the same slot) touches 16 different 8-byte bank pairs.
  static constexpr int kColumnStride = ColumnPlan::kPaddedLength + 1;
  static constexpr int kRowStride = RowPlan::kPaddedLength + 1;
  static constexpr int kColumnTile = W * kColumnStride;  // float2 values
  static constexpr int kRowTile = R * kRowStride;
  static constexpr int kRowOffset = S::kSplitBarrier ? kColumnTile : 0;  // where the row buffers start
  static constexpr int kSharedValues =
      S::kSplitBarrier ? kColumnTile + kRowTile : (kColumnTile > kRowTile ? kColumnTile : kRowTile);
  static constexpr std::size_t kSharedBytes = static_cast<std::size_t>(kSharedValues) * sizeof(float2);
  // The register cap (__maxnreg__, as in chapter 36): what lets kMinBlocksPerSM blocks hold their threads, at
  // most 128, in steps of 8. Left at 128, ptxas took all 128 at N = 65536 (512 threads: one block per SM by
  // registers, where shared memory lets three in).
  static constexpr int kBlocks = S::kMinBlocksPerSM > 1 ? S::kMinBlocksPerSM : 1;
  static constexpr int kRegisterRoom = 65536 / (kBlocks * kThreads) / 8 * 8;
  static constexpr int kMaxRegisters = kRegisterRoom < 128 ? kRegisterRoom : 128;

  static_assert(N == 32768 || N == 65536, "the cluster kernel handles N = 32768 and 65536");
  static_assert(C == 2 || C == 4 || C == 8, "2, 4 or 8 blocks per cluster (8: the portable maximum)");
  static_assert(W >= 16 && R >= 16, "at least 16 columns and rows per block: 128-byte runs in global memory");
  static_assert(W * ColumnPlan::kThreads == kThreads && R * RowPlan::kThreads == kThreads,
                "both phases keep every thread of the block busy");
  static_assert(kThreads >= 32 && kThreads <= 1024 && kThreads % 32 == 0, "whole warps, at most 1024 threads");
  static_assert(kSharedBytes <= static_cast<std::size_t>(kSharedBudget), "the block's tiles fit in 227 KiB");
};

// ---- The exchange's index math (host and device: the host test checks it) ------------------------------------
// Where value (k1, j2) of the column phase's output lives: block j2 / W, column tile slot (j2 mod W) x stride +
// padded(k1). The padding is chapter 35's (one slot after every E).
struct TileSlot {
  int rank;  // block of the cluster
  int slot;  // float2 index in that block's dynamic shared memory
};

template <class P>
__host__ __device__ constexpr TileSlot column_tile_slot(int k1, int j2) {
  return {j2 / P::W, (j2 % P::W) * P::kColumnStride + k1 + k1 / P::E};
}

// Thread mapping. Column phase: thread = t x W + c (column c of the block, its thread t): a warp holds 32
// consecutive columns at the same t, so loads are W-wide runs. Row phase: thread = t x R + r: a warp holds 32
// consecutive rows, so the DSMEM gather reads, and the stores write, R-wide runs.
template <class P>
__host__ __device__ constexpr int column_of(int thread) { return thread % P::W; }
template <class P>
__host__ __device__ constexpr int column_thread(int thread) { return thread / P::W; }
template <class P>
__host__ __device__ constexpr int row_of(int thread) { return thread % P::R; }
template <class P>
__host__ __device__ constexpr int row_thread(int thread) { return thread / P::R; }

// ---- The moves (device): the stage's and its lab's -----------------------------------------------------------
// Column phase load: column j2's values j1 = t + i T1 of one signal, straight from global memory (W-wide runs).
template <class P>
__device__ __forceinline__ void load_column(const float2* __restrict__ src, int j2, int t, float2 (&v)[P::E]) {
#pragma unroll
  for (int i = 0; i < P::E; ++i) v[i] = src[fft_tuned::input_element<typename P::ColumnPlan>(t, i) * P::N2 + j2];
}

// The gather: row k1's values j2 = t + i T2, each from the column tile of block j2 / W (DSMEM). Cluster is
// cg::cluster_group, a template parameter because that type exists only where clusters do (sm_90 and newer).
template <class P, class Cluster>
__device__ __forceinline__ void gather_row(const Cluster& cluster, float2* shared, int k1, int t, float2 (&v)[P::E]) {
#pragma unroll
  for (int i = 0; i < P::E; ++i) {
    const TileSlot at = column_tile_slot<P>(k1, fft_tuned::input_element<typename P::RowPlan>(t, i));
    v[i] = *cluster.map_shared_rank(shared + at.slot, at.rank);
  }
}

// ---- The kernel ----------------------------------------------------------------------------------------------
// One cluster of C blocks per signal (grid: batch x C blocks, cluster (C, 1, 1)). Twiddles S's, the stage's as chapter
// 35's stage computes them: per butterfly in a block FFT, by powers between the two (common/fft/pass_plan.cuh's
// twiddle_outputs).
template <int N, class S>
__global__ void __maxnreg__((ClusterPlan<N, S>::kMaxRegisters))
    fft_cluster_kernel(const float2* __restrict__ in, float2* __restrict__ out) {
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

  // 1. Column phase: column j2 = rank W + c, its values j1 = t + i T1 straight from global memory.
  {
    const int c = column_of<P>(threadIdx.x), t = column_thread<P>(threadIdx.x);
    const int j2 = rank * P::W + c;
    float2* column = shared + c * P::kColumnStride;
    load_column<P>(src, j2, t, v);
    fft_tuned::block_fft<ColumnPlan, S::kTwiddles>(v, column, t);  // leaves the column buffer free
    tut::fft::twiddle_outputs<ColumnPlan, fft_tuned::BlockTwiddle<S::kTwiddles>>(v, t, j2, N);  // W_N^(j2 k1)
#pragma unroll
    for (int i = 0; i < E; ++i) column[fft_tuned::padded<E>(fft_tuned::output_element<ColumnPlan>(t, i))] = v[i];
  }
  // 2. Every block's column tile written (a cluster barrier has release/acquire semantics for DSMEM).
  cluster.sync();

  // 3. Gather: row k1 = rank R + r, its values j2 = t + i T2 from the tiles of blocks j2 / W.
  const int r = row_of<P>(threadIdx.x);
  int t = row_thread<P>(threadIdx.x);
  // Where W = R (N = 65536) t equals the column phase's t, and the compiler keeps that phase's twiddles live
  // for the row FFT (about 30 registers all along: 716 bytes of spills at 64 registers). Hiding t's value
  // from it makes the row phase compute its own.
  asm volatile("" : "+r"(t));
  const int k1 = rank * P::R + r;
  gather_row<P>(cluster, shared, k1, t, v);
  // 4. No block reuses its tile (or exits) before every block's gather from it is done.
  if constexpr (S::kSplitBarrier) {
    cluster.barrier_arrive();
  } else {
    cluster.sync();
  }

  // 5. Row phase: N2-point FFT of row k1, output k2 to X[k1 + N1 k2].
  fft_tuned::block_fft<RowPlan, S::kTwiddles>(v, shared + P::kRowOffset + r * P::kRowStride, t);
#pragma unroll
  for (int i = 0; i < E; ++i) dst[k1 + P::N1 * fft_tuned::output_element<RowPlan>(t, i)] = v[i];
  if constexpr (S::kSplitBarrier) cluster.barrier_wait();
#else
  (void)in;
  (void)out;
  __trap();  // never launched: set-up sends GPUs without clusters to the four-step
#endif
}

// ---- Host side --------------------------------------------------------------------------------------------------
using fft_one_block_large::current_device;
using fft_one_block_large::kMaxDevices;

// True when the current device can launch thread-block clusters (sm_90 and newer).
inline bool clusters_supported() {
  int yes = 0;
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&yes, cudaDevAttrClusterLaunch, current_device()));
  return yes != 0;
}

template <int N, class S>
cudaLaunchConfig_t launch_config(long long batch, cudaStream_t stream, cudaLaunchAttribute* attribute) {
  using P = ClusterPlan<N, S>;
  attribute->id = cudaLaunchAttributeClusterDimension;
  attribute->val.clusterDim.x = P::C;
  attribute->val.clusterDim.y = 1;
  attribute->val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(batch * P::C));
  config.blockDim = dim3(P::kThreads);
  config.dynamicSmemBytes = P::kSharedBytes;
  config.stream = stream;
  config.attrs = attribute;
  config.numAttrs = 1;
  return config;
}

// One configuration of the kernel at the lengths 2^kFrom .. 2^kTo of 32768 and 65536 (only those kernels are
// built: a shape whose registers spill at one length leaves it out). Its per-device state is written by
// set_up() and only read by launches.
template <class S, int kFrom = kFirstLog2n, int kTo = kLastLog2n>
struct Cluster {
  static_assert(kFrom >= kFirstLog2n && kFrom <= kTo && kTo <= kLastLog2n, "lengths within 32768 .. 65536");
  static constexpr int kMinLog2n = kFrom, kMaxLog2n = kTo;
  template <int N>
  using Plan = ClusterPlan<N, S>;

  // True when the current device can run this configuration at 2^log2n: clusters, and the block's shared memory
  // within the opt-in limit. Asked before set-up too (the workload sizes the workspace first).
  static bool fits(int log2n) {
    if (log2n < kFrom || log2n > kTo) return false;
    int opt_in = 0;
    TUT_CUDA_CHECK(cudaDeviceGetAttribute(&opt_in, cudaDevAttrMaxSharedMemoryPerBlockOptin, current_device()));
    const std::size_t bytes = log2n == kFirstLog2n ? Plan<32768>::kSharedBytes : Plan<65536>::kSharedBytes;
    return clusters_supported() && static_cast<int>(bytes) <= opt_in;
  }

  // Workspace: none, unless this device runs chapter 35's four-step at this length instead.
  static std::size_t workspace_bytes(int log2n, long long batch) {
    return fits(log2n) ? 0 : fft_tuned::workspace_bytes(log2n, batch);
  }

  // The shared-memory opt-in and the occupancy query on the current device; returns the lengths (log2n bits)
  // that this device runs with chapter 35's four-step instead (fits() false). Throws when a configuration that
  // fits still cannot have one cluster resident (cudaOccupancyMaxActiveClusters 0).
  static unsigned set_up() {
    const int device = current_device();
    unsigned cannot = 0;
    if constexpr (kFrom == kFirstLog2n) cannot |= set_up_length<32768>(device) ? 0u : 1u << kFirstLog2n;
    if constexpr (kTo == kLastLog2n) cannot |= set_up_length<65536>(device) ? 0u : 1u << kLastLog2n;
    return cannot;
  }

  static const Residency& residency(int log2n) { return state()[current_device()][log2n - kFirstLog2n]; }

  // One batched FFT at N = 32768 or 65536 (throws otherwise). Needs set_up() on this device first.
  static void launch(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                     cudaStream_t stream) {
    tut::fft::require_length("fft_cluster::Cluster::launch", log2n, kFrom, kTo);
    if (batch <= 0) return;
    const Residency& here = residency(log2n);
    if (!here.ready)
      throw std::logic_error("37: setup_fft_cluster() was not called on this device before a launch");
    if (!here.fits) return fft_tuned::fft_tuned(in, out, log2n, batch, workspace, stream);  // set-up said so
    if constexpr (kFrom == kFirstLog2n) {
      if (log2n == kFirstLog2n) return launch_length<32768>(in, out, batch, stream);
    }
    if constexpr (kTo == kLastLog2n) launch_length<65536>(in, out, batch, stream);
  }

 private:
  static Residency (*state())[2] {
    static Residency s[kMaxDevices][2];
    return s;
  }

  template <int N>
  static bool set_up_length(int device) {
    Residency& here = state()[device][ilog2(N) - kFirstLog2n];
    here.ready = true;
    here.active_clusters = 0;
    here.fits = fits(ilog2(N));
    if (!here.fits) return false;
    TUT_CUDA_CHECK(cudaFuncSetAttribute(fft_cluster_kernel<N, S>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(Plan<N>::kSharedBytes)));
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config = launch_config<N, S>(1, 0, &attribute);
    TUT_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&here.active_clusters, fft_cluster_kernel<N, S>, &config));
    if (here.active_clusters == 0)
      throw std::runtime_error("37: a cluster of " + std::to_string(Plan<N>::C) + " blocks of " +
                               std::to_string(Plan<N>::kSharedBytes / 1024) + " KiB cannot be resident at N = " +
                               std::to_string(N) + " on this GPU (cudaOccupancyMaxActiveClusters: 0)");
    return true;
  }

  template <int N>
  static void launch_length(const float2* in, float2* out, long long batch, cudaStream_t stream) {
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config = launch_config<N, S>(batch, stream, &attribute);
    TUT_CUDA_CHECK(cudaLaunchKernelEx(&config, fft_cluster_kernel<N, S>, in, out));
    TUT_CHECK_LAUNCH();
  }
};

// ---- The configurations: the stage and the on-demand candidates (one list, read by setup and main.cu) -------
// The stage's shapes, kept by --variant all at N = 32768 and 65536 (README "Variants", "Measured"): C = 8 blocks of N / 8 values (32 / 64 KiB: several blocks per SM), E = 16, one shared tile; the
// register cap at 32768 lets three blocks of 256 threads in (80 registers, as ptxas took uncapped); at 65536
// (512 threads) the cap for two blocks, 64, spills (68 bytes, CUDA 13.0), so the stage takes 128 and one block.
using StageShort = Cluster<Shape<8, 16, 3>, kFirstLog2n, kFirstLog2n>;
using StageLong = Cluster<Shape<8, 16>, kLastLog2n, kLastLog2n>;
using C4 = Cluster<Shape<4, 16, 2>, kFirstLog2n, kFirstLog2n>;  // 4 blocks of 64 KiB (at 65536: 1024 threads, spills)
using C8E32 = Cluster<Shape<8, 32>, kFirstLog2n, kFirstLog2n>;  // E = 32 (radix 32 . 4 / 32 . 8); spills at 65536
using C8Split = Cluster<Shape<8, 16, 0, true>>;  // the row phase in its own buffer: the second barrier split
// The stage's shapes with one sincospif per twiddle, as before the stage computed them per butterfly and by powers
// (c8-sincospif).
using C8SincospifShort = Cluster<Shape<8, 16, 3, false, fft_tuned::Twiddles::kSincospif>, kFirstLog2n, kFirstLog2n>;
using C8SincospifLong = Cluster<Shape<8, 16, 0, false, fft_tuned::Twiddles::kSincospif>, kLastLog2n, kLastLog2n>;

// Two configurations as one launch at both lengths: Short's at 32768, Long's at 65536 (as the stage runs its two).
template <class Short, class Long>
struct ByLength {
  static_assert(Short::kMinLog2n == kFirstLog2n && Long::kMaxLog2n == kLastLog2n, "Short at 32768, Long at 65536");
  static constexpr int kMinLog2n = kFirstLog2n, kMaxLog2n = kLastLog2n;
  static std::size_t workspace_bytes(int log2n, long long batch) {
    return log2n == kFirstLog2n ? Short::workspace_bytes(log2n, batch) : Long::workspace_bytes(log2n, batch);
  }
  static void launch(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                     cudaStream_t stream) {
    tut::fft::require_length("fft_cluster::ByLength::launch", log2n, kFirstLog2n, kLastLog2n);
    if (log2n == kFirstLog2n) return Short::launch(in, out, log2n, batch, workspace, stream);
    Long::launch(in, out, log2n, batch, workspace, stream);
  }
};
using C8Sincospif = ByLength<C8SincospifShort, C8SincospifLong>;

// Runs fn(name, Config) for every configuration above (setup and the summary's residency table).
template <class F>
void for_each_configuration(F&& fn) {
  fn("fft-thread-block-cluster", StageShort{});
  fn("fft-thread-block-cluster", StageLong{});
  fn("c4", C4{});
  fn("c8-e32", C8E32{});
  fn("c8-split", C8Split{});
  fn("c8-sincospif", C8SincospifShort{});
  fn("c8-sincospif", C8SincospifLong{});
}

// One-time set-up on the current device for every configuration above and for chapter 36's stage (which the
// dispatcher calls below 32768). Prints one line on stderr when this GPU cannot run a cluster configuration;
// those launches run chapter 35's four-step (only where a block's shared memory exceeds the opt-in limit or
// the GPU has no clusters).
inline void setup_fft_cluster() {
  static bool done[kMaxDevices] = {};
  const int device = current_device();
  if (done[device]) return;
  fft_one_block_large::setup_fft_one_block_large();
  unsigned cannot = 0;
  for_each_configuration([&](const char*, auto config) { cannot |= decltype(config)::set_up(); });
  if (cannot && !clusters_supported())
    std::fprintf(stderr,
                 "37-fft-thread-block-cluster: this GPU has no thread-block clusters (sm_90 and newer): N = 32768 "
                 "and 65536 run chapter 35's four-step\n");
  else if (cannot)
    std::fprintf(stderr,
                 "37-fft-thread-block-cluster: some cluster configurations cannot be resident on this GPU at N = "
                 "%s (a block's shared memory above the opt-in limit): those launches run chapter 35's four-step\n",
                 (cannot >> kFirstLog2n) & 1u ? ((cannot >> kLastLog2n) & 1u ? "32768 and 65536" : "32768")
                                              : "65536");
  done[device] = true;
}

// The stage, by length: chapter 36's stage up to 16384, the cluster kernel at 32768 and 65536, chapter 35's
// four-step above.
inline std::size_t stage_workspace_bytes(int log2n, long long batch) {
  if (log2n == kFirstLog2n) return StageShort::workspace_bytes(log2n, batch);
  if (log2n == kLastLog2n) return StageLong::workspace_bytes(log2n, batch);
  return fft_one_block_large::stage_workspace_bytes(log2n, batch);
}

inline void fft_thread_block_cluster(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                                     cudaStream_t stream) {
  tut::fft::require_length("fft_cluster::fft_thread_block_cluster", log2n, kMinLog2n, kMaxLog2n);
  if (log2n == kFirstLog2n) return StageShort::launch(in, out, log2n, batch, workspace, stream);
  if (log2n == kLastLog2n) return StageLong::launch(in, out, log2n, batch, workspace, stream);
  fft_one_block_large::fft_one_block_large(in, out, log2n, batch, workspace, stream);
}

}  // namespace fft_cluster
