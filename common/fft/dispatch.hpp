// What an FFT launch does with a length it has no kernel for: throw, naming the variant and the length, rather
// than enqueue nothing and leave the output unwritten. And the one switch from a run-time length to the kernel
// compiled for it (dispatch_length).
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace tut::fft {

// Throws std::invalid_argument: "<variant>: no kernel for N = 2^<log2n>; it handles N = 2^<min> to 2^<max>".
[[noreturn]] inline void throw_unsupported_length(const char* variant, int log2n, int min_log2n,
                                                  int max_log2n) {
  throw std::invalid_argument(std::string(variant) + ": no kernel for N = 2^" + std::to_string(log2n) +
                              "; it handles N = 2^" + std::to_string(min_log2n) + " to 2^" + std::to_string(max_log2n));
}

// The check every entry point makes before it launches anything (no allocation unless it throws).
inline void require_length(const char* variant, int log2n, int min_log2n, int max_log2n) {
  if (log2n < min_log2n || log2n > max_log2n) throw_unsupported_length(variant, log2n, min_log2n, max_log2n);
}

namespace detail {
template <int kMinLog2n, int kMaxLog2n, class Launch, int... kSteps>
void dispatch_length(int log2n, const char* variant, Launch& launch, std::integer_sequence<int, kSteps...>) {
  // One comparison per length, in order; the first that matches launches (|| stops there).
  const bool launched = ((log2n == kMinLog2n + kSteps
                              ? (launch(std::integral_constant<int, 1 << (kMinLog2n + kSteps)>{}), true)
                              : false) ||
                         ...);
  if (!launched) throw_unsupported_length(variant, log2n, kMinLog2n, kMaxLog2n);
}
}  // namespace detail

// Calls launch(std::integral_constant<int, N>{}) with N = 2^log2n as a compile-time constant, for
// kMinLog2n <= log2n <= kMaxLog2n: the per-length switch of a launcher whose kernels take N as a template
// argument. Any other log2n throws as throw_unsupported_length, naming `variant`.
template <int kMinLog2n, int kMaxLog2n, class Launch>
void dispatch_length(int log2n, const char* variant, Launch&& launch) {
  static_assert(0 <= kMinLog2n && kMinLog2n <= kMaxLog2n && kMaxLog2n < 31, "lengths 2^0 .. 2^30");
  detail::dispatch_length<kMinLog2n, kMaxLog2n>(log2n, variant, launch,
                                                std::make_integer_sequence<int, kMaxLog2n - kMinLog2n + 1>{});
}

}  // namespace tut::fft
