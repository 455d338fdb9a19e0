// What every exercise test shares: the sizes to test, one-line failure reports, and the timing
// helper of the skipped-by-default "measure" test cases. Built only from common/ (DeviceBuffer,
// random_integers, compare_exact, gpu_test.cuh, timing.cuh); the exercise files themselves stay
// self-contained.
//
// Each exercise test is compiled twice from the same source: once against the exercise file
// (exercises/<id>/) and once against the solution (solutions/<id>/). The test includes the file under
// test with angle brackets, `#include <name.cuh>`, so that the compiler looks for it only in the
// include directory meson gives that build, never next to the test.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "device.cuh"
#include "device_buffer.cuh"
#include "gpu_test.cuh"
#include "scan_reference.cuh"
#include "timing.cuh"
#include "verify.hpp"

namespace exercise_testing {

using tut::testing::adversarial_sizes;
using tut::testing::test_seed;

// The poison pattern a DeviceBuffer is filled with, read as a 32-bit integer.
constexpr std::int32_t kPoisonInt32 = static_cast<std::int32_t>(0xABABABABu);

// Under compute-sanitizer the exercise tests stop at 2^20 + 1 elements: the tools run kernels tens
// of times slower, and the hazards they look for (within a block or a warp) show at any size.
constexpr std::uint64_t kSanitizerMaxElements = (1u << 20) + 1;

// The sizes of `sizes` that this run can test: drops (with a message) those above the sanitizer cap
// and those whose `bytes_per_element * n` would not fit in 90% of the free device memory.
inline std::vector<std::uint64_t> sizes_that_fit(const std::vector<std::uint64_t>& sizes,
                                                 double device_bytes_per_element) {
  tut::require_supported_gpu();
  std::vector<std::uint64_t> kept;
  const double free_bytes = static_cast<double>(tut::free_device_bytes());
  const std::uint64_t cap = tut::testing::under_sanitizer() ? kSanitizerMaxElements : tut::testing::max_test_elements();
  for (std::uint64_t n : sizes) {
    if (n > cap) {
      MESSAGE("size " << tut::format_size(n) << " skipped under compute-sanitizer");
      continue;
    }
    if (device_bytes_per_element * static_cast<double>(n) > 0.9 * free_bytes) {
      MESSAGE("size " << tut::format_size(n) << " skipped: not enough free device memory");
      continue;
    }
    kept.push_back(n);
  }
  return kept;
}

// A different seed for every size and case, reproducible through TUT_TEST_SEED.
inline std::uint64_t seed_for(std::uint64_t n, std::uint64_t salt = 0) {
  return test_seed() + n * 0x9E3779B97F4A7C15ull + salt;
}

// Blocks until the GPU is done and turns an asynchronous kernel fault into a test failure that names it.
inline void sync_checked() { TUT_CUDA_CHECK(cudaDeviceSynchronize()); }

// The per-case header every failure prints: which size and which case, then the mismatch.
inline std::string where(std::uint64_t n, const std::string& what = "") {
  return "n = " + std::to_string(n) + " (" + tut::format_size(n) + ")" + (what.empty() ? "" : ", " + what);
}

// A scan entry point with the signature every scan chapter uses.
using ScanFn = std::function<void(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                                  cudaStream_t stream)>;

// Runs `scan` on n seeded random int32 (the whole int32 range, so sums wrap) with the output and the
// workspace poisoned, `repeats` times, and REQUIREs each output to equal the CPU's inclusive scan.
inline void check_inclusive_scan(std::uint64_t n, std::size_t workspace_bytes, const ScanFn& scan, int repeats = 1) {
  const std::vector<std::int32_t> in = tut::random_integers<std::int32_t>(n, seed_for(n));
  std::vector<std::int32_t> expected(n);
  tut::scan::cpu_inclusive_scan(in.data(), expected.data(), n);
  tut::DeviceBuffer<std::int32_t> d_in(in), d_out(n);
  tut::DeviceBuffer<unsigned char> workspace(workspace_bytes);
  for (int rep = 0; rep < repeats; ++rep) {
    d_out.poison();
    workspace.poison();  // a scan must not rely on its scratch being zero
    scan(d_in.data(), d_out.data(), n, workspace.data(), 0);
    sync_checked();
    const tut::CheckResult r = tut::compare_exact(expected, d_out.download());
    REQUIRE_MESSAGE(r.ok, where(n, repeats > 1 ? "run " + std::to_string(rep + 1) + " of " + std::to_string(repeats) : "")
                              << ": " << r.message());
  }
}

// Median time of `work` in milliseconds (CUDA events, 2 warm-up runs, repetitions for ~300 ms),
// inside an NVTX range "<id>/<variant>" so that `ncu --nvtx --nvtx-include "<id>/<variant>/"`
// selects it.
inline double median_ms(const std::string& id, const std::string& variant,
                        const std::function<void(cudaStream_t)>& work) {
  tut::NvtxRange range(id + "/" + variant);
  tut::TimingPlan plan;
  plan.budget_ms = 300;
  return tut::time_gpu(work, plan).median_ms;
}

// One line of a measurement table.
inline void print_row(const std::string& what, double ms, double bytes, double flops = 0.0) {
  std::printf("  %-40s %10.4f ms", what.c_str(), ms);
  if (bytes > 0) std::printf("  %8.1f GB/s", bytes / (ms * 1e6));
  if (flops > 0) std::printf("  %9.1f GFLOP/s", flops / (ms * 1e6));
  std::printf("\n");
}

// The GPU, its SM count and clocks, before a measurement table.
inline tut::DeviceInfo print_device() {
  tut::require_supported_gpu();
  tut::DeviceInfo d = tut::query_device();
  std::printf("%s\n", tut::device_banner(d).c_str());
  return d;
}

}  // namespace exercise_testing
