// Test of exercise 04: atomic_agg_inc hands out every slot exactly once, consecutive in lane order
// within a warp, and the filter built on it keeps exactly the positive elements. The same source
// tests the exercise and the solution.
#include <atomic_agg_inc.cuh>

#include "exercise_testing.cuh"

#include <algorithm>
#include <vector>

using namespace exercise_testing;
namespace aai = atomic_agg_inc;

namespace {

// One thread per element: selected elements take a slot, the others record -1.
__global__ void slots_kernel(const int* src, int* slot, int* count, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (src[i] > 0) slot[i] = aai::atomic_agg_inc(count);
  else slot[i] = -1;
}

// Inputs with a chosen share of positive (selected) elements.
struct Selection {
  const char* name;
  const char* tag;  // for the NVTX range of the measurement
  int lo, hi;       // values uniform in [lo, hi]
};
constexpr Selection kSelections[] = {{"none selected", "none", -100, 0},
                                     {"1 in 64 selected", "1in64", -62, 1},
                                     {"half selected", "half", INT32_MIN, INT32_MAX},
                                     {"all selected", "all", 1, 1000}};

std::vector<int> make_input(std::uint64_t n, const Selection& s, std::uint64_t salt) {
  return tut::random_integers<int>(n, seed_for(n, salt), s.lo, s.hi);
}

void check_slots(std::uint64_t n, const Selection& sel, int block) {
  const std::vector<int> src = make_input(n, sel, static_cast<std::uint64_t>(block));
  tut::DeviceBuffer<int> d_src(src), d_slot(n), d_count(1);
  d_slot.poison();
  d_count.zero();
  if (n > 0) {
    slots_kernel<<<static_cast<unsigned>((n + block - 1) / block), block, 0, 0>>>(d_src.data(), d_slot.data(),
                                                                          d_count.data(), static_cast<std::int64_t>(n));
    TUT_CHECK_LAUNCH();
  }
  sync_checked();
  const std::vector<int> slot = d_slot.download();
  const int count = d_count.download()[0];
  const std::string at = where(n, std::string(sel.name) + ", blocks of " + std::to_string(block));
  const auto selected = static_cast<std::size_t>(std::count_if(src.begin(), src.end(), [](int v) { return v > 0; }));
  REQUIRE_MESSAGE(static_cast<std::size_t>(count) == selected,
                  at << ": the counter ends at " << count << " but " << selected << " lanes took a slot");
  std::vector<char> taken(selected, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (src[i] <= 0) {
      REQUIRE_MESSAGE(slot[i] == -1, at << ": element " << i << " is not selected but got slot " << slot[i]);
      continue;
    }
    REQUIRE_MESSAGE((slot[i] >= 0 && static_cast<std::size_t>(slot[i]) < selected),
                    at << ": element " << i << " got slot " << slot[i] << ", outside [0, " << selected << ")");
    REQUIRE_MESSAGE(!taken[static_cast<std::size_t>(slot[i])],
                    at << ": slot " << slot[i] << " was handed out twice (again to element " << i << ")");
    taken[static_cast<std::size_t>(slot[i])] = 1;
  }
  // Within one warp (32 consecutive threads of a block), the lanes that call together get
  // consecutive slots in lane order.
  for (std::size_t block_start = 0; block_start < n; block_start += static_cast<std::size_t>(block))
    for (std::size_t w = block_start; w < std::min<std::size_t>(n, block_start + block); w += 32) {
      const std::size_t w_end = std::min({n, block_start + block, w + 32});
      long long previous = -2;
      for (std::size_t i = w; i < w_end; ++i) {
        if (src[i] <= 0) continue;
        REQUIRE_MESSAGE((previous == -2 || slot[i] == previous + 1),
                        at << ": in the warp of elements [" << w << ", " << w_end << "), element " << i
                           << " got slot " << slot[i] << " after a lane with slot " << previous
                           << " (expected consecutive slots in lane order)");
        previous = slot[i];
      }
    }
}

}  // namespace

TEST_CASE("04: atomic_agg_inc gives every calling lane its own slot, consecutive in lane order") {
  for (std::uint64_t n : sizes_that_fit(adversarial_sizes(), 2 * sizeof(int)))
    for (const Selection& sel : kSelections)
      for (int block : {128, 80}) check_slots(n, sel, block);
}

TEST_CASE("04: the filter keeps exactly the positive elements") {
  for (std::uint64_t n : sizes_that_fit(adversarial_sizes({(1u << 24) + 7}), 2 * sizeof(int)))
    for (const Selection& sel : kSelections) {
      const std::vector<int> src = make_input(n, sel, 7);
      tut::DeviceBuffer<int> d_src(src), d_dst(n), d_count(1);
      d_dst.poison();
      d_count.poison();
      aai::filter(d_src.data(), d_dst.data(), d_count.data(), static_cast<std::int64_t>(n), true, 0);
      sync_checked();
      std::vector<int> expected;
      for (int v : src)
        if (v > 0) expected.push_back(v);
      const int count = d_count.download()[0];
      const std::string at = where(n, sel.name);
      REQUIRE_MESSAGE(static_cast<std::size_t>(count) == expected.size(),
                      at << ": count " << count << ", expected " << expected.size());
      std::vector<int> got = d_dst.download();
      for (std::size_t i = expected.size(); i < n; ++i)
        REQUIRE_MESSAGE(got[i] == kPoisonInt32, at << ": dst[" << i << "] was written, past the count " << count);
      got.resize(expected.size());
      std::sort(got.begin(), got.end());
      std::sort(expected.begin(), expected.end());
      const tut::CheckResult r = tut::compare_exact(expected, got);
      REQUIRE_MESSAGE(r.ok, at << ", dst sorted: " << r.message());
    }
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  const std::int64_t n = std::int64_t{1} << 26;
  tut::DeviceBuffer<int> dst(static_cast<std::size_t>(n)), count(1);
  std::printf("filter of 2^26 ints\n");
  for (const Selection& sel : kSelections) {
    const std::vector<int> host = make_input(static_cast<std::uint64_t>(n), sel, 1);
    const tut::DeviceBuffer<int> src(host);
    const double selected = static_cast<double>(std::count_if(host.begin(), host.end(), [](int v) { return v > 0; }));
    const double bytes = (static_cast<double>(n) + selected) * sizeof(int);
    for (bool aggregated : {false, true}) {
      const std::string variant = std::string(aggregated ? "aggregated" : "plain") + "-" + sel.tag;
      print_row(std::string(aggregated ? "aggregated, " : "plain, ") + sel.name,
                median_ms("04-atomic-agg-inc", variant, [&](cudaStream_t s) {
                  aai::filter(src.data(), dst.data(), count.data(), n, aggregated, s);
                }), bytes);
    }
  }
}
