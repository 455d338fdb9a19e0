// The FFT ladder's host-side reference and error measures (chapters 30-39). Host-only: no CUDA here, so
// the host tests check the reference itself on machines without a GPU.
#pragma once

#include <complex>
#include <cstddef>
#include <vector>

namespace tut::fft {

// Forward DFT of one signal of length n = 2^log2n in double precision, O(n log n):
// X[k] = sum_j x[j] * exp(-2*pi*i*j*k/n), no normalisation. Iterative radix-2 with twiddles taken from
// a table computed once per length by std::cos/std::sin of exact multiples of 2*pi/n (error about 1e-16,
// far below the single-precision errors being measured).
void cpu_fft(const std::complex<double>* in, std::complex<double>* out, int log2n);

// The same for `batch` contiguous signals, in parallel over all host cores.
void cpu_fft_batch(const std::complex<double>* in, std::complex<double>* out, int log2n, std::size_t batch);

// The signals of a batch that a check compares with this reference: all `batch` of them when they hold at most
// `max_elements` values (signals of n values), else an evenly spaced sample of max_elements / n of them (at
// least one), the first and the last included.
std::vector<std::size_t> checked_signals(std::size_t batch, std::size_t n, std::size_t max_elements);

// The reference transforms of those signals of an interleaved single-precision batch (re, im of signal s at
// interleaved[2 * (s * n + j)], n = 2^log2n), one after another in the order of `signals`.
std::vector<std::complex<double>> reference_transforms(const float* interleaved, int log2n,
                                                       const std::vector<std::size_t>& signals);

// Relative L2 error of one signal: ||got - want|| / ||want|| (||got - want|| when want is zero).
// Infinity when got holds a NaN or an infinity, so that a non-finite output always fails.
double relative_l2_error(const std::complex<double>* want, const float* got_interleaved, std::size_t n);

// The single-precision unit roundoff, 2^-24.
constexpr double kFloatEps = 5.9604644775390625e-08;

// The tolerance every FFT variant's per-signal relative L2 error is held to: four times cuFFT's worst
// per-signal error on the same signals in the same run, but never below 3 * eps * log2 n. A radix-2 FFT in
// single precision with accurate twiddles has an expected relative error of order eps * sqrt(log2 n) (worst
// 1.6 to 2.6 eps for n = 8 to 2^14 on random signals, in a host emulation of chapters 31 and 32) and a worst-case
// bound of order eps * log2 n; the floor keeps a run where cuFFT happens to be very accurate, or is not run
// (under compute-sanitizer), from failing an equally sound algorithm. A wrong twiddle, a lost element or a
// mixed-up signal gives errors of order 1, far above either.
double fft_tolerance(int log2n, double cufft_worst_error);

}  // namespace tut::fft
