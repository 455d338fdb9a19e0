#include <cublas_v2.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <map>
#include <memory>
#include <sstream>

#include "cuda_check.cuh"
#include "gemm/gemm_workload.cuh"
#include "gemm/problem_workload.cuh"
#include "verify.hpp"

namespace tut::gemm {
namespace {

void cublas_check(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  const std::string text = std::string(what) + " failed: " + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")";
  if (s == CUBLAS_STATUS_ALLOC_FAILED) throw DeviceOutOfMemory(cudaErrorMemoryAllocation, text);
  throw CudaError(cudaErrorUnknown, text);
}

}  // namespace

Cublas::Cublas() {
  cublasHandle_t h = nullptr;
  cublas_check(cublasCreate(&h), "cublasCreate");
  handle_ = h;
  cublas_check(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
}

Cublas::~Cublas() {
  if (handle_) cublasDestroy(static_cast<cublasHandle_t>(handle_));
}

void Cublas::sgemm(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                   cudaStream_t stream) {
  if (m == 0 || n == 0) return;  // nothing to write (and cuBLAS would reject ld = 0)
  auto h = static_cast<cublasHandle_t>(handle_);
  cublas_check(cublasSetStream(h, stream), "cublasSetStream");
  // Row-major C = A B is column-major C^T = B^T A^T: operands swapped, dimensions (n, m, k).
  // Leading dimensions must be at least 1 even where the matrix is empty (k == 0).
  cublas_check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, B, std::max(n, 1), A, std::max(k, 1),
                           &beta, C, std::max(n, 1)),
               "cublasSgemm");
}

void GemmProblem::validate(long long m, long long n, long long k) {
  if (m < 0 || n < 0 || k < 0) throw UsageError("GEMM dimensions must not be negative");
  const long long limit = INT_MAX;
  if (m > limit || n > limit || k > limit || m * k > limit || k * n > limit || m * n > limit)
    throw UsageError("GEMM of " + std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k) +
                     ": every matrix must have fewer than 2^31 elements (the kernels index with 32-bit ints)");
}

std::size_t GemmProblem::device_bytes(int m, int n, int k) {
  // A, B, C and the pristine copy of C. cuBLAS's own workspace is small and not counted.
  return sizeof(float) * (static_cast<std::size_t>(m) * k + static_cast<std::size_t>(k) * n +
                          2 * static_cast<std::size_t>(m) * n);
}

