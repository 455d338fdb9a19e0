// Tests of what an FFT launch refuses (chapters 33-35): a length it has no kernel for (host only: the launch
// throws before it touches the GPU) and a twiddle table its device never filled (needs a GPU).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "doctest.hpp"
#include "fft_chapter.cuh"

namespace tut::fft::testing {

// Every variant throws std::invalid_argument naming the length for each length outside the ones it declares
// (FftVariant::min_log2n .. max_log2n), before any CUDA call: null buffers and no GPU are fine.
inline void check_unsupported_lengths_throw(const std::vector<FftVariant>& variants) {
  for (const FftVariant& v : variants)
    for (int log2n : {0, 1, 2, v.min_log2n - 1, v.max_log2n + 1, kMaxLog2n + 1, 30}) {
      if (log2n >= v.min_log2n && log2n <= v.max_log2n) continue;
      INFO(v.name << " at N = 2^" << log2n);
      const std::string length = "N = 2^" + std::to_string(log2n) + ";";
      CHECK_THROWS_WITH_AS(v.launch(nullptr, nullptr, log2n, 1, nullptr, 0), doctest::Contains(length.c_str()),
                           std::invalid_argument);
    }
}

// `v` (whose setup fills the twiddle table) launched at 2^log2n on a device whose table is not filled throws
// std::logic_error and enqueues nothing; after set_up(v) the same launch runs. The table is emptied by
// v.forget_setup, which the chapter sets where it sets v.setup: the table is that translation unit's
// (twiddle_table.cuh), not this test's.
inline void check_launch_needs_setup(const FftVariant& v, int log2n) {
  REQUIRE(v.setup);
  REQUIRE_MESSAGE(static_cast<bool>(v.forget_setup),
                  v.name << ": FftVariant::forget_setup is not set; the chapter must set it next to setup "
                            "(tut::fft::discard_twiddle_table, in the file whose table setup fills)");
  const std::size_t n = std::size_t{1} << log2n;
  DeviceBuffer<float2> in(n), out(n);
  DeviceBuffer<unsigned char> ws(workspace_of(v, log2n, 1));
  in.poison();
  v.forget_setup();
  CHECK_THROWS_WITH_AS(v.launch(in.data(), out.data(), log2n, 1, ws.data(), 0),
                       doctest::Contains("twiddle table"), std::logic_error);
  set_up(v);
  CHECK_NOTHROW(v.launch(in.data(), out.data(), log2n, 1, ws.data(), 0));
  TUT_CHECK_LAUNCH();
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace tut::fft::testing
