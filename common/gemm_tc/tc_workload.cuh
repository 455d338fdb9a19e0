// What every tensor-core GEMM chapter (50-59) shares: the problem (seeded BF16 A and B, FP32 C), cuBLAS
// (cublasGemmEx) as the vendor reference, the FP64 CPU reference, the check, the tensor peak, and the
// ChapterSpec. The chapters' kernels live in their folders; a chapter's main.cu lists its variants and
// calls make_tc_chapter().
//
// The layout, the one cuBLAS calls "TN" and every tensor-core GEMM prefers (both operands K-major):
//   A   M x K  row-major BF16 (leading dimension K)
//   B   N x K  row-major BF16 (leading dimension K): the rows of B are the columns of B^T
//   C   M x N  row-major FP32 (leading dimension N)
//   C = alpha * A * B^T + beta * C, products of BF16 values (exact in FP32), sums in FP32.
// With beta == 0, C is output only (BLAS): a kernel must not read it (the tests fill C with NaN).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device_buffer.cuh"
#include "gemm/gemm_check.hpp"
#include "report.hpp"
#include "runner.cuh"

namespace tut::gemm_tc {

using bf16 = __nv_bfloat16;

// C = alpha * A * B^T + beta * C in the layout above. Enqueues its kernels on `stream`; must not allocate
// or synchronise. m, n or k may be 0.
using TcLaunch = std::function<void(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta,
                                    float* C, cudaStream_t stream)>;

// A problem's operands: what a stage's plan (TcVariant::plan) measures its candidates on.
struct TcOperands {
  int m, n, k;
  float alpha;
  const bf16* A;
  const bf16* B;
  float beta;
  float* C;
};

struct TcVariant {
  std::string name;
  std::string description;
  TcLaunch launch;
  // The oldest compute capability (major * 10 + minor) whose instructions the kernel needs: below it the
  // kernel body compiles out and the chapter program refuses with one line and exit 2.
  int min_cc = 75;
  bool on_demand = false;
  std::function<void(int m, int n, int k)> setup = nullptr;  // one-time set-up (smem opt-in), per device
  // Optional, a stage's plan per GPU and shape (docs/tuning-per-gpu.md), after `setup` and outside any timed run
  // (the workload and the tests call it with the problem's operands): a measured search may run candidates on them,
  // overwriting C (which is reset before every checked run).
  std::function<void(const TcOperands& operands)> plan = nullptr;
};

// alpha and beta of every chapter run: neither 1 nor 0, both exact (as in the SGEMM ladder).
constexpr float kDefaultAlpha = 1.5f;
constexpr float kDefaultBeta = -0.75f;

// ---- The tensor peak -------------------------------------------------------------------------------
// Dense BF16 multiply-add throughput of one SM's tensor cores with FP32 accumulation, in FLOP per clock
// (2 per multiply-add), by compute capability. The one place these numbers are stated. Sources: the
// NVIDIA A100, GA102 (Ampere GA10x), AD102 (Ada) and H100 architecture whitepapers' peak tables divided by
// SMs x boost clock. 0: no BF16 tensor instructions (sm_75) or an architecture the table does not know.
//   sm_80 (A100)            2048   (312 TFLOP/s = 108 SMs x 1410 MHz x 2048)
//   sm_86, sm_87, sm_89     1024   (the full rate of the professional parts, A40/A6000/L40S; GeForce
//                                   cards run BF16 with FP32 accumulation at half this: their % is low by 2x)
//   sm_90 (H100, H200)      4096   (989 TFLOP/s = 132 SMs x 1830 MHz x 4096 for H100 SXM)
int bf16_tensor_flops_per_clock_per_sm(int cc_major, int cc_minor);

// SMs x the table above x the SM clock the device reports (cudaDevAttrClockRate, its maximum boost
// clock: on an H100 SXM 1980 MHz, so this peak, 1070 TFLOP/s, is 8% above the 989 of the data sheet,
// which counts the lower clock the tensor cores sustain). 0 when the table has no entry.
double bf16_tensor_peak_tflops(const DeviceInfo& info);

// ---- cuBLAS ----------------------------------------------------------------------------------------
// cublasGemmEx in the same layout: cuBLAS is column-major, so row-major C (M x N) is column-major C^T
// (N x M, ld N) = B * A^T: B (row-major N x K, ld K) read column-major is B^T (K x N), hence CUBLAS_OP_T;
// A (row-major M x K) read column-major is A^T (K x M), CUBLAS_OP_N. Types CUDA_R_16BF in, CUDA_R_32F
// out, compute CUBLAS_COMPUTE_32F, algorithm CUBLAS_GEMM_DEFAULT: what a user calling cuBLAS gets.
class CublasBf16 {
 public:
  CublasBf16();
  ~CublasBf16();
  CublasBf16(const CublasBf16&) = delete;
  CublasBf16& operator=(const CublasBf16&) = delete;
  void gemm(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
            cudaStream_t stream);

