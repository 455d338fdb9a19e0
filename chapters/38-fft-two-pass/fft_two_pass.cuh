// Chapter 38: N past what one cluster holds (131072 .. 2^22) in TWO passes through global memory, each shaped
// like a copy. Chapter 35's four-step runs these lengths at about 0.37x cuFFT: its row kernel stores every value
// 8 bytes at a time, N1 values apart (a 32-byte sector written for 8 useful bytes), and it gives one row a block.
// Here both passes read and write whole sectors: every global access is part of a run of 8 or 16 adjacent
// complex values (64 or 128 bytes) that one warp issues together.
//
//   N = 8 .. 16384      chapter 36's stage, unchanged (chapter 35's stage up to 4096)
//   N = 32768, 65536    chapter 37's cluster kernel or the two passes below, as the stage's plan for this GPU
//                       chooses (stage_plan.cuh); on a GPU without clusters, the two passes
//   N = 131072 .. 2^22  fft_columns_kernel then fft_rows_kernel: the four-step N = N1 x N2
//
// The four-step (chapter 35's regime 3): x[j1 N2 + j2], j1 < N1 rows, j2 < N2 columns, k = k1 + N1 k2:
//   X[k1 + N1 k2] = sum_j2 W_N2^(j2 k2) [ W_N^(j2 k1) sum_j1 W_N1^(j1 k1) x[j1 N2 + j2] ]
// Pass 1 (fft_columns_kernel): a block takes W adjacent columns of one signal; each column's N1-point FFT
//   (chapter 35's block_fft: radix-E passes in registers, padded exchanges in shared memory), times the twiddle
//   W_N^(j2 k1), is stored where the column was: y[k1 N2 + j2]. Thread = t W + c (column c, its thread t), so a
//   warp's loads and stores are W-wide runs of one row.
// Pass 2 (fft_rows_kernel): a block takes W adjacent rows k1 of y (each contiguous: a warp reads 32 adjacent
//   values); each row's N2-point FFT; the outputs go through the rows' buffers in shared memory and leave
//   transposed, X[k1 + N1 k2] for W adjacent k1 at each k2: W-wide runs again.
// N1 = 2^floor(log2 N / 2), N2 = N / N1 (N1 <= N2 <= 2 N1): 256 x 512 at 131072, 1024 x 1024 at 2^20. The
// twiddle is folded into pass 1 and the transpose into pass 2's stores: no other kernel, and the intermediate y
// lives in the variant's workspace (batch x N complex values, allocated before any timing).
//
// Set-up (setup_fft_two_pass(), the variants' FftVariant::setup, once per device): the dynamic shared memory
// opt-in of every kernel, and chapter 37's (or, without clusters, chapter 36's) set-up for the shorter lengths.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "../37-fft-thread-block-cluster/fft_thread_block_cluster.cuh"  // chapters 37, 36 and 35
#include "cli.hpp"
#include "cuda_check.cuh"
#include "dispatch.hpp"
#include "setup_registry.cuh"
#include "two_pass_limits.hpp"  // the lengths and the shared-memory budget

namespace fft_two_pass {

using fft_tuned::ilog2;

// A launch shape for both passes: E values per thread, W sub-FFTs (columns in pass 1, rows in pass 2) per block
// (0: 16 where a block's buffers still let two blocks share an SM, else 8), and the blocks per SM whose threads
// the register cap must let fit (0: as many as shared memory and 2048 threads allow, at least 64 registers).
template <int kE, int kWidth = 0, int kMinBlocks = 0>
struct Shape {
  static constexpr int kValuesPerThread = kE;
  static constexpr int kTileWidth = kWidth;
  static constexpr int kMinBlocksPerSM = kMinBlocks;
};

// One pass's block: W sub-FFTs of length L (chapter 35's BlockPlan, T = L / E threads each), each in a padded
// buffer of L + L/E values plus one, so that W sub-FFTs at the same slot fall on different bank pairs (odd stride).
template <int L, class S>
struct TilePlan {
  static constexpr int E = S::kValuesPerThread;
  using Plan = fft_tuned::BlockPlan<L, E>;
  static constexpr int T = Plan::kThreads;
  static constexpr int kStride = Plan::kPaddedLength + 1;
  static constexpr std::size_t bytes_for(int width) { return static_cast<std::size_t>(width) * kStride * sizeof(float2); }
  static constexpr int W = S::kTileWidth != 0 ? S::kTileWidth : (bytes_for(16) <= kTwoBlocksShared ? 16 : 8);
  static constexpr int kThreads = W * T;
  static constexpr std::size_t kSharedBytes = bytes_for(W);
  // The register cap (__maxnreg__, as in chapters 36 and 37): what lets the blocks that shared memory and the
  // 2048 threads of an SM allow hold their threads, between 64 and 128, in steps of 8.
  static constexpr int kSharedBlocks = static_cast<int>(kSharedPerSM / (kSharedBytes + 1024));
  static constexpr int kThreadBlocks = 2048 / kThreads;
  static constexpr int kFit = kSharedBlocks < kThreadBlocks ? kSharedBlocks : kThreadBlocks;
  static constexpr int kBlocks = S::kMinBlocksPerSM > 0 ? S::kMinBlocksPerSM : (kFit > 1 ? kFit : 1);
  static constexpr int kRegisterRoom = 65536 / (kBlocks * kThreads) / 8 * 8;
  static constexpr int kMaxRegisters = kRegisterRoom < 64 ? 64 : (kRegisterRoom > 128 ? 128 : kRegisterRoom);

