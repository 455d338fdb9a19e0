// What every exercise test shares: the sizes to test, one-line failure reports, the CPU references
// and kernel harnesses that several tests use, and the timing helper of the skipped-by-default
// "measure" test cases. Built only from common/ (DeviceBuffer,
// random_integers, compare_exact, gpu_test.cuh, timing.cuh); the exercise files themselves stay
// self-contained.
//
// Each exercise test is compiled twice from the same source: once against the exercise file
// (exercises/<id>/) and once against the solution (solutions/<id>/). The test includes the file under
// test with angle brackets, `#include <name.cuh>`, so that the compiler looks for it only in the
// include directory meson gives that build, never next to the test.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.cuh"
#include "device.cuh"
#include "device_buffer.cuh"
#include "device_random.cuh"
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

// The sizes of `sizes` that this run can test, for a range-for: drops (with a message) those above the
// sanitizer cap and those whose `bytes_per_element * n` would not fit in the free device memory, or whose host
// side (input, reference, download: about twice the device bytes) would not fit in the host's. Each size is
// claimed (tut::testing::claim_memory) only when the loop reaches it, and its lease lasts until the loop moves
// on: a large size holds the large-case lock while its body runs.
class SizesThatFit {
 public:
  SizesThatFit(std::vector<std::uint64_t> sizes, double device_bytes_per_element)
      : sizes_(std::move(sizes)), bytes_per_element_(device_bytes_per_element) {
    tut::require_supported_gpu();
  }

  class iterator {
   public:
    iterator(SizesThatFit* range, std::size_t i) : range_(range), i_(i) {}
    std::uint64_t operator*() const { return range_->sizes_[i_]; }
    iterator& operator++() {
      range_->lease_ = tut::testing::MemoryLease();  // the body's buffers are gone: release before claiming again
      i_ = range_->next_that_fits(i_ + 1);
      return *this;
    }
    bool operator!=(const iterator& other) const { return i_ != other.i_; }

   private:
    SizesThatFit* range_;
    std::size_t i_;
  };

  iterator begin() { return iterator(this, next_that_fits(0)); }
  iterator end() { return iterator(this, sizes_.size()); }

 private:
  std::size_t next_that_fits(std::size_t i) {
    const std::uint64_t cap =
        tut::testing::under_sanitizer() ? kSanitizerMaxElements : tut::testing::max_test_elements();
    for (; i < sizes_.size(); ++i) {
      const std::uint64_t n = sizes_[i];
      if (n > cap) {
        MESSAGE("size " << tut::format_size(n) << " skipped under compute-sanitizer");
        continue;
      }
      const auto device_bytes = static_cast<std::size_t>(bytes_per_element_ * static_cast<double>(n));
      lease_ = tut::testing::claim_memory("size " + tut::format_size(n), device_bytes, 2 * device_bytes);
      if (lease_) return i;
    }
    return i;
  }

  std::vector<std::uint64_t> sizes_;
  double bytes_per_element_;
  tut::testing::MemoryLease lease_;
};

inline SizesThatFit sizes_that_fit(const std::vector<std::uint64_t>& sizes, double device_bytes_per_element) {
  return SizesThatFit(sizes, device_bytes_per_element);
}

// A different seed for every size and case, reproducible through TUT_TEST_SEED.
inline std::uint64_t seed_for(std::uint64_t n, std::uint64_t salt = 0) {
  return test_seed() + n * 0x9E3779B97F4A7C15ull + salt;
}

// Blocks until the GPU is done and turns an asynchronous kernel fault into a test failure that names it; then
// REQUIREs every DeviceBuffer's guards intact and every watched input unchanged (device_guards.cuh), so a
// kernel that writes past the end of its output, before its start or into its input fails here, with a
// "MISMATCH: wrote 4 bytes past the end of the 1025-element int32 buffer 'output' ..." line.
inline void sync_checked() {
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  const tut::CheckResult buffers = tut::with_buffer_checks(tut::CheckResult{});
  REQUIRE_MESSAGE(buffers.ok, buffers.message());
}

// The per-case header every failure prints: which size and which case, then the mismatch.
inline std::string where(std::uint64_t n, const std::string& what = "") {
  return "n = " + std::to_string(n) + " (" + tut::format_size(n) + ")" + (what.empty() ? "" : ", " + what);
}

// A scan entry point with the signature every scan chapter uses.
using ScanFn = std::function<void(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                                  cudaStream_t stream)>;

