// Host tests of the SGEMM ladder's check: the FP64 reference on a hand-computed case, the tolerance's
// growth with K, and that the verdict catches NaN, a swapped index, a missing term and one unwritten
// element, while passing FP32 rounding.
#include "doctest.hpp"

#include <cmath>
#include <vector>

#include "gemm/gemm_check.hpp"
#include "verify.hpp"

using namespace tut;
using namespace tut::gemm;

namespace {

// FP32 GEMM in the naive kernel's order (one FMA after another along K), for realistic rounding.
std::vector<float> fp32_gemm(int m, int n, int k, float alpha, const std::vector<float>& a,
                             const std::vector<float>& b, float beta, const std::vector<float>& c0) {
  std::vector<float> c(static_cast<std::size_t>(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int p = 0; p < k; ++p) acc = std::fma(a[i * k + p], b[p * n + j], acc);
      c[i * n + j] = beta == 0.0f ? alpha * acc : std::fma(beta, c0[i * n + j], alpha * acc);
    }
  return c;
}

}  // namespace

TEST_CASE("gemm: the FP64 reference on a 2 x 3 x 2 case worked by hand") {
  // A = [1 2; 3 4], B = [1 0 -1; 2 1 0], C0 = all 1; alpha = 2, beta = -1.
  const std::vector<float> a = {1, 2, 3, 4}, b = {1, 0, -1, 2, 1, 0}, c0 = {1, 1, 1, 1, 1, 1};
  std::vector<double> out(6);
  cpu_gemm_reference(2, 3, 2, 2.0, a.data(), b.data(), -1.0, c0.data(), out.data());
  // A B = [5 2 -1; 11 4 -3]
  const std::vector<double> expected = {9, 3, -3, 21, 7, -7};
  for (int i = 0; i < 6; ++i) CHECK(out[i] == expected[i]);
  // beta = 0 ignores C0 even where it holds NaN (BLAS semantics).
  const std::vector<float> nan_c(6, std::nanf(""));
  cpu_gemm_reference(2, 3, 2, 1.0, a.data(), b.data(), 0.0, nan_c.data(), out.data());
  CHECK(out[0] == 5);
  CHECK(out[5] == -3);
  // K = 0: C = beta C0.
  cpu_gemm_reference(2, 3, 0, 2.0, a.data(), b.data(), -1.0, c0.data(), out.data());
  CHECK(out[4] == -1);
}

TEST_CASE("gemm: the multi-threaded reference matches a serial one") {
  const int m = 97, n = 131, k = 89;
  auto a = random_floats(m * k, 1), b = random_floats(k * n, 2), c0 = random_floats(m * n, 3);
  std::vector<double> out(m * n);
  cpu_gemm_reference(m, n, k, 1.5, a.data(), b.data(), -0.75, c0.data(), out.data());
  for (int i : {0, 17, 96})
    for (int j : {0, 64, 130}) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += static_cast<double>(a[i * k + p]) * b[p * n + j];
      CHECK(out[i * n + j] == doctest::Approx(1.5 * s - 0.75 * c0[i * n + j]).epsilon(1e-12));
    }
}

TEST_CASE("gemm: the tolerance grows like sqrt(K)") {
  CHECK(gemm_tolerance(0) == gemm_tolerance(1));
  CHECK(gemm_tolerance(1) == doctest::Approx(8.0 * kFp32Epsilon));
  CHECK(gemm_tolerance(4096) == doctest::Approx(64.0 * gemm_tolerance(1)));
}

