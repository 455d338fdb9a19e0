#include "gemm/gemm_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <thread>

namespace tut::gemm {

double gemm_tolerance(std::int64_t k) {
  return kToleranceFactor * kFp32Epsilon * std::sqrt(static_cast<double>(std::max<std::int64_t>(k, 1)));
}

void cpu_gemm_reference(int m, int n, int k, double alpha, const float* a, const float* b, double beta,
                        const float* c0, double* out) {
  if (m <= 0 || n <= 0) return;
  // i-p-j order: the inner loop runs along a row of B and of the output, contiguous in memory.
  auto rows = [&](int first, int last) {
    std::vector<double> acc(static_cast<std::size_t>(n));
    for (int i = first; i < last; ++i) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int p = 0; p < k; ++p) {
        const double aip = a[static_cast<std::size_t>(i) * k + p];
        const float* brow = b + static_cast<std::size_t>(p) * n;
        for (int j = 0; j < n; ++j) acc[j] += aip * brow[j];
      }
      double* orow = out + static_cast<std::size_t>(i) * n;
      const float* crow = c0 + static_cast<std::size_t>(i) * n;
      for (int j = 0; j < n; ++j) orow[j] = alpha * acc[j] + (beta == 0.0 ? 0.0 : beta * crow[j]);
    }
  };
  const int threads = static_cast<int>(std::min<unsigned>(std::max(1u, std::thread::hardware_concurrency()),
                                                          static_cast<unsigned>(m)));
  if (threads <= 1 || static_cast<double>(m) * n * std::max(k, 1) < 1e6) {
    rows(0, m);
    return;
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    const int first = static_cast<int>(static_cast<long long>(m) * t / threads);
    const int last = static_cast<int>(static_cast<long long>(m) * (t + 1) / threads);
    pool.emplace_back(rows, first, last);
  }
  for (auto& th : pool) th.join();
}

namespace {

template <class Ref>
GemmError error_of(const Ref* expected, const float* actual, std::size_t count) {
  GemmError e;
  if (count == 0) return e;
  e.compared = true;
  // Partial sums per chunk of 2^20 elements on all cores, combined in order (deterministic).
  struct Part {
    double diff2 = 0, ref2 = 0, max_abs = -1;
    std::size_t worst = 0, nonfinite = 0, first_nonfinite = SIZE_MAX, reference_nonfinite = 0;
  };
  const std::size_t chunk = std::size_t{1} << 20;
  std::vector<Part> parts((count + chunk - 1) / chunk);
  auto scan_parts = [&](std::size_t first, std::size_t last) {
    for (std::size_t p = first; p < last; ++p) {
      Part& s = parts[p];
      for (std::size_t i = p * chunk, hi = std::min(count, i + chunk); i < hi; ++i) {
        const double r = static_cast<double>(expected[i]), c = actual[i];
        if (!std::isfinite(r)) {
          ++s.reference_nonfinite;
          continue;
        }
        if (!std::isfinite(c)) {
          if (s.first_nonfinite == SIZE_MAX) s.first_nonfinite = i;
          ++s.nonfinite;
          continue;
        }
        const double d = c - r;
        s.diff2 += d * d;
        s.ref2 += r * r;
        if (std::fabs(d) > s.max_abs) {
          s.max_abs = std::fabs(d);
          s.worst = i;
        }
      }
    }
  };
  const std::size_t threads =
      std::min<std::size_t>(parts.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t)
    pool.emplace_back(scan_parts, parts.size() * t / threads, parts.size() * (t + 1) / threads);
  scan_parts(0, parts.size() / threads);
  for (auto& th : pool) th.join();
  double diff2 = 0, ref2 = 0, max_abs = -1;
  for (const Part& s : parts) {
    diff2 += s.diff2;
    ref2 += s.ref2;
    if (s.max_abs > max_abs) {
      max_abs = s.max_abs;
      e.worst = s.worst;
    }
    if (s.nonfinite && e.nonfinite == 0) e.first_nonfinite = s.first_nonfinite;
    e.nonfinite += s.nonfinite;
    e.reference_nonfinite += s.reference_nonfinite;
  }
  const double rms = std::sqrt(ref2 / static_cast<double>(count));
  e.rel_frobenius = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  e.max_error = std::max(max_abs, 0.0) / (rms > 0 ? rms : 1.0);
  const std::size_t at = e.nonfinite ? e.first_nonfinite : e.worst;
  e.expected_at = static_cast<double>(expected[at]);
  e.actual_at = actual[at];
  return e;
}

}  // namespace

GemmError gemm_error(const float* expected, const float* actual, std::size_t count) {
  return error_of(expected, actual, count);
}
GemmError gemm_error(const double* expected, const float* actual, std::size_t count) {
  return error_of(expected, actual, count);
}

std::string error_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

CheckResult judge_gemm(const GemmError& e, std::int64_t k, int n_cols, const std::string& against) {
  CheckResult r;
  if (!e.compared) return r;
  const double tol = gemm_tolerance(k);
  const std::size_t at = e.nonfinite ? e.first_nonfinite : e.worst;
  auto where = [&] {
    std::ostringstream w;
    if (n_cols > 0) w << " (row " << at / static_cast<std::size_t>(n_cols) << ", column " << at % n_cols << ")";
    return w.str();
  };
  std::ostringstream d;
  // Written so that a NaN error measure fails too (every comparison with NaN is false).
  if (e.reference_nonfinite) {
    d << "the reference (" << against << ") holds " << e.reference_nonfinite << " NaN or infinite element"
      << (e.reference_nonfinite == 1 ? "" : "s") << ": nothing to compare with";
  } else if (e.nonfinite) {
    d << e.nonfinite << " NaN or infinite element" << (e.nonfinite == 1 ? "" : "s") << where() << " vs " << against;
  } else if (!(e.rel_frobenius <= tol)) {
    d << "relative Frobenius error " << error_text(e.rel_frobenius) << " > tolerance " << error_text(tol)
      << " vs " << against << "; worst element" << where();
  } else if (!(e.max_error <= kMaxErrorFactor * tol)) {
    d << "max error " << error_text(e.max_error) << " x rms(C) > " << error_text(kMaxErrorFactor * tol)
      << " vs " << against << " at" << where();
  } else {
    return r;
  }
  r.ok = false;
  r.bad_count = 0;  // the message names the element; counting every bad one would need a second pass
  r.first_bad = at;
  r.expected = value_text(e.expected_at);
  r.actual = value_text(e.actual_at);
  r.detail = d.str() + ": expected " + r.expected + ", got " + r.actual;
  return r;
}

}  // namespace tut::gemm