GemmProblem::GemmProblem(int m, int n, int k, float alpha, float beta, std::uint64_t seed, int offset_floats)
    : m_(m), n_(n), k_(k), alpha_(alpha), beta_(beta), offset_(offset_floats) {
  validate(m, n, k);
  const std::size_t mk = static_cast<std::size_t>(m) * k, kn = static_cast<std::size_t>(k) * n,
                    mn = static_cast<std::size_t>(m) * n;
  auto upload = [&](DeviceBuffer<float>& buf, const std::vector<float>& host) {
    buf = DeviceBuffer<float>(host.size() + offset_);
    if (offset_ > 0) buf.zero();  // the floats before the matrix too: watch() reads them (initcheck)
    if (!host.empty())
      TUT_CUDA_CHECK(cudaMemcpy(buf.data() + offset_, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  };
  // Three independent streams of the counter-based generator (seed, seed + 1, seed + 2).
  upload(a_, random_floats(mk, seed));
  upload(b_, random_floats(kn, seed + 1));
  host_c0_ = random_floats(mn, seed + 2);
  upload(c_initial_, host_c0_);
  c_ = DeviceBuffer<float>(mn + offset_);
  // A and B are inputs no run may change (nor the pristine C); C is in/out (beta != 0), so only its guards count.
  a_.label("A").watch();
  b_.label("B").watch();
  c_initial_.label("initial C").watch();
  c_.label("C");
}

std::vector<float> GemmProblem::download_c() const {
  std::vector<float> host(static_cast<std::size_t>(m_) * n_);
  if (!host.empty())
    TUT_CUDA_CHECK(cudaMemcpy(host.data(), c_device(), host.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

void GemmProblem::reset_c(cudaStream_t stream) {
  const std::size_t bytes = static_cast<std::size_t>(m_) * n_ * sizeof(float);
  if (bytes == 0) return;
  if (beta_ != 0.0f) {
    TUT_CUDA_CHECK(cudaMemcpyAsync(c_device(), c_initial_.data() + offset_, bytes, cudaMemcpyDeviceToDevice, stream));
  } else {
    TUT_CUDA_CHECK(cudaMemsetAsync(c_device(), 0xFF, bytes, stream));  // 0xFFFFFFFF is a NaN
  }
}

void GemmProblem::run(const GemmLaunch& launch, cudaStream_t stream) {
  launch(m_, n_, k_, alpha_, a_device(), b_device(), beta_, c_device(), stream);
}

void GemmProblem::run_cublas(cudaStream_t stream) {
  cublas_.sgemm(m_, n_, k_, alpha_, a_device(), b_device(), beta_, c_device(), stream);
}

void GemmProblem::compute_references(bool cpu) {
  reset_c(0);
  run_cublas(0);
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  cublas_ref_ = download_c();
  cpu_ref_.clear();
  const double work = static_cast<double>(m_) * n_ * k_;
  if (cpu && work <= static_cast<double>(kCpuReferenceMaxWork) && m_ > 0 && n_ > 0) {
    std::vector<float> a(static_cast<std::size_t>(m_) * k_), b(static_cast<std::size_t>(k_) * n_);
    if (!a.empty()) TUT_CUDA_CHECK(cudaMemcpy(a.data(), a_device(), a.size() * sizeof(float), cudaMemcpyDeviceToHost));
    if (!b.empty()) TUT_CUDA_CHECK(cudaMemcpy(b.data(), b_device(), b.size() * sizeof(float), cudaMemcpyDeviceToHost));
    cpu_ref_.resize(static_cast<std::size_t>(m_) * n_);
    cpu_gemm_reference(m_, n_, k_, alpha_, a.data(), b.data(), beta_, host_c0_.data(), cpu_ref_.data());
  }
}

GemmProblem::Errors GemmProblem::check(bool is_cublas) const {
  Errors e;
  const std::vector<float> got = download_c();
  if (!is_cublas && cublas_ref_.size() == got.size()) {
    e.vs_cublas = gemm_error(cublas_ref_.data(), got.data(), got.size());
    e.has_cublas = true;
    e.check = judge_gemm(e.vs_cublas, k_, n_, "cuBLAS");
  }
  if (!cpu_ref_.empty()) {
    e.vs_cpu = gemm_error(cpu_ref_.data(), got.data(), got.size());
    e.has_cpu = true;
    CheckResult c = judge_gemm(e.vs_cpu, k_, n_, "the CPU FP64 reference");
    if (e.check.ok) e.check = c;
  }
  return e;
}

dim3 tile_grid(int m, int n, int tile_m, int tile_n) {
  const long long rows = (static_cast<long long>(m) + tile_m - 1) / tile_m;
  const long long cols = (static_cast<long long>(n) + tile_n - 1) / tile_n;
  if (rows > 65535)
    throw UsageError("M = " + std::to_string(m) + " needs " + std::to_string(rows) + " row tiles of " +
                     std::to_string(tile_m) + ", more than gridDim.y allows (65535)");
  if (rows == 0 || cols == 0) throw std::invalid_argument("tile_grid: empty output (launch nothing instead)");
  return dim3(static_cast<unsigned>(cols), static_cast<unsigned>(rows));
}

GemmDims gemm_dims(const Options& opt) {
  auto dim = [&](const char* name) {
    auto it = opt.extra.find(name);
    const long long v = it == opt.extra.end() ? 0 : it->second;
    return v > 0 ? v : static_cast<long long>(std::min<std::uint64_t>(opt.size, LLONG_MAX));
  };
  return {dim("m"), dim("n"), dim("k")};
}

namespace {

// After the table: the shape, alpha and beta, the peak used for "% FP32 peak", and each variant's errors.
void print_summary(std::ostream& os, const DeviceInfo& info, const RunRecord& rec) {
  const GemmDims& d = rec.dims;
  char peak[32];
  std::snprintf(peak, sizeof peak, "%.0f", info.peak_fp32_gflops);
  os << "\nC = alpha A B + beta C, row-major, M = " << d.m << ", N = " << d.n << ", K = " << d.k
     << ", alpha = " << kDefaultAlpha << ", beta = " << kDefaultBeta
     << "; GFLOP/s counts 2 M N K flops; % FP32 peak is of " << peak << " GFLOP/s (see the banner).\n";
  write_error_table(os, rec, "the CPU FP64 reference");
}

}  // namespace

void write_error_table(std::ostream& os, const RunRecord& rec, const std::string& cpu_words) {
  if (rec.rows.empty()) return;
  const double tol = gemm_tolerance(rec.dims.k);
  os << "Errors: relative Frobenius error ||C - R|| / ||R|| (tolerance 8 eps sqrt(K) = " << error_text(tol)
     << ") and max |C - R| / rms(R) (bound " << error_text(kMaxErrorFactor * tol) << "), against cuBLAS in this run"
     << (rec.cpu_reference ? " and " + cpu_words : std::string(" (no CPU reference above M N K = 2^30)")) << ":\n";
  std::vector<std::string> head = {"variant", "vs cuBLAS frob", "vs cuBLAS max"};
  if (rec.cpu_reference) {
    head.push_back("vs CPU frob");
    head.push_back("vs CPU max");
  }
  head.push_back("check");
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : rec.rows) {
    const auto& e = r.errors;
    std::vector<std::string> row = {r.variant, e.has_cublas ? error_text(e.vs_cublas.rel_frobenius) : "-",
                                    e.has_cublas ? error_text(e.vs_cublas.max_error) : "-"};
    if (rec.cpu_reference) {
      row.push_back(e.has_cpu ? error_text(e.vs_cpu.rel_frobenius) : "-");
      row.push_back(e.has_cpu ? error_text(e.vs_cpu.max_error) : "-");
    }
    row.push_back(e.check.ok ? "ok" : "FAILED");
    rows.push_back(row);
  }
  write_text_table(os, head, rows);
}

tut::ChapterSpec make_gemm_chapter(const std::string& id, const std::string& title, std::vector<GemmVariant> variants) {
  ChapterSpec spec;
  spec.id = id;
  spec.title = title;
  spec.default_size = "4096";
  for (const auto& v : variants) spec.variants.push_back({v.name, v.description, false, v.known_defect, v.on_demand});
  spec.variants.push_back({"cublas", "cublasSgemm, FP32, CUBLAS_DEFAULT_MATH (no TF32): the vendor reference", true, ""});
  spec.ratio_to = "cublas";
  spec.extra_options = {
      {"m", "rows of A and C (0: use --size)", 0, 0, INT_MAX},
      {"n", "columns of B and C (0: use --size)", 0, 0, INT_MAX},
      {"k", "columns of A, rows of B (0: use --size)", 0, 0, INT_MAX},
  };
  auto record = std::make_shared<RunRecord>();
  spec.make_workload = [variants, record] {
    return std::make_unique<ProblemWorkload<GemmProblem, GemmVariant, float>>(variants, record, kDefaultAlpha,
                                                                              kDefaultBeta, "GEMM");
  };
  spec.summary = [record, variants](std::ostream& os, const DeviceInfo& info, const Options&,
                                     const std::vector<Result>& results) {
    print_summary(os, info, *record);
    const GemmDims& d = record->dims;
    for (const auto& v : variants)  // what the variants that ran chose at this shape
      if (v.explain && std::any_of(results.begin(), results.end(), [&](const Result& r) { return r.variant == v.name; }))
        os << v.name << " at " << d.m << " x " << d.n << " x " << d.k << ": "
           << v.explain(static_cast<int>(d.m), static_cast<int>(d.n), static_cast<int>(d.k)) << "\n";
  };
  return spec;
}

}  // namespace tut::gemm
