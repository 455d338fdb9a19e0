// Test of exercise 12: the predicated PTX warp scan, on its own and inside the block scan. The same source
// tests the exercise and the solution.
#include <scan_ptx.cuh>

#include "exercise_testing.cuh"

#include <algorithm>
#include <vector>

using namespace exercise_testing;

namespace {

// Full warps (values past n are 0). block_level: scan tiles of blockDim.x with scan_block;
// otherwise runs of 32 with scan_warp.
__global__ void scan_kernel(const std::int32_t* in, std::int32_t* out, std::int64_t n, bool block_level) {
  const std::int64_t tile_size = blockDim.x;
  for (std::int64_t tile = blockIdx.x; tile * tile_size < n; tile += gridDim.x) {
    const std::int64_t i = tile * tile_size + threadIdx.x;
    const std::int32_t v = i < n ? in[i] : 0;
    const std::int32_t scanned = block_level ? scan_ptx::scan_block(v) : scan_ptx::scan_warp(v);
    if (i < n) out[i] = scanned;
  }
}

void run(const std::int32_t* in, std::int32_t* out, std::int64_t n, int block, bool block_level, cudaStream_t s) {
  if (n == 0) return;
  const std::int64_t tiles = (n + block - 1) / block;
  scan_kernel<<<static_cast<unsigned>(std::min<std::int64_t>(tiles, 1 << 16)), block, 0, s>>>(in, out, n, block_level);
  TUT_CHECK_LAUNCH();
}

std::vector<std::int32_t> scan_by_segment(const std::vector<std::int32_t>& v, std::size_t segment) {
  std::vector<std::int32_t> out(v.size());
  std::uint32_t running = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i % segment == 0) running = 0;
    running += static_cast<std::uint32_t>(v[i]);
    out[i] = static_cast<std::int32_t>(running);
  }
  return out;
}

// One step per call: out[i] = shfl_up_add(in[i], offset).
__global__ void step_kernel(const std::int32_t* in, std::int32_t* out, std::int64_t n, int offset) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int32_t stepped = scan_ptx::shfl_up_add(i < n ? in[i] : 0, offset);
  if (i < n) out[i] = stepped;
}

}  // namespace

TEST_CASE("12: shfl_up_add adds the value of the lane `offset` below, when there is one") {
  const std::uint64_t n = 4096;
  const std::vector<std::int32_t> in = tut::random_integers<std::int32_t>(n, seed_for(n));
  tut::DeviceBuffer<std::int32_t> d_in(in), d_out(n);
  for (int offset : {1, 2, 4, 8, 16, 31}) {
    d_out.poison();
    step_kernel<<<static_cast<unsigned>(n / 256), 256, 0, 0>>>(d_in.data(), d_out.data(), static_cast<std::int64_t>(n), offset);
    TUT_CHECK_LAUNCH();
    sync_checked();
    std::vector<std::int32_t> expected(in);
    for (std::size_t i = 0; i < n; ++i)
      if (static_cast<int>(i % 32) >= offset)
        expected[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(in[i]) + static_cast<std::uint32_t>(in[i - offset]));
    const tut::CheckResult r = tut::compare_exact(expected, d_out.download());
    REQUIRE_MESSAGE(r.ok, "shfl_up_add(value, " << offset << "), lane = index % 32: " << r.message());
  }
}

TEST_CASE("12: scan_warp scans each warp, and scan_block built on it scans each tile") {
  for (std::uint64_t n : sizes_that_fit(adversarial_sizes({(1u << 22) + 5}), 2 * sizeof(std::int32_t))) {
    const std::vector<std::int32_t> in = tut::random_integers<std::int32_t>(n, seed_for(n));
    tut::DeviceBuffer<std::int32_t> d_in(in), d_out(n);
    d_out.poison();
    run(d_in.data(), d_out.data(), static_cast<std::int64_t>(n), 256, false, 0);
    sync_checked();
    tut::CheckResult r = tut::compare_exact(scan_by_segment(in, 32), d_out.download());
    REQUIRE_MESSAGE(r.ok, where(n, "scan_warp over runs of 32") << ": " << r.message());
    for (int block : {32, 256, 1024}) {
      d_out.poison();
      run(d_in.data(), d_out.data(), static_cast<std::int64_t>(n), block, true, 0);
      sync_checked();
      r = tut::compare_exact(scan_by_segment(in, static_cast<std::size_t>(block)), d_out.download());
      REQUIRE_MESSAGE(r.ok, where(n, "scan_block over tiles of " + std::to_string(block)) << ": " << r.message());
    }
  }
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  const std::int64_t n = std::int64_t{1} << 26;
  tut::DeviceBuffer<std::int32_t> in(tut::random_integers<std::int32_t>(static_cast<std::size_t>(n), 1));
  tut::DeviceBuffer<std::int32_t> out(static_cast<std::size_t>(n));
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(std::int32_t);
  std::printf("2^26 int32\n");
  print_row("scan_warp over runs of 32", median_ms("12-ptx-predicated-scan", "warp", [&](cudaStream_t s) {
              run(in.data(), out.data(), n, 256, false, s);
            }), bytes);
  print_row("scan_block over tiles of 1024", median_ms("12-ptx-predicated-scan", "block", [&](cudaStream_t s) {
              run(in.data(), out.data(), n, 1024, true, s);
            }), bytes);
}
