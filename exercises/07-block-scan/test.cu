// Test of exercise 07: scan_block scans every tile of blockDim.x values, for block sizes from one
// warp to 1024 threads, called again and again by the same blocks. The same source tests the
// exercise and the solution.
#include <block_scan.cuh>

#include "exercise_testing.cuh"

#include <vector>

using namespace exercise_testing;

namespace {

// The function under test, for run_tiles: block b scans tiles b, b + gridDim.x, ... of blockDim.x values.
struct ScanBlock {
  __device__ std::int32_t operator()(std::int32_t v) const { return block_scan::scan_block(v); }
};

}  // namespace

TEST_CASE("07: scan_block scans every tile, for every block size, in a loop over tiles") {
  for (std::uint64_t n : sizes_that_fit(adversarial_sizes({3 * 1024 + 17, (1u << 22) + 5}), 2 * sizeof(std::int32_t))) {
    const std::vector<std::int32_t> in = tut::random_integers<std::int32_t>(n, seed_for(n));
    tut::DeviceBuffer<std::int32_t> d_in(in), d_out(n);
    for (int block : {32, 64, 96, 256, 992, 1024}) {
      d_out.poison();
      // 40 blocks at most: every block scans many tiles, so the reuse of warp_sums is exercised.
      run_tiles<ScanBlock>(d_in.data(), d_out.data(), static_cast<std::int64_t>(n), block, 40, 0);
      sync_checked();
      require_exact(scan_by_segment(in, static_cast<std::size_t>(block)), d_out, n,
                    "blocks of " + std::to_string(block) + " threads (tiles of " + std::to_string(block) + ")");
    }
  }
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  const std::int64_t n = std::int64_t{1} << 26;
  tut::DeviceBuffer<std::int32_t> in(tut::random_integers<std::int32_t>(static_cast<std::size_t>(n), 1));
  tut::DeviceBuffer<std::int32_t> out(static_cast<std::size_t>(n));
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(std::int32_t);
  std::printf("tile scans of 2^26 int32 (each tile scanned on its own)\n");
  print_row("cudaMemcpyAsync of the same bytes", median_ms("07-block-scan", "memcpy", [&](cudaStream_t s) {
              TUT_CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), n * sizeof(std::int32_t), cudaMemcpyDeviceToDevice, s));
            }), bytes);
  for (int block : {128, 256, 1024})
    print_row("scan_block, blocks of " + std::to_string(block),
              median_ms("07-block-scan", "block" + std::to_string(block), [&](cudaStream_t s) {
                run_tiles<ScanBlock>(in.data(), out.data(), n, block, 1 << 16, s);
              }), bytes);
}
