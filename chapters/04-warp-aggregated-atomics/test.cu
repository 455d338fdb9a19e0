// GPU tests for chapter 04: every filter's count and selected elements against the CPU filter, at
// adversarial sizes and selectivities, with poisoned outputs.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "device.cuh"
#include "device_buffer.cuh"
#include "device_compare.cuh"
#include "gpu_test.cuh"
#include "runner.cuh"

// main.cu, compiled once into the units library: the test compiles none of the chapter's kernels itself.
using Element = std::int32_t;  // warp_aggregation::Element (main.cu asserts it)
tut::ChapterSpec chapter_spec();
// Seeded input whose elements are positive with probability selectivity_pct percent (the others 0 or negative).
std::vector<Element> make_input(std::size_t n, std::uint64_t seed, long long selectivity_pct);
// Sorts m values on the GPU (CUB's radix sort; `temp` its scratch, resized as needed).
void sort_on_device(const Element* in, Element* out, std::size_t m, tut::DeviceBuffer<unsigned char>& temp);

using tut::testing::adversarial_sizes;
using tut::testing::check_all_variants;

namespace {

// Warp, block (256) and shared-kernel block (1024 elements) edges, odd tails, and a size past the L2.
std::vector<std::uint64_t> filter_sizes() {
  return adversarial_sizes({255, 256, 257, 4099, 3 * 1024 + 17, (1u << 20) + 3, (1u << 26) + 1});
}

}  // namespace

TEST_CASE("04: every filter matches the CPU filter at adversarial sizes and selectivities") {
  // 0%: nothing selected (the counters must stay 0); 1%: mostly single lanes per warp; 50%: half the
  // lanes; 99% and 100%: (nearly) every lane, the most contention on the counter.
  for (long long selectivity : {0LL, 1LL, 50LL, 99LL, 100LL}) {
    CAPTURE(selectivity);
    check_all_variants(chapter_spec(), filter_sizes(), {{"selectivity", selectivity}});
  }
}

TEST_CASE("04: the input has the requested share of positive elements") {
  const std::size_t n = 1 << 20;
  for (long long pct : {0LL, 1LL, 50LL, 99LL, 100LL}) {
    CAPTURE(pct);
    const std::vector<Element> v = make_input(n, 7, pct);
    const auto positives = static_cast<double>(std::count_if(v.begin(), v.end(), [](Element x) { return x > 0; }));
    CHECK(std::abs(positives / n - pct / 100.0) < 0.005);  // 0.005 is over 10 standard deviations here
    if (pct < 100) CHECK(std::count(v.begin(), v.end(), 0) > 0);  // zeros are present and must not be selected
  }
}

TEST_CASE("04: the multiset check rejects a lost, duplicated or changed element") {
  tut::require_supported_gpu();
  const std::vector<Element> a = {5, -3, 7, 7, 0, 1 << 30, -(1 << 30), 2};
  const std::vector<Element> b = {2, 7, -(1 << 30), 5, 0, 7, -3, 1 << 30};  // a permutation of a
  const std::vector<Element> c = {2, 7, -(1 << 30), 5, 0, 5, -3, 1 << 30};  // one 7 became a second 5
  tut::DeviceBuffer<unsigned char> temp;
  auto sorted = [&](const std::vector<Element>& v) {
    tut::DeviceBuffer<Element> in(v), out(v.size());
    sort_on_device(in.data(), out.data(), v.size(), temp);
    return out.download();
  };
  const std::vector<Element> sa = sorted(a), sb = sorted(b), sc = sorted(c);
  CHECK(tut::compare_exact(sa, sb).ok);
  CHECK(std::is_sorted(sa.begin(), sa.end()));
  CHECK_FALSE(tut::compare_exact(sa, sc).ok);
  tut::DeviceBuffer<Element> da(sa), dc(sc);
  CHECK_FALSE(tut::compare_exact_on_device(da.data(), dc.data(), sa.size()).ok);
  CHECK(tut::compare_exact_on_device(da.data(), da.data(), sa.size()).ok);
}

TEST_CASE("04: the command line on a GPU") {
  const auto spec = chapter_spec();
  using tut::testing::run_chapter_with;
  CHECK(run_chapter_with(spec, {"--selectivity", "101"}) == 2);
  CHECK(run_chapter_with(spec, {"--selectivity", "-1"}) == 2);
  CHECK(run_chapter_with(spec, {"--size", "2^31"}) == 2);  // the int slot counter would overflow
  CHECK(run_chapter_with(spec, {"--size", "1M", "--selectivity", "0", "--reps", "3"}) == 0);
  CHECK(run_chapter_with(spec, {"--size", "2^20+3", "--selectivity", "100", "--reps", "2", "--format", "csv"}) == 0);
  CHECK(run_chapter_with(spec, {"--size", "1M", "--profile", "--variant", "warp-aggregated-manual"}) == 0);
}
