// Chapter 36: N = 8192 and 16384 in ONE block. Chapter 35 runs these lengths as a four-step FFT through global
// memory (two kernels, twice a copy's traffic); Hopper lets a block opt in to 227 KiB of dynamic shared memory,
// so a whole signal of 16384 complex floats (128 KiB) fits, and the transform reads and writes global memory
// once, like a copy.
//
//   N = 8 .. 4096      chapter 35's stage, unchanged (fft_tuned::fft_tuned)
//   N = 8192, 16384    fft_one_block_kernel<N, Shape, kStagedIo>: T = N / E threads per signal, S signals per
//                      block, passes of radix E in registers (the last of radix N / E^k), padded exchanges in
//                      dynamic shared memory: chapter 35's block_fft on a plan with N up to 16384
//   N = 32768 .. 2^20  chapter 35's four-step (until chapters 37 and 38)
//
// The kernels need more than the 48 KiB of shared memory a block gets by default: setup_fft_one_block_large()
// opts them in once per device (cudaFuncSetAttribute), outside every launch and every timing. On a GPU whose
// opt-in limit is below what a configuration needs (sm_75: 64 KiB, sm_86: 99 KiB against 132 KiB for
// N = 16384), that configuration's launches run chapter 35's four-step instead, and setup says so in one line.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "../35-fft-tuned/fft_tuned.cuh"  // the building blocks: block_fft, padded, dft_in_registers, twiddles
#include "cuda_check.cuh"

