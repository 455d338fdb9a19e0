// Chapter 04: warp-aggregated atomics. Filters n int32 (keeps the positive ones, in any order) with one
// atomic per element, per block and per warp, against cub::DeviceSelect::If and cudaMemcpy.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "device_buffer.cuh"
#include "device_compare.cuh"
#include "runner.cuh"
#include "warp_aggregation.cuh"

namespace wa = warp_aggregation;
using wa::Element;
static_assert(std::is_same_v<Element, std::int32_t>, "test.cu declares make_input and sort_on_device on std::int32_t");

// make_input and sort_on_device are outside the unnamed namespace below: the GPU test calls them from the units
// library (meson.build), through its own declarations.

// Seeded input in which each element is positive with probability `selectivity_pct` percent: the
// positives are uniform in [1, 2^31 - 1]; the others are 0 (one in eight) or uniform in [-(2^31 - 1), -1].
std::vector<Element> make_input(std::size_t n, std::uint64_t seed, long long selectivity_pct) {
  std::vector<Element> v(n);
  tut::parallel_for(n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const std::uint64_t r = tut::random_bits(seed, i);
      const bool positive = static_cast<std::uint32_t>(r) % 100u < static_cast<std::uint32_t>(selectivity_pct);
      const std::int32_t magnitude = static_cast<std::int32_t>((r >> 32) & 0x7fffffffu);
      if (positive) v[i] = magnitude == 0 ? 1 : magnitude;
      else v[i] = (magnitude & 7) == 0 ? 0 : -magnitude;
    }
  });
  return v;
}

// Sorts m values on the GPU (CUB's radix sort, `temp` its scratch, resized as needed). Any fixed order will
// do: the check sorts the CPU's selected elements and a filter's output the same way only to compare them as
// multisets.
void sort_on_device(const Element* in, Element* out, std::size_t m, tut::DeviceBuffer<unsigned char>& temp) {
  if (m == 0) return;
  std::size_t bytes = 0;
  TUT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, in, out, static_cast<int>(m)));
  if (temp.size() < bytes) temp = tut::DeviceBuffer<unsigned char>(bytes);
  bytes = temp.size();
  TUT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), bytes, in, out, static_cast<int>(m)));
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
}

namespace {

// The slot counter is an int (as in the slides, and as atomicAdd on int is the fast path): sizes
// that could overflow it are refused.
constexpr std::uint64_t kMaxElements = (std::uint64_t{1} << 31) - 1;

enum class Kernel {
  global_atomic,
  global_atomic_per_lane,
  shared_atomic,
  warp_aggregated_cg,
  warp_aggregated_manual,
  cub,
};

struct FilterVariant {
  const char* name;
  Kernel kernel;
};

constexpr FilterVariant kVariants[] = {
    {"global-atomic", Kernel::global_atomic},
    {"global-atomic-per-lane", Kernel::global_atomic_per_lane},
    {"shared-atomic", Kernel::shared_atomic},
    {"warp-aggregated-cg", Kernel::warp_aggregated_cg},
    {"warp-aggregated-manual", Kernel::warp_aggregated_manual},
    {"cub", Kernel::cub},
};

Kernel find(const std::string& name) {
  for (const auto& v : kVariants)
    if (name == v.name) return v.kernel;
  throw std::invalid_argument("unknown variant " + name);
}

unsigned blocks_for(std::int64_t elements, std::int64_t per_block) {
  return static_cast<unsigned>((elements + per_block - 1) / per_block);  // n < 2^31: fits easily
}

class FilterWorkload final : public tut::Workload {
 public:
  std::size_t device_bytes(const tut::Options& opt) const override {
    if (opt.size > kMaxElements)
      throw tut::UsageError("--size must be below 2^31: the filters count selected elements in an int");
    // + the check's buffers: the expected elements in input order and sorted, a sorted copy of dst, CUB's
    // sort scratch (at most the selected count, at most n, each).
    return 2 * opt.size * sizeof(Element) + sizeof(int) + cub_temp_bytes(opt.size) +
           3 * opt.size * sizeof(Element) + sort_temp_bytes(opt.size);
  }

