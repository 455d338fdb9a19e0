// What an FFT launch does with a length it has no kernel for: throw, naming the variant and the length, rather
// than enqueue nothing and leave the output unwritten.
#pragma once

#include <stdexcept>
#include <string>

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

}  // namespace tut::fft