namespace fft_one_block_large {

constexpr int kMinLog2n = 3, kMaxLog2n = 20;              // the stage: chapter 35's range
constexpr int kFirstLog2n = 13, kLastLog2n = 14;          // the lengths this chapter's kernel handles
constexpr int kSharedBudget = 227 * 1024;                 // sm_90's opt-in shared memory per block

// A launch shape: E values per thread (T = N / E threads per signal), the signals a block aims at (capped at
// what fits in kSharedBudget: at N = 16384 always one), and the blocks per SM whose threads the register cap
// must let fit (0: one; never more than shared memory lets in). Threads per block = S x N / E.
template <int kE, int kSignals, int kMinBlocks = 0>
struct Shape {
  static constexpr int kValuesPerThread = kE;
  static constexpr int kSignalsWanted = kSignals;
  static constexpr int kMinBlocksPerSM = kMinBlocks;
};

// The pass plan of one signal is chapter 35's BlockPlan (N up to 16384, padded buffer of kPaddedLength):
// T = N / E = 256 .. 1024 threads, 16384 = 16.16.16.4 (E = 16) or 32.32.16 (E = 32). Its kernels' static
// buffers stop at N = 4096; this one's buffer is dynamic.
template <int N, class S>
struct LaunchPlan {
  using Plan = fft_tuned::BlockPlan<N, S::kValuesPerThread>;
  static_assert(N == 8192 || N == 16384, "one block handles N = 8192 and 16384 here");
  static_assert(S::kValuesPerThread == 16 || S::kValuesPerThread == 32,
                "E = 16 (4 passes) or 32 (3 passes): block_fft runs 2 to 4 passes");
  static_assert(Plan::kPasses >= 2 && Plan::kPasses <= 4, "block_fft runs 2 to 4 passes");
  static constexpr std::size_t kSignalBytes = Plan::kPaddedLength * sizeof(float2);
  static constexpr int kFit = static_cast<int>(kSharedBudget / kSignalBytes);  // 3 at N = 8192, 1 at 16384
  static constexpr int kWanted = S::kSignalsWanted * Plan::kThreads <= 1024 ? S::kSignalsWanted : 1024 / Plan::kThreads;
  static constexpr int kSignals = kWanted < kFit ? kWanted : kFit;
  static constexpr int kBlockThreads = kSignals * Plan::kThreads;
  static constexpr std::size_t kSharedBytes = kSignals * kSignalBytes;
  static_assert(kSignals >= 1, "one signal must fit in a block");
  // The register cap for __maxnreg__: what lets kMinBlocksPerSM blocks (at least one) hold their threads, at
  // most 128 (E = 32 needs about that; left free, ptxas took 241 at N = 8192, one block of 256 threads per SM
  // where shared memory allows three), in steps of 8. __launch_bounds__ would set the same cap, but with it
  // ptxas (CUDA 13.0) spilled 4 bytes at N = 8192.
  static constexpr int kSharedBlocks = static_cast<int>((228 * 1024) / (kSharedBytes + 1024));  // 1 KiB per block
  static constexpr int kAsked = S::kMinBlocksPerSM < kSharedBlocks ? S::kMinBlocksPerSM : kSharedBlocks;
  static constexpr int kBlocks = kAsked > 1 ? kAsked : 1;
  static constexpr int kRegisterRoom = 65536 / (kBlocks * kBlockThreads) / 8 * 8;
  static constexpr int kMaxRegisters = kRegisterRoom < 128 ? kRegisterRoom : 128;
};

// ---- Global memory <-> registers ----------------------------------------------------------------------------
// Direct: v[i] = x[t + i T], common/fft/pass_plan.cuh's load_direct and store_direct (as chapter 35 does).
// Staged: 16-byte accesses (two complex values, elements 2m and 2m + 1) between global memory and the padded
// buffer, then the buffer <-> registers. Costs one more pass through shared memory and a barrier each way. The
// two values of a pair never straddle a pad (E is even), but the padding breaks 16-byte alignment in shared
// memory, so the shared side takes two 8-byte accesses. Every thread of the block must call these (barriers).
template <class Plan>
__device__ __forceinline__ void load_staged(float2 (&v)[Plan::kPerThread], const float2* src, float2* buf,
                                            bool active, int t) {
  constexpr int E = Plan::kPerThread, T = Plan::kThreads;
  if (active) {
    const float4* src4 = reinterpret_cast<const float4*>(src);
#pragma unroll
    for (int i = 0; i < E / 2; ++i) {
      const int pair = t + i * T;  // elements 2 pair, 2 pair + 1
      const float4 p = src4[pair];
      buf[fft_tuned::padded<E>(2 * pair)] = make_float2(p.x, p.y);
      buf[fft_tuned::padded<E>(2 * pair) + 1] = make_float2(p.z, p.w);
    }
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < E; ++i) v[i] = buf[fft_tuned::padded<E>(fft_tuned::input_element<Plan>(t, i))];
  __syncthreads();  // every read done before the first exchange writes into buf
}

template <class Plan>
__device__ __forceinline__ void store_staged(const float2 (&v)[Plan::kPerThread], float2* dst, float2* buf,
                                             bool active, int t) {
  constexpr int E = Plan::kPerThread, T = Plan::kThreads;
#pragma unroll
  for (int i = 0; i < E; ++i) buf[fft_tuned::padded<E>(fft_tuned::output_element<Plan>(t, i))] = v[i];
  __syncthreads();
  if (!active) return;
  float4* dst4 = reinterpret_cast<float4*>(dst);
#pragma unroll
  for (int i = 0; i < E / 2; ++i) {
    const int pair = t + i * T;
    const float2 a = buf[fft_tuned::padded<E>(2 * pair)], b = buf[fft_tuned::padded<E>(2 * pair) + 1];
    dst4[pair] = make_float4(a.x, a.y, b.x, b.y);
  }
}

// ---- The kernel -----------------------------------------------------------------------------------------------
// S signals per block, T threads each (thread s T + t: signal s, its thread t), one padded buffer of
// N + N/E values per signal in dynamic shared memory. One read and one write of global memory per element.
// A last block with fewer signals still runs every thread through the barriers; missing signals neither load
// nor store. Twiddles kTw: the stage's are chapter 35's, per butterfly; one sincospif per factor for the
// comparison (chapter 35's table covers N <= 4096 only).
template <int N, class S, bool kStagedIo, fft_tuned::Twiddles kTw>
__global__ void __maxnreg__((LaunchPlan<N, S>::kMaxRegisters))
    fft_one_block_kernel(const float2* __restrict__ in, float2* __restrict__ out, long long batch) {
  using LP = LaunchPlan<N, S>;
  using Plan = typename LP::Plan;
  extern __shared__ __align__(16) float2 shared[];
  const int s = threadIdx.x / Plan::kThreads, t = threadIdx.x % Plan::kThreads;
  const long long signal = static_cast<long long>(blockIdx.x) * LP::kSignals + s;
  const bool active = signal < batch;
  const float2* src = in + signal * N;
  float2* dst = out + signal * N;
  float2* buf = shared + s * Plan::kPaddedLength;
  float2 v[Plan::kPerThread];
  if constexpr (kStagedIo) load_staged<Plan>(v, src, buf, active, t);
  else tut::fft::load_direct<Plan>(v, src, active, t);
  fft_tuned::block_fft<Plan, kTw>(v, buf, t);
  if constexpr (kStagedIo) store_staged<Plan>(v, dst, buf, active, t);
  else tut::fft::store_direct<Plan>(v, dst, active, t);
}

// ---- Host side --------------------------------------------------------------------------------------------------
constexpr int kMaxDevices = 64;

inline int current_device() {
  int device = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  if (device >= kMaxDevices) throw std::runtime_error("36: device index " + std::to_string(device) + " >= 64");
  return device;
}

// The opt-in shared memory per block of the current device, in bytes.
inline int opt_in_shared_bytes() {
  int bytes = 0;
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, current_device()));
  return bytes;
}

