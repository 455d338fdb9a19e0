// Chapter 35: chapter 34 tuned for sm_90:
//   - padding in every shared-memory buffer (one float2 after every E values, E = values per thread), so that
//     the exchanges' strided writes hit 16 different bank pairs instead of one;
//   - 16-byte loads and stores for N = 8 and 16 (two complex values per access);
//   - the launch shape (values per thread E, threads per block: 256 for the stage, up from 128) as a template,
//     with the candidates kept as on-demand variants so that one GPU run picks the stage (see README.md).
//
//   N = 8, 16      one thread computes one signal in registers, 256 per block: fft_per_thread_kernel
//   N = 32..4096   S signals per block, T = N / E threads each, passes of radix E in registers (the last one
//                  of radix N / E^k), padded shared-memory exchanges: fft_block_kernel<N, Shape, kTw>
//   N >= 8192      four-step FFT as in chapter 34 (common/fft/four_step.cuh: fft_columns_kernel,
//                  fft_rows_kernel), running this block_fft with E = 16, padded
//
// Every FFT pass here is a Stockham autosort pass: see tut::fft::stockham_output_index in
// common/fft/dft_registers.cuh for where a pass of radix R reads and writes.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda_check.cuh"
#include "dft_registers.cuh"
#include "dispatch.hpp"
#include "four_step.cuh"
#include "pass_plan.cuh"
#include "twiddle_table.cuh"

