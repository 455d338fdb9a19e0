// What every SGEMM chapter (20-29) shares: the problem (seeded A, B and C), cuBLAS as the vendor
// reference, the FP64 CPU reference, the check, and the ChapterSpec. The chapters' own kernels live in
// their folders; a chapter's main.cu lists its variants and calls make_gemm_chapter().
//
// The operation, row-major, as in the C arrays a student would write:
//   C[m x n] = alpha * A[m x k] * B[k x n] + beta * C        leading dimensions k (A), n (B), n (C)
// With beta == 0, C is output only: as in BLAS, a kernel must not read it (the tests fill C with NaN to
// make sure no kernel computes 0 * C).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device_buffer.cuh"
#include "gemm/gemm_check.hpp"
#include "runner.cuh"

namespace tut::gemm {

// Row-major C[m x n] = alpha * A[m x k] * B[k x n] + beta * C; leading dimensions k, n, n.
// Enqueues its kernels on `stream`; must not allocate or synchronise. m, n or k may be 0.
using GemmLaunch = std::function<void(int m, int n, int k, float alpha, const float* A, const float* B,
                                      float beta, float* C, cudaStream_t stream)>;

// A problem's operands: what a tuned stage's plan (GemmVariant::plan) measures its candidates on.
struct GemmOperands {
  int m, n, k;
  float alpha;
  const float* A;
  const float* B;
  float beta;
  float* C;
};

struct GemmVariant {
  std::string name;
  std::string description;
  GemmLaunch launch;
  std::string known_defect;  // for 'article' variants that reproduce a documented defect
  bool on_demand = false;    // run only when named (--variant NAME or all); see VariantSpec
  // Optional one-time set-up for problems of this shape, outside any timed run (Workload::setup; the tests
  // call it before each shape): shared-memory opt-in, occupancy queries, a workspace sized for (m, n, k).
  std::function<void(int m, int n, int k)> setup = nullptr;
  // Optional: what the variant runs at this shape (tile, split), printed after the table in table mode.
  std::function<std::string(int m, int n, int k)> explain = nullptr;
  // Optional, a tuned stage's plan per GPU (docs/tuning-per-gpu.md), after `setup` and outside any timed run (the
  // workload and the tests call it with the problem's operands): a measured search may run the candidates on them,
  // overwriting C (which is reset before every checked run). A launch at a shape no plan saw runs the model's choice.
  std::function<void(const GemmOperands& operands)> plan = nullptr;
};

// alpha and beta of every chapter run: neither 1 nor 0, so that a kernel that forgets alpha, drops
// beta * C or does not read C at all fails the check; both exact in binary, so the CPU reference
// holds the same values. The tests vary them (beta = 0, alpha = 1, negative, ...).
constexpr float kDefaultAlpha = 1.5f;
constexpr float kDefaultBeta = -0.75f;

// cublasSgemm on row-major data: cuBLAS is column-major, and a row-major matrix read as column-major is
// its transpose. So C^T (n x m, column-major, ld n) = B^T (n x k, ld n) * A^T (k x m, ld k): the call
// passes B first, then A, with the dimensions n, m, k. Math mode CUBLAS_DEFAULT_MATH, set explicitly:
// FP32 inputs, products and sums on the FP32 pipes. TF32 tensor cores (CUBLAS_TF32_TENSOR_OP_MATH) and the
// BF16x9 emulation (CUBLAS_FP32_EMULATED_BF16X9_MATH) are opt-in modes (see cublas_api.h) that are not set.
// CUBLAS_PEDANTIC_MATH is not needed: it only also forbids reduced-precision reductions, which FP32 SGEMM
// does not use, and would make cuBLAS a slower reference than a user gets.
class Cublas {
 public:
  Cublas();
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  void sgemm(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
             cudaStream_t stream);

 private:
  void* handle_ = nullptr;  // cublasHandle_t
};

// One GEMM problem on the device: seeded A, B and an initial C (uniform in [-1, 1)), the pristine copy
// of C, and the references. Used by the chapter workload and by the tests.
class GemmProblem {
 public:
  // Throws UsageError for dimensions the ladder does not support (negative, or a matrix of 2^31
  // elements or more: the kernels index with 32-bit ints). offset_floats > 0 places A, B and C that many
  // floats past the start of their allocations (1: 4-byte aligned only), to test vector-load fallbacks.
  GemmProblem(int m, int n, int k, float alpha, float beta, std::uint64_t seed, int offset_floats = 0);

  int m() const { return m_; }
  int n() const { return n_; }
  int k() const { return k_; }
  float alpha() const { return alpha_; }
  float beta() const { return beta_; }
  static std::size_t device_bytes(int m, int n, int k);
  static void validate(long long m, long long n, long long k);

  // Before a checked run. beta != 0: C is an input, so the pristine initial C is copied back in (a
  // previous run overwrote it). beta == 0: C is filled with NaN, so a kernel that reads it (0 * NaN =
  // NaN) or does not write an element fails the check.
  void reset_c(cudaStream_t stream);
  void run(const GemmLaunch& launch, cudaStream_t stream);
  void run_cublas(cudaStream_t stream);

  // cuBLAS's result (same process, same inputs) and, where m n k <= kCpuReferenceMaxWork and `cpu`,
  // the FP64 CPU reference. Leaves C as cuBLAS wrote it.
  void compute_references(bool cpu);
  bool has_cpu_reference() const { return !cpu_ref_.empty(); }

  using Errors = GemmErrors;
  // Downloads C and judges it against both references. is_cublas: the run was cuBLAS itself, so only
  // the CPU reference judges it.
  Errors check(bool is_cublas) const;

  GemmOperands operands() { return {m_, n_, k_, alpha_, a_device(), b_device(), beta_, c_device()}; }
  const float* a_device() const { return a_.data() + offset_; }
  const float* b_device() const { return b_.data() + offset_; }
  float* c_device() { return c_.data() + offset_; }
  const float* c_device() const { return c_.data() + offset_; }

 private:
  std::vector<float> download_c() const;

  int m_, n_, k_;
  float alpha_, beta_;
  int offset_;
  DeviceBuffer<float> a_, b_, c_, c_initial_;
  std::vector<float> host_c0_;
  std::vector<float> cublas_ref_;
  std::vector<double> cpu_ref_;
  Cublas cublas_;
};

// The chapter description for a GEMM stage: the given variants plus "cublas" (cublasSgemm, FP32,
// CUBLAS_DEFAULT_MATH: no TF32), the ratio reference. --size S means M = N = K = S (default 4096);
// --m, --n, --k (0 = use --size) set one dimension each. Work: 2 M N K flops; bytes: the minimum (A and
// B read once, C read if beta != 0, C written). Timed repetitions run back to back on the same C: with
// beta != 0 each one reads the previous one's C, which changes the values (they stay bounded since
// |beta| < 1) but not the work. In table mode a second table gives each variant's errors.
tut::ChapterSpec make_gemm_chapter(const std::string& id, const std::string& title, std::vector<GemmVariant> variants);

// The grid of a kernel whose block computes a tile_m x tile_n tile of C: x over the column tiles, y over
// the row tiles (so blocks launched one after another share a row panel of A). Throws UsageError where
// the row tiles exceed gridDim.y's limit of 65535 (M above 65535 * tile_m) or a count is 0.
dim3 tile_grid(int m, int n, int tile_m, int tile_n);

// The (m, n, k) of a chapter run from its options.
struct GemmDims {
  long long m, n, k;
};
GemmDims gemm_dims(const Options& opt);

}  // namespace tut::gemm
