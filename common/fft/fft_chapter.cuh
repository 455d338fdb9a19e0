// What every FFT chapter (30-38) shares: the variant description, the workload (seeded batch of complex
// signals, the check against a CPU double-precision FFT), cuFFT as the vendor reference, and cudaMemcpy of
// the same bytes. The chapters' own kernels live in their folders; this file holds only the scaffolding.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runner.cuh"

namespace tut::fft {

// Batched forward complex-to-complex FFT, single precision, out-of-place: `batch` contiguous signals of
// length n = 2^log2n, X[k] = sum_j x[j] * exp(-2*pi*i*j*k/n), no normalisation (cuFFT's CUFFT_FORWARD).
// The launch enqueues its kernels on `stream`; it must not allocate, synchronise, or write to `in`, and it throws
// std::invalid_argument for a length it has no kernel for (dispatch.hpp).
using FftLaunch = std::function<void(const float2* in, float2* out, int log2n, long long batch,
                                     void* workspace, cudaStream_t stream)>;

// ---- A tuned stage's plan per GPU (docs/tuning-per-gpu.md; fft_plan.cuh chooses) ------------------------------
// What a candidate keeps resident on the current device, after its set-up: the blocks per SM (occupancy API; a
// fraction for clusters, whose blocks spread over the SMs) and the signals one block holds (a fraction where
// several blocks share a signal: a cluster's block, a pass's block of columns). 0 blocks: unknown.
struct FftResidency {
  double blocks_per_sm = 0;
  double signals_per_block = 0;
};

// One configuration the stage may run at a length: its name in the plan line and the plan file, its launch (the
// contract of FftLaunch), what it keeps resident (empty: unknown) and how often it moves the batch.
struct FftCandidate {
  std::string name;
  FftLaunch launch;
  std::function<FftResidency()> residency;
  int passes = 1;  // reads and writes of the batch (2: the two-pass and four-step paths)
};

// The candidates at one length, the default first (the one the stage's own `launch` runs). With one, `why` says
// why there is nothing to choose (the model's reason in the plan line).
struct FftChoice {
  std::vector<FftCandidate> candidates;
  std::string why;
};

// A stage's plan: its name in the plan key ("35 fft c2c"), its build (TUT_THIS_BUILD_ID() of the chapter's
// main.cu: a rebuild plans again), and its choice at each length (called after the variant's set-up on the
// current device). Empty `choices`: the variant has no plan and runs `launch`.
struct FftStagePlan {
  std::string stage;
  std::string build_id;
  std::function<FftChoice(int log2n)> choices;
};

struct FftVariant {
  std::string name;
  std::string description;
  int min_log2n = 3, max_log2n = 24;                                       // lengths this variant supports
  std::function<std::size_t(int log2n, long long batch)> workspace_bytes;  // empty: none
  // One-time set-up on the current device (a twiddle table...), idempotent; empty: none. The workload's setup()
  // and the tests call it (set_up below) before any launch on that device; a launch never does it itself.
  // forget_setup (last below) undoes it.
  std::function<void()> setup;
  FftLaunch launch;
  std::string known_defect;  // for 'article' variants that reproduce a documented defect
  bool on_demand = false;    // run only when named (--variant NAME or all); see VariantSpec
  // The stage's plan: the workload's setup() chooses among plan.choices(log2n) on its own buffers (fft_plan.cuh)
  // and run() launches the choice; `launch` stays the default (the first candidate), which tests call directly.
  FftStagePlan plan;
  // Undoes `setup` on the current device (tests of the launch's refusal; launch_testing.cuh); empty: none. Set in
  // the translation unit that sets `setup`: set-up state a header keeps per .cu file (the twiddle table,
  // twiddle_table.cuh) is that file's, so a test that links the chapter's main.cu reaches it only through here.
  // Last, with a default, so that the chapters' positional initialisers, written before it, keep their meaning
  // (and -Wmissing-field-initializers stays quiet about them).
  std::function<void()> forget_setup = nullptr;
};

// Shortest and longest --length any chapter accepts.
constexpr int kMinLog2n = 3, kMaxLog2n = 24;

// True when `v` handles signals of length 2^log2n.
inline bool supports(const FftVariant& v, int log2n) { return log2n >= v.min_log2n && log2n <= v.max_log2n; }

// Workspace `v` needs (0 when it declares none).
inline std::size_t workspace_of(const FftVariant& v, int log2n, long long batch) {
  return v.workspace_bytes ? v.workspace_bytes(log2n, batch) : 0;
}

// Runs `v`'s one-time set-up on the current device, if it has one.
inline void set_up(const FftVariant& v) {
  if (v.setup) v.setup();
}

// log2 of a power of two in [2^kMinLog2n, 2^kMaxLog2n]; throws UsageError with one line otherwise.
int checked_log2_length(long long length);

// cuFFT's batched forward C2C transform, planned once (plan creation is kept out of every timing).
class CufftPlan {
 public:
  CufftPlan() = default;
  CufftPlan(int log2n, long long batch);
  ~CufftPlan();
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;
  CufftPlan(CufftPlan&& o) noexcept;
  CufftPlan& operator=(CufftPlan&& o) noexcept;
  void forward(const float2* in, float2* out, cudaStream_t stream) const;
  // Device work area cuFFT would need for this transform (for the memory check before allocating).
  static std::size_t work_bytes(int log2n, long long batch);

 private:
  int handle_ = -1;  // cufftHandle is an int; -1: no plan
};

// `count` complex values with real and imaginary parts uniform in [-1, 1), the same for a given seed on every
// machine.
std::vector<float2> random_signals(std::size_t count, std::uint64_t seed);

// The given variants plus "cufft" (cufftExecC2C with a batched plan made outside the timing; the ratio
// reference) and cudaMemcpy of the same bytes. --size = total complex elements of the batch (default 2^27,
// i.e. a 1 GiB batch of float2), --length N (default 1024; power of two) the signal length; batch = size / N.
// Work: bytes = one read and one write of the batch; flops = 5 N log2 N per signal (the conventional count).
//
// Lengths: every variant a run selects must support --length (a plain run selects the stage variants, --variant
// all every one); otherwise the program stops before measuring with one line naming the variant and the
// lengths it supports (exit 2). Bad --length (not a power of two, outside 8..2^24, larger than --size, or not
// dividing --size): one line, exit 2.
//
// The check: every element of the output is written (no poison left) and finite; then, for every signal when
// the batch holds at most 2^23 elements, else for an evenly spaced sample of signals (first and last included)
// totalling about 2^23 elements, the relative L2 error per signal against cpu_fft in double precision must not
// exceed fft_tolerance(log2n, cuFFT's worst error over the same signals in this run).
tut::ChapterSpec make_fft_chapter(const std::string& id, const std::string& title, std::vector<FftVariant> variants);

}  // namespace tut::fft
