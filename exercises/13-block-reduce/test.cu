// Test of exercise 13: reduce_block gives every thread its block's total, for block sizes from one
// warp to 1024, called again and again; and the ReduceThenScan scan built on it matches the CPU.
// The same source tests the exercise and the solution.
#include <reduce_then_scan.cuh>

#include "exercise_testing.cuh"

#include <algorithm>
#include <vector>

using namespace exercise_testing;
namespace rts = reduce_then_scan;

namespace {

// The function under test, for run_tiles: every thread writes the total its reduce_block returned.
struct ReduceBlock {
  __device__ std::int32_t operator()(std::int32_t v) const { return rts::reduce_block(v); }
};

}  // namespace

TEST_CASE("13: reduce_block returns the block's total to every thread") {
  for (std::uint64_t n : sizes_that_fit(adversarial_sizes({(1u << 22) + 5}), 2 * sizeof(std::int32_t))) {
    const std::vector<std::int32_t> in = tut::random_integers<std::int32_t>(n, seed_for(n));
    tut::DeviceBuffer<std::int32_t> d_in(in), d_out(n);
    for (int block : {32, 96, 1024}) {
      d_out.poison();
      // 40 blocks at most: every block reduces many tiles, exercising the reuse of shared memory.
      run_tiles<ReduceBlock>(d_in.data(), d_out.data(), static_cast<std::int64_t>(n), block, 40, 0);
      sync_checked();
      std::vector<std::int32_t> expected(n);
      for (std::size_t begin = 0; begin < n; begin += static_cast<std::size_t>(block)) {
        const std::size_t end = std::min<std::size_t>(n, begin + static_cast<std::size_t>(block));
        std::uint32_t total = 0;
        for (std::size_t i = begin; i < end; ++i) total += static_cast<std::uint32_t>(in[i]);
        std::fill(expected.begin() + static_cast<std::ptrdiff_t>(begin), expected.begin() + static_cast<std::ptrdiff_t>(end),
                  static_cast<std::int32_t>(total));
      }
      const tut::CheckResult r = tut::compare_exact(expected, d_out.download());
      REQUIRE_MESSAGE(r.ok, where(n, "blocks of " + std::to_string(block) + " (index i: thread i % " +
                                         std::to_string(block) + " of its tile)")
                                << ": " << r.message());
    }
  }
}

TEST_CASE("13: the ReduceThenScan scan matches the CPU at adversarial sizes") {
  const auto sizes = adversarial_sizes({2047, 2049, 3 * 1024 + 17, 129 * 1024 + 1, 1023 * 1024 + 5, (1u << 24) + 3});
  for (std::uint64_t n : sizes_that_fit(sizes, 8.5))
    check_inclusive_scan(n, rts::workspace_bytes(n), [](const std::int32_t* in, std::int32_t* out, std::size_t m,
                                                        void* ws, cudaStream_t s) { rts::inclusive_scan(in, out, m, ws, s); });
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  const std::size_t n = std::size_t{1} << 28;
  tut::DeviceBuffer<std::int32_t> in(tut::random_integers<std::int32_t>(n, 1)), out(n);
  tut::DeviceBuffer<unsigned char> ws(std::max(rts::workspace_bytes(n), tut::scan::cub_workspace_bytes(n)));
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(std::int32_t);
  std::printf("inclusive scan of 2^28 int32 (1 GiB); GB/s counts one read and one write per element\n");
  print_row("reduce pass alone", median_ms("13-block-reduce", "reduce", [&](cudaStream_t s) {
              rts::reduce_parts_kernel<<<rts::blocks_for(rts::part_count(n)), rts::kPartSize, 0, s>>>(
                  in.data(), static_cast<std::int32_t*>(static_cast<void*>(ws.data())), n);
              TUT_CHECK_LAUNCH();
            }), static_cast<double>(n) * sizeof(std::int32_t));
  print_row("ReduceThenScan", median_ms("13-block-reduce", "reduce-then-scan", [&](cudaStream_t s) {
              rts::inclusive_scan(in.data(), out.data(), n, ws.data(), s);
            }), bytes);
  print_row("cub::DeviceScan::InclusiveSum", median_ms("13-block-reduce", "cub", [&](cudaStream_t s) {
              tut::scan::cub_inclusive_sum(in.data(), out.data(), n, ws.data(), ws.size(), s);
            }), bytes);
}
