#include <cublas_v2.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <memory>
#include <sstream>

#include "cli.hpp"
#include "cuda_check.cuh"
#include "device.cuh"
#include "gemm/gemm_workload.cuh"
#include "gemm/problem_workload.cuh"
#include "gemm_tc/tc_workload.cuh"
#include "verify.hpp"

namespace tut::gemm_tc {
namespace {

void cublas_check(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  const std::string text = std::string(what) + " failed: " + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")";
  if (s == CUBLAS_STATUS_ALLOC_FAILED) throw DeviceOutOfMemory(cudaErrorMemoryAllocation, text);
  throw CudaError(cudaErrorUnknown, text);
}

// Uniform [-1, 1) floats rounded to BF16: the device copy and the floats those BF16 values are.
void bf16_inputs(std::size_t count, std::uint64_t seed, std::vector<bf16>& device_values, std::vector<float>& as_float) {
  as_float = random_floats(count, seed);
  device_values.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    device_values[i] = __float2bfloat16_rn(as_float[i]);
    as_float[i] = __bfloat162float(device_values[i]);
  }
}

}  // namespace

int bf16_tensor_flops_per_clock_per_sm(int cc_major, int cc_minor) {
  const int cc = cc_major * 10 + cc_minor;
  switch (cc) {
    case 80: return 2048;
    case 86: case 87: case 89: return 1024;
    case 90: return 4096;
    default: return 0;
  }
}

double bf16_tensor_peak_tflops(const DeviceInfo& info) {
  return static_cast<double>(info.sm_count) * bf16_tensor_flops_per_clock_per_sm(info.cc_major, info.cc_minor) *
         info.sm_clock_khz * 1e3 / 1e12;
}

void require_compute_capability(const std::string& variant, int min_cc) {
  int device = 0, major = 0, minor = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major * 10 + minor < min_cc)
    throw UsageError(variant + " needs a GPU of compute capability " + std::to_string(min_cc / 10) + "." +
                     std::to_string(min_cc % 10) + " or newer (BF16 tensor-core instructions); this one is " +
                     std::to_string(major) + "." + std::to_string(minor));
}