  static_assert(W == 8 || W == 16 || W == 32, "8, 16 or 32 sub-FFTs per block: 64- to 256-byte runs");
  static_assert(kThreads >= 32 && kThreads <= 1024 && kThreads % 32 == 0, "whole warps, at most 1024 threads");
  static_assert(65536 / kThreads >= 64, "64 registers per thread at least");
  static_assert(kSharedBytes <= static_cast<std::size_t>(kSharedBudget), "a block's buffers fit in 227 KiB");
};

// One pass at N = 2^kLog2n, split into N1 = 2^floor(log2 N / 2) rows x N2 = N / N1 columns: pass 1 (kRows false)
// runs N1-point FFTs down the N2 columns, pass 2 N2-point FFTs along the N1 rows; a block takes W of them, so a
// signal has kGroups blocks.
template <int kLog2n, class S, bool kRows>
struct Pass : TilePlan<(kRows ? (1 << kLog2n) >> (kLog2n / 2) : 1 << (kLog2n / 2)), S> {
  static constexpr int N = 1 << kLog2n, N1 = 1 << (kLog2n / 2), N2 = N / N1;
  static constexpr int kGroups = (kRows ? N1 : N2) / Pass::W;
};

// sm_75 gives a block at most 64 KiB of shared memory, and at the register caps above the 8-wide candidates
// spill there from 2^17: on sm_75 the two passes run up to 2^kSm75MaxLog2n only (the set-up refuses longer
// lengths with one line), so the longer lengths' bodies are not compiled for it (ptxas would only spill them).
constexpr int kSm75MaxLog2n = 16;
template <class P>
__host__ __device__ constexpr bool compiled_out_here() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  return P::kSharedBytes > 64 * 1024 || P::N > (1 << kSm75MaxLog2n);
#else
  return false;
#endif
}

// ---- Pass 1: column FFTs, twiddle, stored in place of the columns ------------------------------------------
// One block per W adjacent columns of one signal (grid: batch x N2 / W). Twiddles as chapter 35's stage computes
// them: per butterfly in a block FFT, by powers between the two passes.
template <int kLog2n, class S>
__global__ void __maxnreg__((Pass<kLog2n, S, false>::kMaxRegisters))
    fft_columns_kernel(const float2* __restrict__ in, float2* __restrict__ y) {
  using P = Pass<kLog2n, S, false>;
  if constexpr (compiled_out_here<P>()) {
    __trap();
  } else {
    using Plan = typename P::Plan;
    constexpr int N = P::N, N2 = P::N2, E = P::E, W = P::W;
    extern __shared__ __align__(16) float2 shared[];
    const long long signal = blockIdx.x / P::kGroups;
    const int c = threadIdx.x % W, t = threadIdx.x / W;  // a warp: W adjacent columns, 32 / W threads of each
    const int j2 = (blockIdx.x % P::kGroups) * W + c;
    const float2* src = in + signal * N + j2;
    float2* dst = y + signal * N + j2;
    float2 v[E];
#pragma unroll
    for (int i = 0; i < E; ++i) v[i] = src[fft_tuned::input_element<Plan>(t, i) * N2];
    fft_tuned::block_fft<Plan, fft_tuned::kStageTwiddles>(v, shared + c * P::kStride, t);
    // W_N^(j2 k1), j2 k1 < N, as the block FFT makes its twiddles (common/fft/pass_plan.cuh's twiddle_outputs)
    tut::fft::twiddle_outputs<Plan, fft_tuned::BlockTwiddle<fft_tuned::kStageTwiddles>>(v, t, j2, N);
#pragma unroll
    for (int i = 0; i < E; ++i) dst[fft_tuned::output_element<Plan>(t, i) * N2] = v[i];
  }
}