// Runs `scan` on n seeded random int32 (the whole int32 range, so sums wrap) with the output and the
// workspace poisoned, `repeats` times, and REQUIREs each output to equal the CPU's inclusive scan: element by
// element up to tut::scan::kFullReferenceUpTo, and past it (the 64-bit sizes) by the scan's definition on the
// GPU and the CPU's checkpoints (tut::scan::check_scan_by_definition), with the input made on the GPU.
inline void check_inclusive_scan(std::uint64_t n, std::size_t workspace_bytes, const ScanFn& scan, int repeats = 1) {
  const bool full_reference = n <= tut::scan::kFullReferenceUpTo;
  std::vector<std::int32_t> expected;
  std::vector<std::pair<std::size_t, std::int32_t>> checkpoints;
  tut::DeviceBuffer<std::int32_t> d_in(n), d_out(n);
  if (full_reference) {
    const std::vector<std::int32_t> in = tut::random_integers<std::int32_t>(n, seed_for(n));
    expected.resize(n);
    tut::scan::cpu_inclusive_scan(in.data(), expected.data(), n);
    d_in.upload(in);
  } else {
    tut::fill_random_integers_on_device(d_in.data(), n, seed_for(n));
    checkpoints = tut::scan::scan_checkpoints(n, seed_for(n));
  }
  tut::DeviceBuffer<unsigned char> workspace(workspace_bytes);
  d_in.label("input").watch();
  d_out.label("output");
  workspace.label("workspace");
  for (int rep = 0; rep < repeats; ++rep) {
    d_out.poison();
    workspace.poison();  // a scan must not rely on its scratch being zero
    scan(d_in.data(), d_out.data(), n, workspace.data(), 0);
    sync_checked();
    const tut::CheckResult r =
        full_reference ? tut::compare_exact(expected, d_out.download())
                       : tut::scan::check_scan_by_definition(d_in.data(), d_out.data(), n, seed_for(n), checkpoints);
    REQUIRE_MESSAGE(r.ok, where(n, repeats > 1 ? "run " + std::to_string(rep + 1) + " of " + std::to_string(repeats) : "")
                              << ": " << r.message());
  }
}

// Median time of `work` in milliseconds (CUDA events, 2 warm-up runs, repetitions for ~300 ms), with the
// chapter programs' NVTX nesting: range "<id>", inside it "<variant>", inside that "timed" around the timed
// repetitions only, so that `ncu --nvtx --nvtx-include "<id>/<variant>/timed/"` selects them (not the warm-ups).
inline double median_ms(const std::string& id, const std::string& variant,
                        const std::function<void(cudaStream_t)>& work) {
  tut::NvtxRange exercise_range(id);
  tut::NvtxRange variant_range(variant);
  tut::TimingPlan plan;
  plan.budget_ms = 300;
  plan.timed_range = "timed";
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

// The CPU's inclusive scan of every run of `segment` values on its own (in uint32, so sums wrap).
inline std::vector<std::int32_t> scan_by_segment(const std::vector<std::int32_t>& v, std::size_t segment) {
  std::vector<std::int32_t> out(v.size());
  std::uint32_t running = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i % segment == 0) running = 0;
    running += static_cast<std::uint32_t>(v[i]);
    out[i] = static_cast<std::int32_t>(running);
  }
  return out;
}

// REQUIREs the device buffer `actual` to equal `expected` exactly; a failure names n and `what`.
inline void require_exact(const std::vector<std::int32_t>& expected, const tut::DeviceBuffer<std::int32_t>& actual,
                          std::uint64_t n, const std::string& what) {
  const tut::CheckResult r = tut::compare_exact(expected, actual.download());
  REQUIRE_MESSAGE(r.ok, where(n, what) << ": " << r.message());
}

// Tiles of blockDim.x values (0 past n), block b taking tiles b, b + gridDim.x, ...: every thread
// calls Op{}(its value) and, when in range, writes the result. Op wraps the __device__ function under test.
template <class Op>
__global__ void tiles_kernel(const std::int32_t* in, std::int32_t* out, std::int64_t n) {
  const std::int64_t tile_size = blockDim.x;
  for (std::int64_t tile = blockIdx.x; tile * tile_size < n; tile += gridDim.x) {
    const std::int64_t i = tile * tile_size + threadIdx.x;
    const std::int32_t result = Op{}(i < n ? in[i] : 0);
    if (i < n) out[i] = result;
  }
}

// Launches tiles_kernel<Op> with `block` threads a block and at most max_blocks blocks (nothing for n = 0).
template <class Op>
void run_tiles(const std::int32_t* in, std::int32_t* out, std::int64_t n, int block, int max_blocks,
               cudaStream_t stream) {
  if (n == 0) return;
  const std::int64_t tiles = (n + block - 1) / block;
  tiles_kernel<Op><<<static_cast<unsigned>(std::min<std::int64_t>(tiles, max_blocks)), block, 0, stream>>>(in, out, n);
  TUT_CHECK_LAUNCH();
}