CublasBf16::CublasBf16() {
  cublasHandle_t h = nullptr;
  cublas_check(cublasCreate(&h), "cublasCreate");
  handle_ = h;
  cublas_check(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
}

CublasBf16::~CublasBf16() {
  if (handle_) cublasDestroy(static_cast<cublasHandle_t>(handle_));
}

void CublasBf16::gemm(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                      cudaStream_t stream) {
  if (m == 0 || n == 0) return;  // nothing to write
  auto h = static_cast<cublasHandle_t>(handle_);
  cublas_check(cublasSetStream(h, stream), "cublasSetStream");
  // Column-major C^T (n x m) = op(B) * op(A) with op(B) = T on B's column-major K x N view, op(A) = N.
  cublas_check(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, B, CUDA_R_16BF, std::max(k, 1), A,
                            CUDA_R_16BF, std::max(k, 1), &beta, C, CUDA_R_32F, std::max(n, 1),
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx");
}

std::size_t TcProblem::device_bytes(int m, int n, int k) {
  return sizeof(bf16) * (static_cast<std::size_t>(m) * k + static_cast<std::size_t>(n) * k) +
         sizeof(float) * 2 * static_cast<std::size_t>(m) * n;
}

TcProblem::TcProblem(int m, int n, int k, float alpha, float beta, std::uint64_t seed, int offset_elements)
    : m_(m), n_(n), k_(k), alpha_(alpha), beta_(beta), offset_(offset_elements) {
  gemm::GemmProblem::validate(m, n, k);
  const std::size_t mk = static_cast<std::size_t>(m) * k, nk = static_cast<std::size_t>(n) * k,
                    mn = static_cast<std::size_t>(m) * n;
  std::vector<bf16> a, b;
  bf16_inputs(mk, seed, a, host_a_);
  bf16_inputs(nk, seed + 1, b, host_b_);
  host_c0_ = random_floats(mn, seed + 2);
  auto upload = [&](auto& buf, const auto& host) {
    using T = typename std::decay_t<decltype(host)>::value_type;
    buf = DeviceBuffer<T>(host.size() + offset_);
    if (offset_ > 0) buf.zero();  // the elements before the matrix too: watch() reads them
    if (!host.empty())
      TUT_CUDA_CHECK(cudaMemcpy(buf.data() + offset_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  };
  upload(a_, a);
  upload(b_, b);
  upload(c_initial_, host_c0_);
  c_ = DeviceBuffer<float>(mn + offset_);
  a_.label("A").watch();
  b_.label("B").watch();
  c_initial_.label("initial C").watch();
  c_.label("C");
}

std::vector<float> TcProblem::download_c() const {
  std::vector<float> host(static_cast<std::size_t>(m_) * n_);
  if (!host.empty())
    TUT_CUDA_CHECK(cudaMemcpy(host.data(), c_device(), host.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

void TcProblem::reset_c(cudaStream_t stream) {
  const std::size_t bytes = static_cast<std::size_t>(m_) * n_ * sizeof(float);
  if (bytes == 0) return;
  if (beta_ != 0.0f)
    TUT_CUDA_CHECK(cudaMemcpyAsync(c_device(), c_initial_.data() + offset_, bytes, cudaMemcpyDeviceToDevice, stream));
  else
    TUT_CUDA_CHECK(cudaMemsetAsync(c_device(), 0xFF, bytes, stream));  // 0xFFFFFFFF is a NaN
}

void TcProblem::run(const TcLaunch& launch, cudaStream_t stream) {
  launch(m_, n_, k_, alpha_, a_device(), b_device(), beta_, c_device(), stream);
}

void TcProblem::run_cublas(cudaStream_t stream) {
  cublas_.gemm(m_, n_, k_, alpha_, a_device(), b_device(), beta_, c_device(), stream);
}

void TcProblem::compute_references(bool cpu) {
  reset_c(0);
  run_cublas(0);
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  cublas_ref_ = download_c();
  cpu_ref_.clear();
  const double work = static_cast<double>(m_) * n_ * k_;
  if (cpu && work <= static_cast<double>(gemm::kCpuReferenceMaxWork) && m_ > 0 && n_ > 0) {
    // The SGEMM ladder's FP64 reference wants B as K x N row-major: B^T of our N x K.
    std::vector<float> b_kn(static_cast<std::size_t>(k_) * n_);
    for (int j = 0; j < n_; ++j)
      for (int p = 0; p < k_; ++p)
        b_kn[static_cast<std::size_t>(p) * n_ + j] = host_b_[static_cast<std::size_t>(j) * k_ + p];
    cpu_ref_.resize(static_cast<std::size_t>(m_) * n_);
    gemm::cpu_gemm_reference(m_, n_, k_, alpha_, host_a_.data(), b_kn.data(), beta_, host_c0_.data(), cpu_ref_.data());
  }
}

TcProblem::Errors TcProblem::check(bool is_cublas) const {
  Errors e;
  const std::vector<float> got = download_c();
  if (!is_cublas && cublas_ref_.size() == got.size()) {
    e.vs_cublas = gemm::gemm_error(cublas_ref_.data(), got.data(), got.size());
    e.has_cublas = true;
    e.check = gemm::judge_gemm(e.vs_cublas, k_, n_, "cuBLAS");
  }
  if (!cpu_ref_.empty()) {
    e.vs_cpu = gemm::gemm_error(cpu_ref_.data(), got.data(), got.size());
    e.has_cpu = true;
    CheckResult c = gemm::judge_gemm(e.vs_cpu, k_, n_, "the CPU FP64 reference");
    if (e.check.ok) e.check = c;
  }
  return e;
}

namespace {

using gemm::RunRecord;

void print_summary(std::ostream& os, const DeviceInfo& info, const RunRecord& rec, const std::vector<Result>& results) {
  const gemm::GemmDims& d = rec.dims;
  const double peak = bf16_tensor_peak_tflops(info);
  os << "\nC = alpha A B^T + beta C: A M x K, B N x K row-major BF16 (both K-major), C M x N row-major FP32, FP32 "
        "accumulation; M = " << d.m << ", N = " << d.n << ", K = " << d.k << ", alpha = " << kDefaultAlpha
     << ", beta = " << kDefaultBeta << ". TFLOP/s counts 2 M N K flops; ";
  char text[160];
  if (peak > 0) {
    std::snprintf(text, sizeof text, "%% tensor peak is of %.0f TFLOP/s (%d SMs x %d BF16 FLOP/clock x %d MHz).\n",
                  peak, info.sm_count, bf16_tensor_flops_per_clock_per_sm(info.cc_major, info.cc_minor),
                  info.sm_clock_khz / 1000);
    os << text;
  } else {
    os << "no BF16 tensor peak is known for sm_" << info.cc_major << info.cc_minor << ".\n";
  }
  std::vector<std::vector<std::string>> rows;
  for (const Result& r : results) {
    if (r.flops <= 0 || !(r.time.median_ms > 0)) continue;
    const double tflops = r.flops / (r.time.median_ms * 1e-3) / 1e12;
    char t[32], p[32];
    std::snprintf(t, sizeof t, "%.1f", tflops);
    std::snprintf(p, sizeof p, "%.1f", peak > 0 ? 100.0 * tflops / peak : 0.0);
    rows.push_back({r.variant, t, peak > 0 ? p : "-"});
  }
  if (!rows.empty()) write_text_table(os, {"variant", "TFLOP/s", "% BF16 tensor peak"}, rows);
  gemm::write_error_table(os, rec, "the CPU FP64 reference on the same BF16 values");
}

}  // namespace

tut::ChapterSpec make_tc_chapter(const std::string& id, const std::string& title, std::vector<TcVariant> variants) {
  ChapterSpec spec;
  spec.id = id;
  spec.title = title;
  spec.default_size = "4096";
  for (const auto& v : variants) spec.variants.push_back({v.name, v.description, false, "", v.on_demand});
  spec.variants.push_back({"cublas",
                           "cublasGemmEx, BF16 A and B (both K-major), FP32 C, CUBLAS_COMPUTE_32F, "
                           "CUBLAS_GEMM_DEFAULT: the vendor reference", true, ""});
  spec.ratio_to = "cublas";
  spec.extra_options = {
      {"m", "rows of A and C (0: use --size)", 0, 0, INT_MAX},
      {"n", "rows of B, columns of C (0: use --size)", 0, 0, INT_MAX},
      {"k", "columns of A and B (0: use --size)", 0, 0, INT_MAX},
  };
  // After the GPU check: a GPU without the stage's instructions is refused (UsageError: one line, exit 2).
  spec.resolve = [variants](ChapterSpec&, const Options&) {
    for (const auto& v : variants) require_compute_capability(v.name, v.min_cc);
  };
  auto record = std::make_shared<RunRecord>();
  spec.make_workload = [variants, record] {
    return std::make_unique<gemm::ProblemWorkload<TcProblem, TcVariant, bf16>>(variants, record, kDefaultAlpha,
                                                                               kDefaultBeta, "tensor-core GEMM");
  };
  spec.summary = [record](std::ostream& os, const DeviceInfo& info, const Options&, const std::vector<Result>& results) {
    print_summary(os, info, *record, results);
  };
  return spec;
}

}  // namespace tut::gemm_tc