TEST_CASE("gemm: FP32 rounding passes, with room to spare, at several K") {
  for (int k : {1, 17, 1025, 4096}) {
    const int m = 33, n = 65;
    auto a = random_floats(m * k, 10 + k), b = random_floats(k * n, 20 + k), c0 = random_floats(m * n, 30 + k);
    std::vector<double> ref(m * n);
    cpu_gemm_reference(m, n, k, 1.5, a.data(), b.data(), -0.75, c0.data(), ref.data());
    auto c = fp32_gemm(m, n, k, 1.5f, a, b, -0.75f, c0);
    GemmError e = gemm_error(ref.data(), c.data(), c.size());
    INFO("K = " << k << ": frob " << e.rel_frobenius << ", max " << e.max_error);
    CHECK(judge_gemm(e, k, n, "test").ok);
    CHECK(e.rel_frobenius < gemm_tolerance(k) / 4);  // the margin the tolerance's comment claims
  }
}

TEST_CASE("gemm: the verdict catches NaN, swapped indices, a dropped term and one unwritten element") {
  const int m = 31, n = 45, k = 1025;
  auto a = random_floats(m * k, 4), b = random_floats(k * n, 5), c0 = random_floats(m * n, 6);
  std::vector<double> ref(m * n);
  cpu_gemm_reference(m, n, k, 1.5, a.data(), b.data(), -0.75, c0.data(), ref.data());
  const auto good = fp32_gemm(m, n, k, 1.5f, a, b, -0.75f, c0);
  REQUIRE(judge_gemm(gemm_error(ref.data(), good.data(), good.size()), k, n, "t").ok);

  auto nan = good;
  nan[100] = std::nanf("");
  CheckResult r = judge_gemm(gemm_error(ref.data(), nan.data(), nan.size()), k, n, "t");
  CHECK_FALSE(r.ok);
  CHECK(r.first_bad == 100);
  CHECK(r.message().find("NaN") != std::string::npos);

  // The last term of every dot product dropped (a loop bound off by one).
  auto a_short = a;
  for (int i = 0; i < m; ++i) a_short[i * k + k - 1] = 0.0f;
  auto dropped = fp32_gemm(m, n, k, 1.5f, a_short, b, -0.75f, c0);
  CHECK_FALSE(judge_gemm(gemm_error(ref.data(), dropped.data(), dropped.size()), k, n, "t").ok);

  // B read as if it were transposed (an index swap on a non-square problem: use the k x n data as n x k
  // only where both fit).
  auto swapped = good;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) swapped[i * n + j] = good[(j % m) * n + (i % n)];
  CHECK_FALSE(judge_gemm(gemm_error(ref.data(), swapped.data(), swapped.size()), k, n, "t").ok);

  // One element left as the initial C (never written): invisible to the Frobenius norm at this size
  // only if the max check is missing.
  auto unwritten = good;
  unwritten[7 * n + 3] = c0[7 * n + 3];
  GemmError e = gemm_error(ref.data(), unwritten.data(), unwritten.size());
  r = judge_gemm(e, k, n, "t");
  CHECK_FALSE(r.ok);
  CHECK(r.first_bad == static_cast<std::size_t>(7 * n + 3));
  CHECK(r.message().find("row 7, column 3") != std::string::npos);
}

TEST_CASE("gemm: a reference that holds NaN fails the comparison instead of passing it silently") {
  std::vector<double> ref = {1.0, 2.0, std::nan(""), 4.0};
  std::vector<float> c = {1.0f, 2.0f, 3.0f, 4.0f};
  CheckResult r = judge_gemm(gemm_error(ref.data(), c.data(), 4), 4, 2, "cuBLAS");
  CHECK_FALSE(r.ok);
  CHECK(r.message().find("reference (cuBLAS)") != std::string::npos);
}

TEST_CASE("gemm: an all-zero reference is judged by the absolute error; an empty C passes") {
  std::vector<double> zero(8, 0.0);
  std::vector<float> c(8, 0.0f);
  CHECK(judge_gemm(gemm_error(zero.data(), c.data(), 8), 4, 2, "t").ok);
  c[3] = 1e-3f;
  CHECK_FALSE(judge_gemm(gemm_error(zero.data(), c.data(), 8), 4, 2, "t").ok);
  CHECK(judge_gemm(gemm_error(zero.data(), c.data(), 0), 4, 2, "t").ok);
}