// One configuration of the kernel for both lengths: a shape, the way global memory is accessed and the twiddles.
// Its per-device state (set up; which lengths fit) is written by set_up() and only read by launches.
template <class S, bool kStagedIo = false, fft_tuned::Twiddles kTw = fft_tuned::kStageTwiddles>
struct OneBlock {
  static_assert(kTw != fft_tuned::Twiddles::kTable, "chapter 35's twiddle table covers N <= 4096 only");
  template <int N>
  static constexpr std::size_t shared_bytes() { return LaunchPlan<N, S>::kSharedBytes; }

  // True when the current device can give a block this configuration's shared memory at 2^log2n.
  static bool fits(int log2n) {
    return static_cast<int>(log2n == kFirstLog2n ? shared_bytes<8192>() : shared_bytes<16384>()) <=
           opt_in_shared_bytes();
  }

  // Workspace: none, unless this device falls back to chapter 35's four-step at this length.
  static std::size_t workspace_bytes(int log2n, long long batch) {
    return fits(log2n) ? 0 : fft_tuned::workspace_bytes(log2n, batch);
  }

  // Opts the kernels that fit into their dynamic shared memory on the current device. Returns the lengths
  // that do not fit (log2n bits), for setup's one line.
  static unsigned set_up() {
    const int device = current_device();
    unsigned too_big = 0;
    too_big |= opt_in<8192>(device) ? 0u : 1u << kFirstLog2n;
    too_big |= opt_in<16384>(device) ? 0u : 1u << kLastLog2n;
    state()[device].ready = true;
    return too_big;
  }

  // One batched FFT at N = 8192 or 16384 (throws otherwise). Needs set_up() on this device first.
  static void launch(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                     cudaStream_t stream) {
    if (log2n != kFirstLog2n && log2n != kLastLog2n)
      throw std::invalid_argument("36: the one-block kernel handles N = 8192 and 16384, not 2^" +
                                  std::to_string(log2n));
    if (batch <= 0) return;
    const DeviceState& d = state()[current_device()];
    if (!d.ready)
      throw std::logic_error("36: setup_fft_one_block_large() was not called on this device before a launch");
    if (!d.fits[log2n - kFirstLog2n])
      return fft_tuned::fft_tuned(in, out, log2n, batch, workspace, stream);  // set_up() said so once
    if (log2n == kFirstLog2n) return launch_length<8192>(in, out, batch, stream);
    launch_length<16384>(in, out, batch, stream);
  }

 private:
  struct DeviceState {
    bool ready = false;
    bool fits[2] = {false, false};  // N = 8192, 16384
  };
  static DeviceState* state() {
    static DeviceState s[kMaxDevices];
    return s;
  }