// ---- Pass 2: row FFTs, stored transposed through shared memory -----------------------------------------------
// One block per W adjacent rows k1 of one signal's y (grid: batch x N1 / W).
template <int kLog2n, class S>
__global__ void __maxnreg__((Pass<kLog2n, S, true>::kMaxRegisters))
    fft_rows_kernel(const float2* __restrict__ y, float2* __restrict__ out) {
  using P = Pass<kLog2n, S, true>;
  if constexpr (compiled_out_here<P>()) {
    __trap();
  } else {
    using Plan = typename P::Plan;
    constexpr int N = P::N, N1 = P::N1, N2 = P::N2, E = P::E, W = P::W;
    extern __shared__ __align__(16) float2 shared[];
    const long long signal = blockIdx.x / P::kGroups;
    const int k1_first = (blockIdx.x % P::kGroups) * W;
    const int r = threadIdx.x / P::T, t = threadIdx.x % P::T;  // a warp: adjacent values of one row
    const float2* src = y + signal * N + static_cast<long long>(k1_first + r) * N2;
    float2* row = shared + r * P::kStride;
    float2 v[E];
#pragma unroll
    for (int i = 0; i < E; ++i) v[i] = src[fft_tuned::input_element<Plan>(t, i)];
    fft_tuned::block_fft<Plan, fft_tuned::kStageTwiddles>(v, row, t);  // leaves the row's buffer free
    // The transpose: output k2 of row r into the buffer, then W adjacent rows (k1) at one k2 per run of stores.
#pragma unroll
    for (int i = 0; i < E; ++i) row[fft_tuned::padded<E>(fft_tuned::output_element<Plan>(t, i))] = v[i];
    __syncthreads();
    float2* dst = out + signal * N + k1_first;
#pragma unroll
    for (int m = 0; m < E; ++m) {  // W N2 values, E per thread
      const int e = static_cast<int>(threadIdx.x) + m * P::kThreads, rr = e % W, k2 = e / W;
      dst[k2 * N1 + rr] = shared[rr * P::kStride + fft_tuned::padded<E>(k2)];
    }
  }
}

// ---- Host side --------------------------------------------------------------------------------------------------
// The opt-in shared memory per block of the current device, in bytes.
inline int opt_in_shared_bytes() {
  int bytes = 0;
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, tut::current_device()));
  return bytes;
}

// The compute capability's major number of the current device (7 for sm_75).
inline int compute_major() {
  int major = 0;
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, tut::current_device()));
  return major;
}

// What set-up found on one device: which lengths' blocks fit in its shared memory (bit log2n).
struct TwoPassPlan {
  unsigned fits = 0;
};

// One configuration of the two kernels at the lengths 2^kFrom .. 2^kTo (only those are built). Its per-device
// record is written by set_up() and only read by launches.
template <class S, int kFrom = kFirstLog2n, int kTo = kLastLog2n>
struct TwoPass {
  static_assert(kFirstLog2n <= kFrom && kFrom <= kTo && kTo <= kLastLog2n, "lengths within 2^12 .. 2^22");
  static constexpr int kMinLog2n = kFrom, kMaxLog2n = kTo;
  using LaunchShape = S;
  template <int kLog2n>
  using ColumnTile = Pass<kLog2n, S, false>;
  template <int kLog2n>
  using RowTile = Pass<kLog2n, S, true>;

  // Workspace: the intermediate y, batch x N complex values.
  static std::size_t workspace_bytes(int log2n, long long batch) {
    return static_cast<std::size_t>(batch) * (std::size_t{1} << log2n) * sizeof(float2);
  }

  // Shared memory per block of the larger of the two kernels at 2^log2n (0 outside kFrom .. kTo).
  static std::size_t shared_bytes(int log2n) { return shared_bytes_from<kFrom>(log2n); }

  // Pass 1's and pass 2's widths W at 2^log2n (kFrom .. kTo; the stage's plan compares configurations: the same
  // widths build the same kernels).
  static std::pair<int, int> widths(int log2n) {
    std::pair<int, int> w{0, 0};
    tut::fft::dispatch_length<kFrom, kTo>(log2n, "fft_two_pass::TwoPass::widths", [&](auto n) {
      constexpr int k = ilog2(decltype(n)::value);
      w = {ColumnTile<k>::W, RowTile<k>::W};
    });
    return w;
  }