// Checks a warp scan and the block scan built on it (Warp and Block wrap them for run_tiles): on
// seeded random int32 at every size, the warp scan must scan runs of 32 and the block scan tiles of
// 32, 256 and 1024, each run into a freshly poisoned output.
template <class Warp, class Block>
void check_warp_and_block_scan() {
  for (std::uint64_t n : sizes_that_fit(adversarial_sizes({(1u << 22) + 5}), 2 * sizeof(std::int32_t))) {
    const std::vector<std::int32_t> in = tut::random_integers<std::int32_t>(n, seed_for(n));
    tut::DeviceBuffer<std::int32_t> d_in(in), d_out(n);
    d_in.label("input").watch();
    d_out.label("output");
    d_out.poison();
    run_tiles<Warp>(d_in.data(), d_out.data(), static_cast<std::int64_t>(n), 256, 1 << 16, 0);
    sync_checked();
    require_exact(scan_by_segment(in, 32), d_out, n, "scan_warp over runs of 32");
    for (int block : {32, 256, 1024}) {
      d_out.poison();
      run_tiles<Block>(d_in.data(), d_out.data(), static_cast<std::int64_t>(n), block, 1 << 16, 0);
      sync_checked();
      require_exact(scan_by_segment(in, static_cast<std::size_t>(block)), d_out, n,
                    "scan_block over tiles of " + std::to_string(block));
    }
  }
}

// The "measure" rows of check_warp_and_block_scan's pair on 2^26 int32, in NVTX ranges "<id>/warp"
// and "<id>/block".
template <class Warp, class Block>
void measure_warp_and_block_scan(const std::string& id) {
  const std::int64_t n = std::int64_t{1} << 26;
  tut::DeviceBuffer<std::int32_t> in(tut::random_integers<std::int32_t>(static_cast<std::size_t>(n), 1));
  tut::DeviceBuffer<std::int32_t> out(static_cast<std::size_t>(n));
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(std::int32_t);
  std::printf("2^26 int32\n");
  print_row("scan_warp over runs of 32", median_ms(id, "warp", [&](cudaStream_t s) {
              run_tiles<Warp>(in.data(), out.data(), n, 256, 1 << 16, s);
            }), bytes);
  print_row("scan_block over tiles of 1024", median_ms(id, "block", [&](cudaStream_t s) {
              run_tiles<Block>(in.data(), out.data(), n, 1024, 1 << 16, s);
            }), bytes);
}

// A kernel of the shared-memory warp-scan exercises: one thread per element, one input, three outputs.
using ThreeOutputKernel = void (*)(const std::int32_t* in, std::int32_t* out0, std::int32_t* out1,
                                   std::int32_t* out2, std::int64_t n);

// Launches `kernel` with one thread per element in blocks of `block` threads (nothing for n = 0).
inline void run_three_outputs(ThreeOutputKernel kernel, int block, const std::int32_t* in, std::int32_t* out0,
                              std::int32_t* out1, std::int32_t* out2, std::int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  kernel<<<static_cast<unsigned>((n + block - 1) / block), block, 0, stream>>>(in, out0, out1, out2, n);
  TUT_CHECK_LAUNCH();
}

// One output that a kernel must produce exactly, and what it is (for the failure message).
struct ExpectedOutput {
  std::vector<std::int32_t> values;
  std::string what;
};

// Runs `kernel` on `in` with its three outputs poisoned, then REQUIREs output k to equal expected[k].
inline void check_three_outputs(ThreeOutputKernel kernel, int block, const std::vector<std::int32_t>& in,
                                const std::array<ExpectedOutput, 3>& expected) {
  const std::uint64_t n = in.size();
  tut::DeviceBuffer<std::int32_t> d_in(in), out0(n), out1(n), out2(n);
  d_in.label("input").watch();
  out0.label(expected[0].what);
  out1.label(expected[1].what);
  out2.label(expected[2].what);
  out0.poison();
  out1.poison();
  out2.poison();
  run_three_outputs(kernel, block, d_in.data(), out0.data(), out1.data(), out2.data(), static_cast<std::int64_t>(n), 0);
  sync_checked();
  require_exact(expected[0].values, out0, n, expected[0].what);
  require_exact(expected[1].values, out1, n, expected[1].what);
  require_exact(expected[2].values, out2, n, expected[2].what);
}

// The "measure" row of a three-output kernel on 2^26 int32 (4 int32 moved per element), in NVTX range "<id>/<variant>".
inline void measure_three_outputs(ThreeOutputKernel kernel, int block, const std::string& id,
                                  const std::string& variant, const std::string& label) {
  const std::int64_t n = std::int64_t{1} << 26;
  tut::DeviceBuffer<std::int32_t> in(tut::random_integers<std::int32_t>(static_cast<std::size_t>(n), 1));
  tut::DeviceBuffer<std::int32_t> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n)), c(static_cast<std::size_t>(n));
  print_row(label, median_ms(id, variant, [&](cudaStream_t s) {
              run_three_outputs(kernel, block, in.data(), a.data(), b.data(), c.data(), n, s);
            }), 4.0 * static_cast<double>(n) * sizeof(std::int32_t));
}

}  // namespace exercise_testing
