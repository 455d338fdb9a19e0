// Test of exercise 18: chapter 18's scan with the student's packed status word, for the three 4-byte types (the
// 8-byte ones use the given PairedStatus): int32 sums (wrapping), uint32 and float max, against the CPU, exactly, at
// adversarial sizes, around the tile (15,360 items), past a 32-tile look-back window, and run after run (the order
// in which blocks publish changes). The same source tests the exercise and the solution.
#include <packed_status.cuh>  // the file under test (the exercise's or the solution's, by the include path)
// Chapter 18's scan, which includes <packed_status.cuh> and so gets the same file. By a relative path: with the
// chapter's folder on the include path, the chapter's own packed_status.cuh would be found first.
#include "../../chapters/18-scan-any-type-copy-bound/scan_copy_bound.cuh"

#include "exercise_testing.cuh"

#include <algorithm>
#include <cstring>
#include <vector>

using namespace exercise_testing;
namespace scb = scan_copy_bound;

namespace {

constexpr std::uint64_t kTile = 15360;  // the stage's tile for 4-byte types: 192 threads x 20 vectors x 4

// Every size the scans are checked at: a single tile passes even without a look-back, so most are several tiles.
std::vector<std::uint64_t> sizes() {
  return adversarial_sizes({kTile - 1, kTile, kTile + 1, 2 * kTile + 3, 33 * kTile + 1, 65 * kTile + 7,
                            (1u << 24) + 3});
}

// int32 sums run on uint32 (wrapping is defined there), as chapter 18's stage does.
using SumTuning = scb::StageTuning<std::uint32_t, scb::Sum>;

void check_sum(std::uint64_t n, int repeats) {
  scb::setup_scan<SumTuning>();
  check_inclusive_scan(n, scb::workspace_bytes_for<SumTuning>(n),
                       [](const std::int32_t* in, std::int32_t* out, std::size_t m, void* ws, cudaStream_t s) {
                         scb::inclusive_scan_with<SumTuning>(reinterpret_cast<const std::uint32_t*>(in),
                                                             reinterpret_cast<std::uint32_t*>(out), m, ws, s);
                       },
                       repeats);
}

// Max over 4-byte T (uint32, float: the value travels as bits), seeded input, poisoned output and workspace.
template <class T>
void check_max(std::uint64_t n) {
  using K = scb::StageTuning<T, scb::Max>;
  scb::setup_scan<K>();
  std::vector<T> in(n), expected(n);
  const std::vector<std::int32_t> bits = tut::random_integers<std::int32_t>(n, seed_for(n, sizeof(T)));
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) in[i] = static_cast<T>(bits[i]) * 0x1.0p-20f;  // negative ones too
    else std::memcpy(&in[i], &bits[i], sizeof(T));
    expected[i] = i == 0 ? in[0] : std::max(expected[i - 1], in[i]);
  }
  tut::DeviceBuffer<T> d_in(in), d_out(n);
  tut::DeviceBuffer<unsigned char> workspace(scb::workspace_bytes_for<K>(n) + 1);
  d_in.label("input").watch();
  d_out.label("output").poison();
  workspace.label("workspace").poison();
  scb::inclusive_scan_with<K>(d_in.data(), d_out.data(), n, workspace.data(), 0);
  sync_checked();
  const tut::CheckResult r = tut::compare_exact(expected, d_out.download());
  REQUIRE_MESSAGE(r.ok, where(n, std::is_floating_point_v<T> ? "float max" : "uint32 max") << ": " << r.message());
}

}  // namespace

TEST_CASE("18: int32 sums through the packed status words, at adversarial and multi-tile sizes") {
  for (std::uint64_t n : sizes_that_fit(sizes(), 8.5)) check_sum(n, 1);
}

TEST_CASE("18: uint32 and float max through the packed status words (a value's bits, not a conversion)") {
  for (std::uint64_t n : sizes_that_fit(sizes(), 8.5)) {
    check_max<std::uint32_t>(n);
    check_max<float>(n);
  }
}

TEST_CASE("18: run after run (publication order varies)") {
  for (std::uint64_t n : sizes_that_fit({(1u << 20) + 1, 129 * kTile + 5}, 8.5)) check_sum(n, 20);
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  const std::size_t n = std::size_t{1} << 28;
  scb::setup_scan<SumTuning>();
  tut::DeviceBuffer<std::uint32_t> in(tut::random_integers<std::uint32_t>(n, 1)), out(n);
  tut::DeviceBuffer<unsigned char> ws(scb::workspace_bytes_for<SumTuning>(n));
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(std::uint32_t);
  std::printf("inclusive scan of 2^28 int32 (1 GiB); GB/s counts one read and one write per element\n");
  print_row("cudaMemcpyAsync of the same bytes", median_ms("18-packed-status-word", "memcpy", [&](cudaStream_t s) {
              TUT_CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, s));
            }), bytes);
  print_row("chapter 18's stage, packed status words", median_ms("18-packed-status-word", "stage", [&](cudaStream_t s) {
              scb::inclusive_scan_with<SumTuning>(in.data(), out.data(), n, ws.data(), s);
            }), bytes);
}
