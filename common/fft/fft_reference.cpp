#include "fft_reference.hpp"

#include <cmath>
#include <limits>
#include <mutex>
#include <map>
#include <memory>

#include "verify.hpp"

namespace tut::fft {
namespace {

// exp(-2*pi*i*k/n) for k < n/2, computed once per length. The angle 2*pi*k/n is formed in double from
// exact integers; std::cos/std::sin are accurate to about one ulp of double.
const std::vector<std::complex<double>>& twiddle_table(int log2n) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<std::vector<std::complex<double>>>> tables;
  std::lock_guard<std::mutex> lock(mutex);
  auto& t = tables[log2n];
  if (!t) {
    const std::size_t n = std::size_t{1} << log2n;
    t = std::make_unique<std::vector<std::complex<double>>>(n / 2 > 0 ? n / 2 : 1);
    const double pi = 3.14159265358979323846;
    for (std::size_t k = 0; k < n / 2; ++k) {
      const double a = -2.0 * pi * static_cast<double>(k) / static_cast<double>(n);
      (*t)[k] = {std::cos(a), std::sin(a)};
    }
  }
  return *t;
}

}  // namespace

void cpu_fft(const std::complex<double>* in, std::complex<double>* out, int log2n) {
  const std::size_t n = std::size_t{1} << log2n;
  // Bit-reversed copy, then log2n in-place passes of butterflies (decimation in time).
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t r = 0;
    for (int b = 0; b < log2n; ++b) r |= ((i >> b) & 1u) << (log2n - 1 - b);
    out[r] = in[i];
  }
  const auto& w = twiddle_table(log2n);
  for (std::size_t half = 1; half < n; half *= 2) {
    const std::size_t stride = n / (2 * half);  // twiddle index step for this pass
    for (std::size_t start = 0; start < n; start += 2 * half)
      for (std::size_t k = 0; k < half; ++k) {
        const std::complex<double> a = out[start + k];
        const std::complex<double> b = out[start + k + half] * w[k * stride];
        out[start + k] = a + b;
        out[start + k + half] = a - b;
      }
  }
}

void cpu_fft_batch(const std::complex<double>* in, std::complex<double>* out, int log2n, std::size_t batch) {
  const std::size_t n = std::size_t{1} << log2n;
  (void)twiddle_table(log2n);  // build the table once before the threads start
  // parallel_for runs serially below 2^16 items; split by signals, but count work in elements.
  if (batch * n >= (std::size_t{1} << 16) && batch > 1) {
    parallel_for(batch * 65536, [&](std::size_t b, std::size_t e) {
      const std::size_t sb = b / 65536, se = e / 65536;
      for (std::size_t s = sb; s < se; ++s) cpu_fft(in + s * n, out + s * n, log2n);
    });
  } else {
    for (std::size_t s = 0; s < batch; ++s) cpu_fft(in + s * n, out + s * n, log2n);
  }
}

std::vector<std::size_t> checked_signals(std::size_t batch, std::size_t n, std::size_t max_elements) {
  const std::size_t count = std::max<std::size_t>(1, std::min<std::size_t>(batch, max_elements / n));
  std::vector<std::size_t> signals(count);
  for (std::size_t i = 0; i < count; ++i) signals[i] = count == 1 ? 0 : i * (batch - 1) / (count - 1);
  return signals;
}

std::vector<std::complex<double>> reference_transforms(const float* interleaved, int log2n,
                                                       const std::vector<std::size_t>& signals) {
  const std::size_t n = std::size_t{1} << log2n;
  std::vector<std::complex<double>> in(signals.size() * n), out(signals.size() * n);
  for (std::size_t i = 0; i < signals.size(); ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const float* v = interleaved + 2 * (signals[i] * n + j);
      in[i * n + j] = {v[0], v[1]};
    }
  cpu_fft_batch(in.data(), out.data(), log2n, signals.size());
  return out;
}

double relative_l2_error(const std::complex<double>* want, const float* got, std::size_t n) {
  double diff2 = 0.0, ref2 = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double re = got[2 * i], im = got[2 * i + 1];
    if (!std::isfinite(re) || !std::isfinite(im)) return std::numeric_limits<double>::infinity();
    const double dr = re - want[i].real(), di = im - want[i].imag();
    diff2 += dr * dr + di * di;
    ref2 += std::norm(want[i]);
  }
  return ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
}

double fft_tolerance(int log2n, double cufft_worst_error) {
  return std::max(4.0 * cufft_worst_error, 3.0 * kFloatEps * log2n);
}

}  // namespace tut::fft