  void prepare(const tut::Options& opt, bool with_reference) override {
    n_ = opt.size;
    const std::vector<Element> host = make_input(n_, opt.seed, opt.extra.at("selectivity"));
    src_ = tut::DeviceBuffer<Element>(host);
    src_.label("src").watch();
    dst_ = tut::DeviceBuffer<Element>(n_);
    count_ = tut::DeviceBuffer<int>(1);
    cub_temp_ = tut::DeviceBuffer<unsigned char>(cub_temp_bytes(n_));
    expected_.clear();
    for (Element x : host)
      if (wa::IsPositive{}(x)) expected_.push_back(x);  // the CPU filter, in input order
    expected_dev_ = tut::DeviceBuffer<Element>();
    if (with_reference && !expected_.empty()) {
      // The check runs on the GPU (a 2^28 input selects 2^27 elements; sorting and comparing them on the host
      // took seconds per variant): the CPU's result is uploaded once, and a canonical order for the multiset
      // comparison comes from one device radix sort of it; each variant's output is sorted the same way.
      const std::size_t m = expected_.size();
      expected_dev_ = tut::DeviceBuffer<Element>(expected_);
      expected_sorted_dev_ = tut::DeviceBuffer<Element>(m);
      got_sorted_ = tut::DeviceBuffer<Element>(m);
      sort_on_device(expected_dev_.data(), expected_sorted_dev_.data(), m, sort_temp_);
    }
  }

  void poison(cudaStream_t s) override {
    dst_.poison(s);
    count_.poison(s);
    cub_temp_.poison(s);  // CUB must not depend on its scratch being zero
  }

  void run(const std::string& variant, cudaStream_t s) override {
    const Kernel k = find(variant);
    const auto n = static_cast<std::int64_t>(n_);
    if (k == Kernel::cub) {
      if (n == 0) {  // nothing to select: the count is 0 (CUB is not asked about an empty range)
        count_.zero(s);
        return;
      }
      std::size_t temp_bytes = cub_temp_.size();
      TUT_CUDA_CHECK(cub::DeviceSelect::If(cub_temp_.data(), temp_bytes, src_.data(), dst_.data(), count_.data(),
                                           static_cast<int>(n), wa::IsPositive{}, s));
      return;
    }
    count_.zero(s);  // the atomics count up from 0 (part of every timed run, as in a real filter)
    if (n == 0) return;
    Element* dst = dst_.data();
    int* count = count_.data();
    const Element* src = src_.data();
    const unsigned grid = blocks_for(n, wa::kBlockThreads);
    switch (k) {
      case Kernel::global_atomic:
        wa::filter_global_atomic<<<grid, wa::kBlockThreads, 0, s>>>(dst, count, src, n);
        break;
      case Kernel::global_atomic_per_lane:
        wa::filter_global_atomic_per_lane<<<grid, wa::kBlockThreads, 0, s>>>(dst, count, src, n, /*lane_stride=*/0);
        break;
      case Kernel::shared_atomic:
        wa::filter_shared_atomic<<<blocks_for(n, wa::kSharedRoundsPerBlock * wa::kBlockThreads), wa::kBlockThreads,
                                   0, s>>>(dst, count, src, n);
        break;
      case Kernel::warp_aggregated_cg:
        wa::filter_warp_aggregated_cg<<<grid, wa::kBlockThreads, 0, s>>>(dst, count, src, n);
        break;
      case Kernel::warp_aggregated_manual:
        wa::filter_warp_aggregated_manual<<<grid, wa::kBlockThreads, 0, s>>>(dst, count, src, n);
        break;
      case Kernel::cub:
        break;
    }
    TUT_CHECK_LAUNCH();
  }

