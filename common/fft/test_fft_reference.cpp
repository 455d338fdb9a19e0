// Host tests of the FFT ladder's CPU reference: against the O(N^2) definition in long double, and on
// transforms known exactly.
#include <cmath>
#include <complex>
#include <vector>

#include "doctest.hpp"
#include "fft_reference.hpp"
#include "verify.hpp"

using tut::fft::cpu_fft;
using tut::fft::cpu_fft_batch;
using cd = std::complex<double>;

namespace {

std::vector<cd> random_signal(std::size_t n, std::uint64_t seed) {
  std::vector<float> f = tut::random_floats(2 * n, seed);
  std::vector<cd> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = {f[2 * i], f[2 * i + 1]};
  return x;
}

// The definition, in long double with the phase reduced exactly as (j*k) mod n.
std::vector<cd> direct_dft(const std::vector<cd>& x) {
  const std::size_t n = x.size();
  const long double pi = 3.141592653589793238462643383279502884L;
  std::vector<cd> y(n);
  for (std::size_t k = 0; k < n; ++k) {
    long double re = 0, im = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const long double a = -2 * pi * static_cast<long double>((j * k) % n) / n;
      re += x[j].real() * std::cos(a) - x[j].imag() * std::sin(a);
      im += x[j].real() * std::sin(a) + x[j].imag() * std::cos(a);
    }
    y[k] = {static_cast<double>(re), static_cast<double>(im)};
  }
  return y;
}

double rel_error(const std::vector<cd>& want, const std::vector<cd>& got) {
  double d = 0, r = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    d += std::norm(got[i] - want[i]);
    r += std::norm(want[i]);
  }
  return std::sqrt(d / r);
}

}  // namespace

TEST_CASE("cpu_fft matches the direct DFT in long double, N = 8 .. 1024") {
  for (int log2n = 3; log2n <= 10; ++log2n) {
    const std::vector<cd> x = random_signal(std::size_t{1} << log2n, 7 + log2n);
    std::vector<cd> y(x.size());
    cpu_fft(x.data(), y.data(), log2n);
    INFO("N = 2^" << log2n);
    CHECK(rel_error(direct_dft(x), y) < 1e-14);
  }
}

TEST_CASE("cpu_fft: impulse, tone and constant") {
  const int log2n = 12;
  const std::size_t n = std::size_t{1} << log2n;
  std::vector<cd> x(n, {0, 0}), y(n);
  x[0] = 1;
  cpu_fft(x.data(), y.data(), log2n);
  for (const cd& v : y) CHECK(std::abs(v - cd{1, 0}) < 1e-15);
  const std::size_t f = 37;
  for (std::size_t j = 0; j < n; ++j) x[j] = std::polar(1.0, 2 * M_PI * static_cast<double>((f * j) % n) / n);
  cpu_fft(x.data(), y.data(), log2n);
  for (std::size_t k = 0; k < n; ++k) CHECK(std::abs(y[k] - (k == f ? cd(n, 0) : cd(0, 0))) < 1e-9);
  std::fill(x.begin(), x.end(), cd{1, 0});
  cpu_fft(x.data(), y.data(), log2n);
  CHECK(y[0] == cd(n, 0));
  for (std::size_t k = 1; k < n; ++k) CHECK(std::abs(y[k]) == 0.0);
}

TEST_CASE("cpu_fft_batch transforms each signal on its own") {
  const int log2n = 5;
  const std::size_t n = 32, batch = 4099;  // enough signals for the threaded path
  const std::vector<cd> x = random_signal(n * batch, 99);
  std::vector<cd> y(x.size()), one(n);
  cpu_fft_batch(x.data(), y.data(), log2n, batch);
  for (std::size_t s : {std::size_t{0}, std::size_t{1}, batch / 2, batch - 1}) {
    cpu_fft(x.data() + s * n, one.data(), log2n);
    for (std::size_t k = 0; k < n; ++k) CHECK(y[s * n + k] == one[k]);
  }
}

TEST_CASE("relative_l2_error: exact, small, and non-finite") {
  std::vector<cd> want = {{1, 0}, {0, 1}};
  std::vector<float> got = {1, 0, 0, 1};
  CHECK(tut::fft::relative_l2_error(want.data(), got.data(), 2) == 0.0);
  got[0] = 1.0f + 1e-3f;
  CHECK(tut::fft::relative_l2_error(want.data(), got.data(), 2) == doctest::Approx(1e-3 / std::sqrt(2.0)).epsilon(1e-3));
  got[3] = NAN;
  CHECK(std::isinf(tut::fft::relative_l2_error(want.data(), got.data(), 2)));
  CHECK(tut::fft::fft_tolerance(10, 0.0) == doctest::Approx(30 * tut::fft::kFloatEps));
  CHECK(tut::fft::fft_tolerance(10, 1e-5) == doctest::Approx(4e-5));
}

TEST_CASE("checked_signals: every signal up to the cap, else an evenly spaced sample with the first and the last") {
  using tut::fft::checked_signals;
  CHECK(checked_signals(1, 1024, 1 << 23) == std::vector<std::size_t>{0});
  CHECK(checked_signals(3, 1024, 1 << 23) == std::vector<std::size_t>{0, 1, 2});
  CHECK(checked_signals(5, 1 << 22, 1 << 23) == std::vector<std::size_t>{0, 4});        // 2 fit: first and last
  CHECK(checked_signals(7, 1 << 22, 1 << 21) == std::vector<std::size_t>{0});            // a signal over the cap: one
  const std::vector<std::size_t> s = checked_signals(1000, 1 << 16, 1 << 23);           // 128 of 1000
  REQUIRE(s.size() == 128);
  CHECK(s.front() == 0);
  CHECK(s.back() == 999);
  for (std::size_t i = 1; i < s.size(); ++i) CHECK(s[i] > s[i - 1]);
}

TEST_CASE("reference_transforms: the CPU FFT of exactly the chosen signals, in their order") {
  const int log2n = 4;
  const std::size_t n = 16, batch = 5;
  std::vector<float> interleaved(2 * n * batch);
  for (std::size_t i = 0; i < interleaved.size(); ++i) interleaved[i] = static_cast<float>((i * 37) % 11) - 5.0f;
  const std::vector<std::size_t> signals{4, 1};
  const std::vector<cd> got = tut::fft::reference_transforms(interleaved.data(), log2n, signals);
  REQUIRE(got.size() == 2 * n);
  for (std::size_t k = 0; k < 2; ++k) {
    std::vector<cd> x(n), want(n);
    for (std::size_t j = 0; j < n; ++j)
      x[j] = {interleaved[2 * (signals[k] * n + j)], interleaved[2 * (signals[k] * n + j) + 1]};
    cpu_fft(x.data(), want.data(), log2n);
    for (std::size_t j = 0; j < n; ++j) CHECK(got[k * n + j] == want[j]);
  }
}