  template <int N>
  static bool opt_in(int device) {
    constexpr std::size_t bytes = shared_bytes<N>();
    const bool fit = static_cast<int>(bytes) <= opt_in_shared_bytes();
    if (fit)
      TUT_CUDA_CHECK(cudaFuncSetAttribute(fft_one_block_kernel<N, S, kStagedIo, kTw>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
    state()[device].fits[N == 8192 ? 0 : 1] = fit;
    return fit;
  }

  template <int N>
  static void launch_length(const float2* in, float2* out, long long batch, cudaStream_t stream) {
    using LP = LaunchPlan<N, S>;
    const long long blocks = (batch + LP::kSignals - 1) / LP::kSignals;
    fft_one_block_kernel<N, S, kStagedIo, kTw>
        <<<static_cast<unsigned>(blocks), LP::kBlockThreads, LP::kSharedBytes, stream>>>(in, out, batch);
    TUT_CHECK_LAUNCH();
  }
};

// ---- The configurations: the stage and the on-demand candidates (one list, read by setup and main.cu) -------
// The stage's shape, picked by --variant all at N = 8192 and 16384 (README "Measured"): E = 32 (three passes, two exchanges, 256 / 512 threads), one signal per block, direct
// 8-byte accesses.
using Stage = OneBlock<Shape<32, 1>>;
using E16 = OneBlock<Shape<16, 1, 2>>;          // four passes, 512 / 1024 threads, 64 registers
using E32S2 = OneBlock<Shape<32, 2>>;           // two signals per block at N = 8192 (one at 16384)
using E16S2 = OneBlock<Shape<16, 2>>;           // two signals per block at N = 8192 (1024 threads)
using E32Staged = OneBlock<Shape<32, 1>, true>;  // 16-byte global accesses through the buffer
// The stage's shape with one sincospif per twiddle (the stage's twiddles before they were computed per butterfly).
using E32Sincospif = OneBlock<Shape<32, 1>, false, fft_tuned::Twiddles::kSincospif>;

// One-time set-up for every configuration above on the current device: the shared-memory opt-in. Call it once
// per device before any launch (FftVariant::setup, through the harness's Workload::setup). Prints one
// line on stderr when this GPU cannot hold a configuration's block; those launches run chapter 35's four-step.
inline void setup_fft_one_block_large() {
  static bool done[kMaxDevices] = {};
  const int device = current_device();
  if (done[device]) return;
  const unsigned too_big = Stage::set_up() | E16::set_up() | E32S2::set_up() | E16S2::set_up() |
                           E32Staged::set_up() | E32Sincospif::set_up();
  if (too_big)
    std::fprintf(stderr,
                 "36-fft-one-block-large: this GPU gives a block at most %d KiB of shared memory (opt-in), too little "
                 "for some configurations at N = %s in one block: those launches run chapter 35's four-step\n",
                 opt_in_shared_bytes() / 1024, (too_big >> kFirstLog2n) & 1u ? "8192 and 16384" : "16384");
  done[device] = true;
}

// The stage, by length: chapter 35's stage up to 4096, this chapter's kernel at 8192 and 16384, chapter 35's
// four-step above.
inline std::size_t stage_workspace_bytes(int log2n, long long batch) {
  if (log2n == kFirstLog2n || log2n == kLastLog2n) return Stage::workspace_bytes(log2n, batch);
  return fft_tuned::workspace_bytes(log2n, batch);
}

inline void fft_one_block_large(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                                cudaStream_t stream) {
  if (log2n < kMinLog2n || log2n > kMaxLog2n)
    throw std::invalid_argument("36: the stage handles N = 8 .. 2^20, not 2^" + std::to_string(log2n));
  if (log2n == kFirstLog2n || log2n == kLastLog2n) return Stage::launch(in, out, log2n, batch, workspace, stream);
  fft_tuned::fft_tuned(in, out, log2n, batch, workspace, stream);
}

}  // namespace fft_one_block_large