namespace fft_tuned {

// From common/fft: complex arithmetic and twiddles by exact phase (complex.cuh), the R-point DFT in registers
// and the Stockham output position (dft_registers.cuh), the pass plan, one pass's butterflies and where
// values sit (pass_plan.cuh).
using tut::fft::butterflies;
using tut::fft::dft_in_registers;
using tut::fft::ilog2;
using tut::fft::input_element;  // input_element, output_element: also fft_tuned:: names for chapters 36-38
using tut::fft::load_direct;
using tut::fft::output_element;
using tut::fft::store_direct;
using tut::fft::stockham_output_index;
using tut::fft::twiddle;

// Where the in-block twiddles come from (exp(-2 pi i m / n) for m < n, the Twiddle of common/fft/pass_plan.cuh's
// butterflies):
//   kSincospif  one sincospif per factor on its exact phase, as in chapter 33 (some 20 instructions each);
//   kTable      the table of common/fft/twiddle_table.cuh, W_4096^m rounded once from double (n <= 4096), filled once
//               per device by the variant's setup (setup_twiddle_table), one L1 hit per factor;
//   kPowers     per butterfly, sincospif at the powers of two and products for the rest (complex.cuh's
//               twiddle_inputs): about log2(R) sincospif for a radix-R butterfly's R - 1 factors.
enum class Twiddles { kSincospif, kTable, kPowers };

inline const char* twiddles_name(Twiddles t) {
  return t == Twiddles::kTable ? "table" : t == Twiddles::kPowers ? "powers" : "sincospif";
}

template <Twiddles kTw>
struct BlockTwiddle : tut::fft::SincospifTwiddle {};
template <>
struct BlockTwiddle<Twiddles::kTable> {
  static __device__ __forceinline__ float2 at(int m, int n) { return tut::fft::table_twiddle(m, n); }
};
template <>
struct BlockTwiddle<Twiddles::kPowers> : tut::fft::PowersTwiddle {};

// ---- Padding ------------------------------------------------------------------------------------------------
// A 64-bit shared-memory access is served per half-warp: conflict-free when its 16 threads touch 16 different
// 8-byte bank pairs, i.e. different slots modulo 16. The exchange's writes go to slot t E + r for thread t
// (E = values per thread, a power of two): every thread of a half-warp on the same bank pair, a 16-way
// conflict. One slot of padding after every E slots makes that stride E + 1, odd: 16 different bank pairs. The
// reads (consecutive slots for consecutive threads) skip one slot every E, which costs at most one extra
// wavefront.
template <int E>
__device__ __forceinline__ int padded(int slot) {
  return slot + slot / E;
}
template <int N, int E>
constexpr int padded_length() {
  return N + N / E;
}

// ---- Regime 1: N = 8..64, one thread per signal, 16-byte accesses ---------------------------------------
// Signals per block: 256 up to N = 16 (the stage's), 4096 / N beyond (128 at N = 32, 64 at N = 64), so that the
// padded tile, signals x (N + 1) values, stays within 48 KiB of static shared memory (33 KiB at N = 32 and 64).
constexpr int kPerThreadBlock = 256;
constexpr int kPerThreadMaxLog2n = 6;  // N = 64: 128 registers of values per thread; 128 would need 256
template <int N>
__host__ __device__ constexpr int per_thread_signals() {
  return N <= 16 ? kPerThreadBlock : 4096 / N;
}

// The block's signals are contiguous: 16-byte loads (two complex values) fill a padded tile (signal s at
// s (N + 1), so that thread t's reads, at stride N + 1, are conflict-free), each thread transforms its own
// signal in registers and puts it back, and 16-byte stores write the tile out. kVector = false: 8-byte
// accesses, for buffers that are not 16-byte aligned.
template <int N, bool kVector>
__global__ void __launch_bounds__(per_thread_signals<N>()) fft_per_thread_kernel(const float2* __restrict__ in,
                                                                                float2* __restrict__ out,
                                                                                long long batch) {
  static_assert(N >= 8 && N <= (1 << kPerThreadMaxLog2n), "one thread per signal: N = 8..64");
  constexpr int kS = per_thread_signals<N>();
  __shared__ float2 tile[kS * (N + 1)];
  const long long first = static_cast<long long>(blockIdx.x) * kS;
  const int signals = static_cast<int>(min(static_cast<long long>(kS), batch - first));
  const int count = signals * N;  // complex values of this block (even)
  const float2* src = in + first * N;
  float2* dst = out + first * N;
  if (kVector) {
    const float4* src4 = reinterpret_cast<const float4*>(src);
#pragma unroll
    for (int i = 0; i < N / 2; ++i) {
      const int e = 2 * (i * kS + threadIdx.x);  // elements e and e + 1, same signal
      if (e < count) {
        const float4 pair = src4[e / 2];
        tile[padded<N>(e)] = make_float2(pair.x, pair.y);
        tile[padded<N>(e) + 1] = make_float2(pair.z, pair.w);
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const int e = i * kS + threadIdx.x;
      if (e < count) tile[padded<N>(e)] = src[e];
    }
  }
  __syncthreads();
  float2 v[N];
#pragma unroll
  for (int r = 0; r < N; ++r) v[r] = tile[threadIdx.x * (N + 1) + r];  // stride N + 1: conflict-free
  dft_in_registers<N>(v);
#pragma unroll
  for (int r = 0; r < N; ++r) tile[threadIdx.x * (N + 1) + r] = v[r];
  __syncthreads();
  if (kVector) {
    float4* dst4 = reinterpret_cast<float4*>(dst);
#pragma unroll
    for (int i = 0; i < N / 2; ++i) {
      const int e = 2 * (i * kS + threadIdx.x);
      if (e < count) {
        const float2 a = tile[padded<N>(e)], b = tile[padded<N>(e) + 1];
        dst4[e / 2] = make_float4(a.x, a.y, b.x, b.y);
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const int e = i * kS + threadIdx.x;
      if (e < count) dst[e] = tile[padded<N>(e)];
    }
  }
}

// ---- Regime 2: N = 32..4096, S signals per block, padded exchanges ---------------------------------------
// A launch shape: values per thread (kE = 0: the two-pass rule of chapter 34, E = 2^ceil(log2(N) / 2);
// otherwise E = min(kE, N / 2)), the threads a block aims at (S = kThreads / T signals, at least one, and at
// most 4096 / N so that a block's buffers stay within 36 KB of static shared memory), and the blocks per SM
// that __launch_bounds__ asks ptxas to fit (it caps registers at 65536 / (kMinBlocks x threads); 0: no ask), and
// whether the block's signals go between global and shared memory as one contiguous run of 16-byte accesses
// (kStaged: load_staged, store_staged) or each thread's values directly (load_direct, store_direct); staged, whether
// those accesses carry the streaming cache hint (kStreaming: ld.global.cs / st.global.cs, each byte is touched once).
template <int kE, int kThreads, int kMinBlocks = 0, bool kStaged = false, bool kStreaming = false>
struct Shape {
  static_assert(kStaged || !kStreaming, "the streaming hint is on the staged accesses");
  static constexpr int kValuesPerThread = kE;
  static constexpr int kBlockThreads = kThreads;
  static constexpr int kMinBlocksPerSM = kMinBlocks;
  static constexpr bool kStagedAccess = kStaged;
  static constexpr bool kStreamingHint = kStreaming;
  using Direct = Shape<kE, kThreads, kMinBlocks, false>;  // the same shape with direct accesses
};

// The passes of common/fft/pass_plan.cuh for E values per thread (radix E, then a last radix N / E^k), and the
// length of one signal's padded buffer. N up to 16384 (chapter 36's one-block kernel: T = N / E <= 1024); the
// static shared buffers of this chapter's kernels hold N <= 4096 (ShapePlan, the four-step's rows).
template <int N, int E>
struct BlockPlan : tut::fft::PassPlan<N, E> {
  static_assert(N >= 32 && N <= 16384 && (N & (N - 1)) == 0, "the block FFT handles N = 32..16384");
  static_assert(E >= 4 && E <= 64 && E < N && (E & (E - 1)) == 0, "E = 4..64 values per thread, fewer than N");
  static_assert(N / E <= 1024, "a signal's threads fit in one block");
  static constexpr int kPaddedLength = padded_length<N, E>();
};

template <int N, class S>
struct ShapePlan {
  static_assert(N <= 4096, "static shared memory: a block's buffers stay within 48 KiB");
  static constexpr int kE = S::kValuesPerThread == 0 ? 1 << ((ilog2(N) + 1) / 2)
                                                     : (S::kValuesPerThread < N / 2 ? S::kValuesPerThread : N / 2);
  using Plan = BlockPlan<N, kE>;
  static constexpr int kWanted = S::kBlockThreads / Plan::kThreads;
  static constexpr int kFit = 4096 / N;
  static constexpr int kSignals = kWanted < 1 ? 1 : (kWanted < kFit ? kWanted : kFit);
  static constexpr int kBlockThreads = kSignals * Plan::kThreads;
};

// The exchange between pass kPass (outputs in v) and kPass + 1 (inputs into v) through this signal's padded
// `buf`: every thread writes, barrier, every thread reads, barrier (the buffer is reused).
template <class Plan, int kPass>
__device__ __forceinline__ void exchange(float2* v, float2* buf, int t) {
  constexpr int E = Plan::kPerThread, T = Plan::kThreads, N = E * T;
  constexpr int Rw = Plan::radix(kPass), Nsw = Plan::stride(kPass), Rr = Plan::radix(kPass + 1);
  static_assert(Rw == E, "only the last pass may have a radix below E: one butterfly per thread");
#pragma unroll
  for (int r = 0; r < Rw; ++r) buf[padded<E>(stockham_output_index<Rw, Nsw>(t, r))] = v[r];
  __syncthreads();
#pragma unroll
  for (int b = 0; b < E / Rr; ++b)
#pragma unroll
    for (int r = 0; r < Rr; ++r) v[b * Rr + r] = buf[padded<E>(t + b * T + r * (N / Rr))];
  __syncthreads();
}

// The N-point FFT of one signal by its T threads t = 0..T-1. On entry v[i] holds element
// input_element(t, i), on return output element output_element(t, i). `buf` (kPaddedLength values) is free
// on return. Every thread of the block must call it (it has barriers).
template <class Plan, Twiddles kTw>
__device__ __forceinline__ void block_fft(float2 (&v)[Plan::kPerThread], float2* buf, int t) {
  butterflies<Plan, 0, BlockTwiddle<kTw>>(v, t);
  exchange<Plan, 0>(v, buf, t);
  butterflies<Plan, 1, BlockTwiddle<kTw>>(v, t);
  if constexpr (Plan::kPasses >= 3) {
    exchange<Plan, 1>(v, buf, t);
    butterflies<Plan, 2, BlockTwiddle<kTw>>(v, t);
  }
  if constexpr (Plan::kPasses >= 4) {
    exchange<Plan, 2>(v, buf, t);
    butterflies<Plan, 3, BlockTwiddle<kTw>>(v, t);
  }
  static_assert(Plan::kPasses <= 4, "at most four passes");
}

// The staged accesses: the block's `signals` (<= S) contiguous signals of N values at `src` / `dst`, 16-byte
// aligned, move as pairs of complex values, consecutive threads on consecutive 16 bytes (the whole run
// coalesced, as cudaMemcpy moves it), through the signals' padded buffers (signal s at s kPaddedLength, its
// element j at padded<E>(j)); each thread then takes its values from its signal's buffer. The direct accesses
// move only T x 8 bytes of one signal contiguously per warp instruction (32 bytes at N = 32). A pair never
// straddles a signal or an E-group of the padding (N and E even), so its second value sits in the next slot.
template <class SP>
__device__ __forceinline__ int staged_slot(int e) {  // element e of the block's run
  using Plan = typename SP::Plan;
  constexpr int N = Plan::kPerThread * Plan::kThreads;
  return (e / N) * Plan::kPaddedLength + padded<Plan::kPerThread>(e % N);
}

// v[i] = element input_element(t, i) of signal s (zeros where the signal does not exist). Every thread of the
// block calls it (barriers); on return buf is free again.
template <class SP, bool kStreaming>
__device__ __forceinline__ void load_staged(float2 (&v)[SP::Plan::kPerThread], float2* buf, const float2* src,
                                            int signals, int s, int t) {
  using Plan = typename SP::Plan;
  constexpr int E = Plan::kPerThread, N = E * Plan::kThreads, kPairs = SP::kSignals * N / 2;
  static_assert(kPairs % SP::kBlockThreads == 0, "every thread moves E / 2 pairs");
  const float4* src4 = reinterpret_cast<const float4*>(src);
  const int count = signals * N;
#pragma unroll
  for (int i = 0; i < kPairs / SP::kBlockThreads; ++i) {
    const int e = 2 * (i * SP::kBlockThreads + threadIdx.x);  // elements e and e + 1, same signal
    if (e < count) {
      const float4 pair = kStreaming ? __ldcs(src4 + e / 2) : src4[e / 2];
      buf[staged_slot<SP>(e)] = make_float2(pair.x, pair.y);
      buf[staged_slot<SP>(e) + 1] = make_float2(pair.z, pair.w);
    }
  }
  __syncthreads();
  const bool active = s < signals;
#pragma unroll
  for (int i = 0; i < E; ++i)
    v[i] = active ? buf[s * Plan::kPaddedLength + padded<E>(input_element<Plan>(t, i))] : make_float2(0.f, 0.f);
  __syncthreads();  // block_fft's first exchange overwrites buf
}

// Element output_element(t, i) of signal s = v[i], for the block's `signals` signals. Every thread of the block
// calls it (a barrier), with buf free (as block_fft leaves it).
template <class SP, bool kStreaming>
__device__ __forceinline__ void store_staged(const float2 (&v)[SP::Plan::kPerThread], float2* buf, float2* dst,
                                             int signals, int s, int t) {
  using Plan = typename SP::Plan;
  constexpr int E = Plan::kPerThread, N = E * Plan::kThreads, kPairs = SP::kSignals * N / 2;
#pragma unroll
  for (int i = 0; i < E; ++i) buf[s * Plan::kPaddedLength + padded<E>(output_element<Plan>(t, i))] = v[i];
  __syncthreads();
  float4* dst4 = reinterpret_cast<float4*>(dst);
  const int count = signals * N;
#pragma unroll
  for (int i = 0; i < kPairs / SP::kBlockThreads; ++i) {
    const int e = 2 * (i * SP::kBlockThreads + threadIdx.x);
    if (e < count) {
      const float2 a = buf[staged_slot<SP>(e)], b = buf[staged_slot<SP>(e) + 1];
      if (kStreaming)
        __stcs(dst4 + e / 2, make_float4(a.x, a.y, b.x, b.y));
      else
        dst4[e / 2] = make_float4(a.x, a.y, b.x, b.y);
    }
  }
}

// S signals per block, T threads each (thread s T + t: signal s, its thread t). A last block with fewer
// signals still runs every thread through the barriers; the missing signals neither load nor store.
template <int N, class S, Twiddles kTw>
__global__ void __launch_bounds__(ShapePlan<N, S>::kBlockThreads, S::kMinBlocksPerSM) fft_block_kernel(const float2* __restrict__ in,
                                                                                  float2* __restrict__ out,
                                                                                  long long batch) {
  using SP = ShapePlan<N, S>;
  using Plan = typename SP::Plan;
  constexpr int E = Plan::kPerThread, T = Plan::kThreads;
  __shared__ float2 buf[SP::kSignals * Plan::kPaddedLength];
  const int s = threadIdx.x / T, t = threadIdx.x % T;
  float2 v[E];
  if constexpr (S::kStagedAccess) {
    const long long first = static_cast<long long>(blockIdx.x) * SP::kSignals;
    const int signals = static_cast<int>(min(static_cast<long long>(SP::kSignals), batch - first));
    load_staged<SP, S::kStreamingHint>(v, buf, in + first * N, signals, s, t);
    block_fft<Plan, kTw>(v, buf + s * Plan::kPaddedLength, t);
    store_staged<SP, S::kStreamingHint>(v, buf, out + first * N, signals, s, t);
  } else {
    const long long signal = static_cast<long long>(blockIdx.x) * SP::kSignals + s;
    const bool active = signal < batch;
    load_direct<Plan>(v, in + signal * N, active, t);
    block_fft<Plan, kTw>(v, buf + s * Plan::kPaddedLength, t);
    store_direct<Plan>(v, out + signal * N, active, t);
  }
}

// ---- Regime 3: N >= 8192, four-step FFT through global memory (chapter 34's, E = 16, padded) ------------
// common/fft/four_step.cuh's column and row kernels, running block_fft with E = 16 on N1 = max(64, N / 4096)
// columns and N2 = N / N1 rows (N1 = 64..256, N2 = 128..4096), in padded buffers: one slot after every 16,
// and an odd column stride in the column tile, so that its row-wise transposes are conflict-free.
constexpr int kFourStepE = 16;

template <Twiddles kTw>
struct FourStepFft {
  template <int N>
  using Plan = BlockPlan<N, kFourStepE>;
  using Twiddle = BlockTwiddle<kTw>;  // W_N^(j2 k1) by powers too where kTw = kPowers (four_step.cuh)
  static constexpr int kMinColumnLog2n = 6;
  template <int N>
  __host__ __device__ static constexpr int buffer_length() { return Plan<N>::kPaddedLength; }
  template <int N>
  __host__ __device__ static constexpr int column_stride() { return Plan<N>::kPaddedLength + 1; }
  static __device__ __forceinline__ int slot(int element) { return padded<kFourStepE>(element); }
  template <int N>
  static __device__ __forceinline__ void run(float2 (&v)[kFourStepE], float2* buf, int t) {
    block_fft<Plan<N>, kTw>(v, buf, t);
  }
};

// ---- Host side ---------------------------------------------------------------------------------------------
constexpr int kMinLog2n = 3, kMaxLog2n = tut::fft::kFourStepMaxLog2n;
constexpr int kMaxBlockLog2n = tut::fft::kFourStepMaxBlockLog2n;  // N <= 4096 in one block

// Workspace: the four-step intermediate, batch N complex values (none for N <= 4096).
inline std::size_t workspace_bytes(int log2n, long long batch) {
  return tut::fft::four_step_workspace_bytes(log2n, batch);
}

// A staged shape on buffers that are not 16-byte aligned runs its direct twin (8-byte accesses).
template <int N, class S, Twiddles kTw>
void launch_block(const float2* in, float2* out, long long batch, cudaStream_t stream) {
  if constexpr (S::kStagedAccess) {
    if (((reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) % 16) != 0)
      return launch_block<N, typename S::Direct, kTw>(in, out, batch, stream);
  }
  using SP = ShapePlan<N, S>;
  const long long blocks = (batch + SP::kSignals - 1) / SP::kSignals;
  fft_block_kernel<N, S, kTw><<<static_cast<unsigned>(blocks), SP::kBlockThreads, 0, stream>>>(in, out, batch);
  TUT_CHECK_LAUNCH();
}

template <class S, Twiddles kTw>
void launch_signals_per_block(const float2* in, float2* out, int log2n, long long batch, cudaStream_t stream) {
  tut::fft::dispatch_length<5, kMaxBlockLog2n>(
      log2n, "fft_tuned::launch_signals_per_block",
      [&](auto n) { launch_block<decltype(n)::value, S, kTw>(in, out, batch, stream); });
}

template <int N>
void launch_per_thread(const float2* in, float2* out, long long batch, cudaStream_t stream) {
  constexpr int kS = per_thread_signals<N>();
  const unsigned blocks = static_cast<unsigned>((batch + kS - 1) / kS);
  const bool aligned = ((reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) % 16) == 0;
  if (aligned)
    fft_per_thread_kernel<N, true><<<blocks, kS, 0, stream>>>(in, out, batch);
  else
    fft_per_thread_kernel<N, false><<<blocks, kS, 0, stream>>>(in, out, batch);
  TUT_CHECK_LAUNCH();
}

// "fft_tuned::fft<E=16, 256 threads, min 3 blocks/SM, table>": which candidate, in error messages (E=0: the
// two-pass rule). Built only when one is thrown.
template <class S, Twiddles kTw>
std::string variant_label() {
  return "fft_tuned::fft<E=" + std::to_string(S::kValuesPerThread) + ", " + std::to_string(S::kBlockThreads) +
         " threads, min " + std::to_string(S::kMinBlocksPerSM) + " blocks/SM, " + twiddles_name(kTw) +
         (S::kStagedAccess ? ", staged" : "") + (S::kStreamingHint ? ", streaming" : "") + ">";
}

// The three regimes behind one entry point, for one launch shape S of the block regime. kTw = kTable: in-block
// twiddles from the table, which the variant's setup must have filled on this device (main.cu); the launch
// only checks.
template <class S, Twiddles kTw = Twiddles::kTable>
void fft(const float2* in, float2* out, int log2n, long long batch, void* workspace, cudaStream_t stream) {
  if (log2n < kMinLog2n || log2n > kMaxLog2n)
    tut::fft::throw_unsupported_length(variant_label<S, kTw>().c_str(), log2n, kMinLog2n, kMaxLog2n);
  if (batch <= 0) return;
  if (log2n == 3) return launch_per_thread<8>(in, out, batch, stream);
  if (log2n == 4) return launch_per_thread<16>(in, out, batch, stream);
  if (kTw == Twiddles::kTable && !tut::fft::twiddle_table_filled())
    tut::fft::throw_twiddle_table_missing(variant_label<S, kTw>());
  if (log2n <= kMaxBlockLog2n) return launch_signals_per_block<S, kTw>(in, out, log2n, batch, stream);
  tut::fft::launch_four_step<FourStepFft<kTw>>(in, out, log2n, batch, static_cast<float2*>(workspace), stream,
                                                  "fft_tuned::launch_four_step");
}

// fft<S, kTw> with one thread per signal up to N = 64 (fft_per_thread_kernel at N = 32 and 64 too).
template <class S, Twiddles kTw = Twiddles::kTable>
void fft_per_thread_to_64(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                          cudaStream_t stream) {
  if (batch > 0 && log2n == 5) return launch_per_thread<32>(in, out, batch, stream);
  if (batch > 0 && log2n == 6) return launch_per_thread<64>(in, out, batch, stream);
  fft<S, kTw>(in, out, log2n, batch, workspace, stream);
}

// The stage, chosen by measurement per length (H200, 2026-11-23, README "Variants measured"). Up to N = 1024:
// chapter 34's two-pass plan (E = 8..64 values per thread, so every N = 64..1024 takes two passes) in blocks of up
// to 256 threads, with twiddles from sincospif; against the first candidate stage (E = 16, the table) it was 0.92x
// instead of 0.78x cuFFT at N = 64 (the plan), and sincospif instead of the table 1.01x instead of 0.76x at
// N = 256. At N = 2048 and 4096 two passes need 32 and 64 values per thread, and radix-16 passes (E = 16, three of
// them) with sincospif were faster: 0.88x cuFFT against the two-pass plan's 0.69x and 0.72x in one run, 0.84x as
// the stage in the next (README "The stage by length"). There the H200 showed the stage issue-bound (ncu at N = 2048:
// issue slots 75% busy, DRAM 75%), with a sincospif per twiddle a third of its instructions: the twiddles are now
// computed per butterfly (kPowers), log2(R) sincospif for R - 1 factors (README "Twiddles per butterfly").
using StageShape = Shape<0, 256>;
using StageShapeLong = Shape<16, 256>;  // N = 2048, 4096
// Plan candidates up to N = 1024 (stage_plan.cuh): the stage's shape with staged 16-byte accesses, and one thread
// per signal up to N = 64 (fft_per_thread_to_64).
using StagedShape = Shape<0, 256, 4, true>;  // at most 64 registers: 4 blocks of 256 per SM (N = 128: 79 without)
using StagedStreamingShape = Shape<0, 256, 4, true, true>;
using StageShapeThreeBlocks = Shape<0, 256, 3>;  // the stage's shape, at most 85 registers
constexpr int kStageLongFromLog2n = 11;
constexpr Twiddles kStageTwiddles = Twiddles::kPowers;

inline void fft_tuned(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                      cudaStream_t stream) {
  if (log2n >= kStageLongFromLog2n && log2n <= kMaxBlockLog2n)
    return fft<StageShapeLong, kStageTwiddles>(in, out, log2n, batch, workspace, stream);
  fft<StageShape, kStageTwiddles>(in, out, log2n, batch, workspace, stream);
}

}  // namespace fft_tuned
