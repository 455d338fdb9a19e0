// The SGEMM ladder's check, host side: the FP64 CPU reference, the error measures and the tolerance.
// Plain C++ (no CUDA), so the host tests cover it on any machine.
//
// Every GEMM in the ladder computes, row-major, C[m x n] = alpha * A[m x k] * B[k x n] + beta * C with
// leading dimensions k, n and n. A run is judged by two numbers against a reference R:
//   relative Frobenius error  ||C - R||_F / ||R||_F            <= tolerance(K)
//   max error                 max_ij |C_ij - R_ij| / rms(R)     <= kMaxErrorFactor * tolerance(K)
// and any NaN or infinity in C fails. Why these bounds, and why they grow with K, is explained at
// gemm_tolerance() below and in chapters/20-sgemm-naive/README.md ("The check").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "verify.hpp"

namespace tut::gemm {

// FP32 machine epsilon (2^-23): the distance from 1 to the next float.
constexpr double kFp32Epsilon = 1.0 / (1 << 23);

// tolerance(K) = kToleranceFactor * eps_fp32 * sqrt(max(K, 1)).
//
// Why sqrt(K): each output element is a dot product of length K. Summed in FP32 one term after another
// (the naive kernel's order), step j adds a rounding error of at most 2^-24 times the partial sum s_j.
// With inputs uniform in [-1, 1) the partial sums wander like a random walk (|s_j| ~ sqrt(j / 9)) and the
// rounding errors have random signs, so the error of the sum grows like 2^-24 * K / sqrt(54) while the
// element itself is ~ sqrt(K) / 3: a relative error of about 0.4 * 2^-24 * sqrt(K) = 0.2 * eps * sqrt(K).
// Blocked orders (shared-memory tiles, cuBLAS's split-K) only shorten the chains and lower it.
// Why the factor 8: 40 times the expected error of the worst summation order above, so no correct
// kernel fails by bad luck, while the smallest real bug stays far above it: a kernel that drops one of
// the K terms of every element is off by ~ 1 / sqrt(K) (0.03 at K = 1025), which exceeds 8 * eps * sqrt(K)
// for every K below 10^5; swapped indices or a missing tile are off by O(1).
constexpr double kToleranceFactor = 8.0;
double gemm_tolerance(std::int64_t k);

// The max error is checked too, because one wrong element among m * n barely moves the Frobenius norm
// (it adds ~ 1 / sqrt(m n)); 16 times the Frobenius tolerance leaves room for the largest of m * n
// Gaussian-like errors (about 6 standard deviations at m n = 2^26) and still catches any element that is
// off by a fraction of the typical magnitude of C, such as an element the kernel never wrote.
constexpr double kMaxErrorFactor = 16.0;

// Row-major reference in FP64 (products and sums in double): out[i n + j] = alpha * sum_p A[i k + p] *
// B[p n + j] + beta * c0[i n + j], except that beta == 0 ignores c0 (BLAS: C need not be initialised).
// Parallel over rows on all host cores. Cost m * n * k multiply-adds: callers keep m n k <= 2^30.
void cpu_gemm_reference(int m, int n, int k, double alpha, const float* a, const float* b, double beta,
                        const float* c0, double* out);

// The ladder computes the CPU reference when m * n * k is at most this (2^30: about a second on 16
// cores); larger problems are checked against cuBLAS only.
constexpr std::uint64_t kCpuReferenceMaxWork = std::uint64_t{1} << 30;

// Errors of `actual` (count elements) against `expected` (float: cuBLAS; double: the CPU).
struct GemmError {
  double rel_frobenius = 0.0;   // ||C - R||_F / ||R||_F (||C - R||_F when R is all zero)
  double max_error = 0.0;       // max |C - R| / rms(R) (max |C - R| when R is all zero)
  std::size_t worst = 0;        // index of the largest |C - R|
  std::size_t nonfinite = 0;    // NaN or infinity in C
  std::size_t first_nonfinite = 0;
  std::size_t reference_nonfinite = 0;  // NaN or infinity in the reference: nothing can be judged
  double expected_at = 0.0, actual_at = 0.0;  // at first_nonfinite if any, else at worst
  bool compared = false;        // false when there was nothing to compare (m * n == 0)
};

GemmError gemm_error(const float* expected, const float* actual, std::size_t count);
GemmError gemm_error(const double* expected, const float* actual, std::size_t count);

// The verdict: NaN/Inf, the Frobenius tolerance or the max-error bound; `against` names the reference
// in the message ("cuBLAS", "CPU FP64 reference"). n_cols turns the index into (row, column).
CheckResult judge_gemm(const GemmError& e, std::int64_t k, int n_cols, const std::string& against);

// A GEMM run's errors against cuBLAS (same process, same inputs) and the FP64 CPU reference, and the verdict.
struct GemmErrors {
  GemmError vs_cublas, vs_cpu;
  bool has_cublas = false, has_cpu = false;
  CheckResult check;  // the first failure, or ok
};

// "3.1e-07" style text for the tables.
std::string error_text(double v);

}  // namespace tut::gemm