  // True when set-up found that the current device runs 2^log2n (its blocks fit; sm_75: up to 2^16).
  static bool runs(int log2n) {
    const TwoPassPlan* plan = plans().find(tut::current_device());
    return plan != nullptr && log2n >= kFrom && log2n <= kTo && ((plan->fits >> log2n) & 1u) != 0;
  }

  // The shared-memory opt-in of both kernels at every length whose blocks fit on the current device. Once per
  // device; a launch at a length that does not fit throws UsageError (the program's one line, exit 2).
  static void set_up() {
    plans().ensure([] {
      TwoPassPlan plan;
      set_up_from<kFrom>(plan, opt_in_shared_bytes(), compute_major() >= 8 ? kTo : kSm75MaxLog2n);
      return plan;
    });
  }

  // One batched FFT at 2^kFrom .. 2^kTo (throws std::invalid_argument otherwise, before any CUDA call). Needs
  // set_up() on this device first and the workspace of workspace_bytes(); enqueues two kernels on `stream`.
  static void launch(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                     cudaStream_t stream) {
    tut::fft::require_length("fft_two_pass::TwoPass::launch", log2n, kFrom, kTo);
    if (batch <= 0) return;
    const TwoPassPlan& plan = plans().require("fft_two_pass::TwoPass::launch", "setup_fft_two_pass");
    if (((plan.fits >> log2n) & 1u) == 0 && log2n > kSm75MaxLog2n && compute_major() < 8)
      throw tut::UsageError("the two-pass FFT at N = 2^" + std::to_string(log2n) + " needs compute capability 8.0 "
                            "or newer (this GPU runs it up to N = 2^" + std::to_string(kSm75MaxLog2n) + ")");
    if (((plan.fits >> log2n) & 1u) == 0)
      throw tut::UsageError("the two-pass FFT at N = 2^" + std::to_string(log2n) + " needs " +
                            std::to_string(shared_bytes(log2n) / 1024) + " KiB of shared memory per block; this GPU "
                            "gives at most " + std::to_string(opt_in_shared_bytes() / 1024) + " KiB");
    if (workspace == nullptr) throw std::invalid_argument("fft_two_pass::TwoPass::launch: no workspace");
    launch_from<kFrom>(in, out, log2n, batch, static_cast<float2*>(workspace), stream);
  }

 private:
  static tut::PerDevice<TwoPassPlan>& plans() {
    static tut::PerDevice<TwoPassPlan> p;
    return p;
  }

  template <int kLog2n>
  static std::size_t shared_bytes_from(int log2n) {
    if constexpr (kLog2n <= kTo) {
      if (log2n != kLog2n) return shared_bytes_from<kLog2n + 1>(log2n);
      const std::size_t columns = ColumnTile<kLog2n>::kSharedBytes, rows = RowTile<kLog2n>::kSharedBytes;
      return columns > rows ? columns : rows;
    } else {
      return 0;
    }
  }

  // max_log2n: the longest length this device runs (kSm75MaxLog2n below sm_80: see compiled_out_here).
  template <int kLog2n>
  static void set_up_from(TwoPassPlan& plan, int opt_in, int max_log2n) {
    if constexpr (kLog2n <= kTo) {
      if (kLog2n <= max_log2n && shared_bytes(kLog2n) <= static_cast<std::size_t>(opt_in)) {
        TUT_CUDA_CHECK(cudaFuncSetAttribute(fft_columns_kernel<kLog2n, S>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(ColumnTile<kLog2n>::kSharedBytes)));
        TUT_CUDA_CHECK(cudaFuncSetAttribute(fft_rows_kernel<kLog2n, S>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(RowTile<kLog2n>::kSharedBytes)));
        plan.fits |= 1u << kLog2n;
      }
      set_up_from<kLog2n + 1>(plan, opt_in, max_log2n);
    }
  }

  template <int kLog2n>
  static void launch_from(const float2* in, float2* out, int log2n, long long batch, float2* y, cudaStream_t stream) {
    if constexpr (kLog2n <= kTo) {
      if (log2n != kLog2n) return launch_from<kLog2n + 1>(in, out, log2n, batch, y, stream);
      using Columns = ColumnTile<kLog2n>;
      using Rows = RowTile<kLog2n>;
      const long long column_blocks = batch * Columns::kGroups, row_blocks = batch * Rows::kGroups;
      if (column_blocks > INT_MAX || row_blocks > INT_MAX)
        throw std::invalid_argument("fft_two_pass: a batch of " + std::to_string(batch) + " signals needs more than "
                                    "2^31 - 1 blocks");
      fft_columns_kernel<kLog2n, S><<<static_cast<unsigned>(column_blocks), Columns::kThreads, Columns::kSharedBytes,
                                      stream>>>(in, y);
      TUT_CHECK_LAUNCH();
      fft_rows_kernel<kLog2n, S><<<static_cast<unsigned>(row_blocks), Rows::kThreads, Rows::kSharedBytes, stream>>>(
          y, out);
      TUT_CHECK_LAUNCH();
    }
  }
};

