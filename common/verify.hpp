// Seeded random inputs and comparisons against CPU references. Host-only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace tut {

// The byte every output buffer is filled with before a checked run: 0xAB repeated is neither zero
// nor a small integer nor a normal-looking float, so an element the kernel forgot to write stands out.
constexpr unsigned char kPoisonByte = 0xAB;

// Counter-based generator: value i depends only on (seed, i), so inputs of any size are made in
// parallel and are the same on every machine.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline std::uint64_t random_bits(std::uint64_t seed, std::uint64_t i) {
  return splitmix64(splitmix64(seed) ^ i);
}

// Runs body(begin, end) over [0, n) on all host cores, in contiguous ranges of at least `min_items` items (so
// cheap per-element loops stay on one thread for small n). Loops over heavy items, such as chunks of 2^22
// elements, pass min_items = 1.
template <class Body>
void parallel_for(std::size_t n, Body body, std::size_t min_items = std::size_t{1} << 14) {
  const std::size_t most = std::max<std::size_t>(1, n / std::max<std::size_t>(1, min_items));
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), most));
  if (threads <= 1) {
    body(std::size_t{0}, n);
    return;
  }
  std::vector<std::thread> pool;
  std::size_t chunk = (n + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    std::size_t b = t * chunk, e = std::min(n, b + chunk);
    if (b >= e) break;
    pool.emplace_back([=] { body(b, e); });
  }
  for (auto& th : pool) th.join();
}

// n integers drawn uniformly from the full range of T (the whole int32 range for int32_t).
template <class T>
std::vector<T> random_integers(std::size_t n, std::uint64_t seed) {
  static_assert(std::is_integral_v<T>);
  std::vector<T> v(n);
  parallel_for(n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) v[i] = static_cast<T>(random_bits(seed, i));
  });
  return v;
}

// n integers uniform in [lo, hi].
template <class T>
std::vector<T> random_integers(std::size_t n, std::uint64_t seed, T lo, T hi) {
  static_assert(std::is_integral_v<T>);
  std::vector<T> v(n);
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
  parallel_for(n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      std::uint64_t r = random_bits(seed, i);
      v[i] = static_cast<T>(static_cast<std::uint64_t>(lo) + (span ? r % span : r));
    }
  });
  return v;
}

// n floats uniform in [lo, hi).
inline std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo = -1.f, float hi = 1.f) {
  std::vector<float> v(n);
  parallel_for(n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      double u = static_cast<double>(random_bits(seed, i) >> 11) * 0x1.0p-53;
      v[i] = static_cast<float>(lo + (hi - lo) * u);
    }
  });
  return v;
}

// The result of comparing an output with its reference.
struct CheckResult {
  bool ok = true;
  std::size_t bad_count = 0;
  std::size_t first_bad = 0;
  std::string expected;  // value at first_bad, as text
  std::string actual;
  std::string detail;    // free text, e.g. "relative error 3e-2 > 1e-5" or "count 7 != 9"

  // One line: "ok" or "MISMATCH: 12 of 1024 elements differ; first at index 5: expected 3, got -1".
  std::string message() const {
    if (ok) return "ok";
    std::ostringstream m;
    m << "MISMATCH: ";
    if (bad_count) {
      m << bad_count << (bad_count == 1 ? " element differs" : " elements differ") << "; first at index "
        << first_bad << ": expected " << expected << ", got " << actual;
      if (!detail.empty()) m << "; ";
    }
    m << detail;
    return m.str();
  }
};

inline CheckResult check_fail(std::string detail) {
  CheckResult r;
  r.ok = false;
  r.detail = std::move(detail);
  return r;
}

template <class T>
std::string value_text(const T& v) {
  std::ostringstream s;
  if constexpr (std::is_same_v<T, signed char> || std::is_same_v<T, unsigned char>) s << +v;
  else s << v;
  return s.str();
}

// Exact element-wise comparison (integers, or floats that must match bit for bit). Runs on all
// host cores, since scan tests compare arrays of more than 2^31 elements.
template <class T>
CheckResult compare_exact(const T* expected, const T* actual, std::size_t n) {
  struct Part { std::size_t bad = 0, first = SIZE_MAX; };
  const std::size_t chunk = std::size_t{1} << 22;
  std::vector<Part> parts((n + chunk - 1) / chunk);
  parallel_for(parts.size(), [&](std::size_t b, std::size_t e) {
    for (std::size_t p = b; p < e; ++p) {
      const std::size_t lo = p * chunk, hi = std::min(n, lo + chunk);
      for (std::size_t i = lo; i < hi; ++i)
        if (std::memcmp(&expected[i], &actual[i], sizeof(T)) != 0) {
          if (parts[p].first == SIZE_MAX) parts[p].first = i;
          ++parts[p].bad;
        }
    }
  }, 1);
  CheckResult r;
  for (const Part& p : parts) {
    if (p.bad && r.ok) {
      r.ok = false;
      r.first_bad = p.first;
      r.expected = value_text(expected[p.first]);
      r.actual = value_text(actual[p.first]);
    }
    r.bad_count += p.bad;
  }
  return r;
}

template <class T>
CheckResult compare_exact(const std::vector<T>& expected, const std::vector<T>& actual) {
  if (expected.size() != actual.size())
    return check_fail("size " + std::to_string(actual.size()) + " != expected " +
                      std::to_string(expected.size()));
  return compare_exact(expected.data(), actual.data(), expected.size());
}

// Floats: relative L2 error ||actual - expected|| / ||expected|| must be <= tolerance; any NaN or
// infinity in the output fails. The first element whose own relative error exceeds the tolerance
// is reported as the first bad one.
template <class T>
CheckResult compare_relative(const T* expected, const T* actual, std::size_t n, double tolerance) {
  CheckResult r;
  double diff2 = 0.0, ref2 = 0.0;
  std::size_t first_nonfinite = n;
  for (std::size_t i = 0; i < n; ++i) {
    double a = static_cast<double>(actual[i]), e = static_cast<double>(expected[i]);
    if (!std::isfinite(a)) {
      if (first_nonfinite == n) first_nonfinite = i;
      ++r.bad_count;
      continue;
    }
    diff2 += (a - e) * (a - e);
    ref2 += e * e;
  }
  std::ostringstream d;
  if (first_nonfinite != n) {
    r.ok = false;
    r.first_bad = first_nonfinite;
    r.expected = value_text(expected[first_nonfinite]);
    r.actual = value_text(actual[first_nonfinite]);
    d << "output holds NaN or infinity";
    r.detail = d.str();
    return r;
  }
  double rel = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  if (rel <= tolerance) return r;
  r.ok = false;
  for (std::size_t i = 0; i < n; ++i) {
    double a = static_cast<double>(actual[i]), e = static_cast<double>(expected[i]);
    if (std::fabs(a - e) > tolerance * std::max(1.0, std::fabs(e))) {
      if (r.bad_count == 0) {
        r.first_bad = i;
        r.expected = value_text(expected[i]);
        r.actual = value_text(actual[i]);
      }
      ++r.bad_count;
    }
  }
  d << "relative L2 error " << rel << " > tolerance " << tolerance;
  r.detail = d.str();
  return r;
}

}  // namespace tut