 private:
  void* handle_ = nullptr;  // cublasHandle_t
};

// One problem on the device: A and B uniform in [-1, 1) rounded to BF16 (the CPU reference uses the same
// rounded values), C uniform in [-1, 1), the pristine copy of C, and the references.
class TcProblem {
 public:
  // Throws UsageError for negative dimensions or a matrix of 2^31 elements or more. offset_elements > 0
  // places A, B (BF16 elements) and C (floats) that far past the start of their allocations, so that
  // 16-byte vector paths must see the misalignment and fall back.
  TcProblem(int m, int n, int k, float alpha, float beta, std::uint64_t seed, int offset_elements = 0);

  int m() const { return m_; }
  int n() const { return n_; }
  int k() const { return k_; }
  float alpha() const { return alpha_; }
  float beta() const { return beta_; }
  static std::size_t device_bytes(int m, int n, int k);

  // beta != 0: the pristine C copied back in; beta == 0: C filled with NaN.
  void reset_c(cudaStream_t stream);
  void run(const TcLaunch& launch, cudaStream_t stream);
  void run_cublas(cudaStream_t stream);
  // cuBLAS's result and, where M N K <= 2^30 and `cpu`, the FP64 CPU reference on the BF16 values.
  void compute_references(bool cpu);
  bool has_cpu_reference() const { return !cpu_ref_.empty(); }

  using Errors = gemm::GemmErrors;
  Errors check(bool is_cublas) const;

  TcOperands operands() { return {m_, n_, k_, alpha_, a_device(), b_device(), beta_, c_device()}; }
  const bf16* a_device() const { return a_.data() + offset_; }
  const bf16* b_device() const { return b_.data() + offset_; }
  float* c_device() { return c_.data() + offset_; }
  const float* c_device() const { return c_.data() + offset_; }

 private:
  std::vector<float> download_c() const;

  int m_, n_, k_;
  float alpha_, beta_;
  int offset_;
  DeviceBuffer<bf16> a_, b_;
  DeviceBuffer<float> c_, c_initial_;
  std::vector<float> host_a_, host_b_, host_c0_;  // A and B as the floats their BF16 values are
  std::vector<float> cublas_ref_;
  std::vector<double> cpu_ref_;
  CublasBf16 cublas_;
};

// A stage's plan on the problem's own operands (gemm::ProblemWorkload::setup finds this by argument lookup).
inline void plan_on(const TcVariant& v, TcProblem& p) {
  if (v.plan) v.plan(p.operands());
}

// The chapter description for a tensor-core stage: the given variants plus "cublas" (cublasGemmEx, BF16 in,
// FP32 out, CUBLAS_COMPUTE_32F), the ratio reference. --size S means M = N = K = S (default 4096); --m,
// --n, --k set one dimension each. Work: 2 M N K flops; bytes: A and B (2 bytes an element) read once, C
// read if beta != 0 and written (4 bytes). After the table: TFLOP/s and the share of the BF16 tensor peak
// per row, and each variant's errors. A GPU below a variant's min_cc gets one line and exit 2.
tut::ChapterSpec make_tc_chapter(const std::string& id, const std::string& title, std::vector<TcVariant> variants);

// Throws UsageError("<variant> needs sm_XY ...") when the current device is older than min_cc.
void require_compute_capability(const std::string& variant, int min_cc);

}  // namespace tut::gemm_tc