// ---- The configurations: the stage's and the on-demand candidates' (one list, read by setup and main.cu) ----
// The stage's shape, picked by --variant all at 2^17 .. 2^20 (README "Variants"): E = 16 (chapter 35's four-step and chapter 37's stage), 16 columns or rows per block where two
// blocks still share an SM, else 8 (lengths 1024 and 2048: 16 rows of 1024 would take 136 KiB).
using StageTwoPass = TwoPass<Shape<16>>;
using W8 = TwoPass<Shape<16, 8>, 17, 20>;  // 64-byte runs everywhere: more, smaller blocks
// 128-byte runs everywhere: one 136 KiB block of 1024 threads per SM at length 1024. Not built at 2^20, where its
// column kernel spills at the 64 registers 1024 threads leave (4 bytes, CUDA 13.0).
using W16 = TwoPass<Shape<16, 16>, 17, 19>;
// (E = 32, radix-32 passes, is not a candidate: its row kernel spills 24-48 bytes even at 128 registers, CUDA 13.0.)

// The stage's per-device record: whether N = 32768 and 65536 run chapter 37's clusters.
struct StagePlan {
  bool clusters = false;
};

inline tut::PerDevice<StagePlan>& stage_plans() {
  static tut::PerDevice<StagePlan> p;
  return p;
}

// True when the current device runs chapter 37's stage cluster kernel at 2^log2n (15 or 16).
inline bool cluster_fits(int log2n) {
  return log2n == fft_cluster::kFirstLog2n ? fft_cluster::StageShort::fits(log2n) : fft_cluster::StageLong::fits(log2n);
}

// One-time set-up on the current device for every configuration above and for the shorter lengths' stages:
// chapter 37's set-up on a GPU whose clusters hold its stage, else chapter 36's and one line on stderr saying that
// N = 32768 and 65536 run two passes.
inline void setup_fft_two_pass() {
  stage_plans().ensure([] {
    StagePlan plan;
    plan.clusters = cluster_fits(fft_cluster::kFirstLog2n) && cluster_fits(fft_cluster::kLastLog2n);
    if (plan.clusters) {
      fft_cluster::setup_fft_cluster();
    } else {
      fft_one_block_large::setup_fft_one_block_large();
      std::fprintf(stderr,
                   "38-fft-two-pass: this GPU has no thread-block clusters that hold chapter 37's (sm_90 and newer): "
                   "N = 32768 and 65536 run the two-pass FFT\n");
    }
    StageTwoPass::set_up();
    W8::set_up();
    W16::set_up();
    return plan;
  });
}

// The stage, by length: chapter 36's stage up to 16384, chapter 37's clusters at 32768 and 65536 (two passes
// without them), two passes from 131072. Its workspace: the two passes' intermediate from 32768 (at 32768 and
// 65536 the plan may choose two passes over the clusters: stage_plan.cuh).
inline std::size_t stage_workspace_bytes(int log2n, long long batch) {
  if (log2n >= fft_cluster::kFirstLog2n) return StageTwoPass::workspace_bytes(log2n, batch);
  return fft_one_block_large::stage_workspace_bytes(log2n, batch);
}

inline void fft_two_pass(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                         cudaStream_t stream) {
  tut::fft::require_length("fft_two_pass::fft_two_pass", log2n, kMinLog2n, kMaxLog2n);
  if (log2n >= kStageFromLog2n) return StageTwoPass::launch(in, out, log2n, batch, workspace, stream);
  if (log2n == fft_cluster::kFirstLog2n || log2n == fft_cluster::kLastLog2n) {
    if (batch <= 0) return;
    if (stage_plans().require("fft_two_pass::fft_two_pass", "setup_fft_two_pass").clusters)
      return fft_cluster::fft_thread_block_cluster(in, out, log2n, batch, workspace, stream);
    return StageTwoPass::launch(in, out, log2n, batch, workspace, stream);
  }
  fft_one_block_large::fft_one_block_large(in, out, log2n, batch, workspace, stream);
}

}  // namespace fft_two_pass