  // The count must match the CPU filter's; dst[0, count) must hold the selected elements (as a multiset;
  // in input order for CUB, which promises it); dst[count, n) must be untouched.
  tut::CheckResult check(const std::string& variant) override {
    const int count = count_.download()[0];
    if (count < 0 || static_cast<std::size_t>(count) != expected_.size())
      return tut::check_fail("count " + std::to_string(count) + " != expected " + std::to_string(expected_.size()));
    const std::size_t m = expected_.size();
    Element poison;
    std::memset(&poison, tut::kPoisonByte, sizeof poison);
    tut::CheckResult past = tut::check_all_equal_on_device(dst_.data() + m, n_ - m, poison);
    if (!past.ok)
      return tut::check_fail("wrote past the selected elements: dst[" + std::to_string(m + past.first_bad) +
                             "] with count " + std::to_string(count));
    if (m == 0) return {};
    if (find(variant) == Kernel::cub) {
      tut::CheckResult r = tut::compare_exact_on_device(expected_dev_.data(), dst_.data(), m);
      if (!r.ok) r.detail = "compared in input order, which cub::DeviceSelect keeps";
      return r;
    }
    sort_on_device(dst_.data(), got_sorted_.data(), m, sort_temp_);
    tut::CheckResult r = tut::compare_exact_on_device(expected_sorted_dev_.data(), got_sorted_.data(), m);
    if (!r.ok) r.detail = "the selected elements differ as a multiset (indices are in sorted order)";
    return r;
  }

  // The input read once, the selected elements and the count written once.
  tut::Work work(const std::string&) const override {
    return {static_cast<double>((n_ + expected_.size()) * sizeof(Element) + sizeof(int)), 0.0};
  }
  std::size_t memcpy_bytes() const override { return n_ * sizeof(Element); }

 private:
  static std::size_t cub_temp_bytes(std::size_t n) {
    if (n == 0) return 0;
    std::size_t bytes = 0;
    TUT_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, static_cast<const Element*>(nullptr),
                                         static_cast<Element*>(nullptr), static_cast<int*>(nullptr),
                                         static_cast<int>(n), wa::IsPositive{}));
    return bytes;
  }

  static std::size_t sort_temp_bytes(std::size_t m) {
    if (m == 0) return 0;
    std::size_t bytes = 0;
    TUT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, static_cast<const Element*>(nullptr),
                                                  static_cast<Element*>(nullptr), static_cast<int>(m)));
    return bytes;
  }

  std::size_t n_ = 0;
  tut::DeviceBuffer<Element> src_, dst_;
  tut::DeviceBuffer<int> count_;
  tut::DeviceBuffer<unsigned char> cub_temp_;
  std::vector<Element> expected_;
  tut::DeviceBuffer<Element> expected_dev_, expected_sorted_dev_, got_sorted_;
  tut::DeviceBuffer<unsigned char> sort_temp_;
};

}  // namespace

tut::ChapterSpec chapter_spec() {
  tut::ChapterSpec spec;
  spec.id = "04-warp-aggregated-atomics";
  spec.title = "warp-aggregated atomics: a filter with one atomic per element, block and warp, against CUB";
  spec.default_size = "2^28";  // 1 GiB of input: far beyond the L2
  spec.variants = {
      {"global-atomic", "one atomicAdd(count, 1) per selected element, as written (nvcc may aggregate it)",
       false, ""},
      {"global-atomic-per-lane", "the same with an address nvcc cannot prove uniform: one atomic per lane",
       false, ""},
      {"shared-atomic", "shared-memory counter per block and round, one global atomic per block and round",
       false, ""},
      {"warp-aggregated-cg", "atomicAggInc: coalesced_threads(), leader atomicAdd(size), shfl + rank", false, ""},
      {"warp-aggregated-manual", "__activemask, __ballot_sync, __popc, __shfl_sync, %lanemask_lt rank", false,
       ""},
      {"cub", "cub::DeviceSelect::If (keeps the input order; vendor reference)", true, ""},
  };
  spec.extra_options = {{"selectivity", "percent of the elements that are positive, i.e. selected (0..100)", 50,
                         0, 100}};
  spec.ratio_to = "cub";
  spec.make_workload = [] { return std::make_unique<FilterWorkload>(); };
  return spec;
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
