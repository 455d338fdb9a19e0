// Chapter 03: vectorised loads. Copies n int32 with 32-, 64- and 128-bit accesses, each with the
// slides' launch shape and with a tuned one, against cudaMemcpy of the same bytes.
#include <cstring>
#include <memory>
#include <stdexcept>
#include <utility>

#include "device_buffer.cuh"
#include "device_compare.cuh"
#include "runner.cuh"
#include "vectorized_copy.cuh"

namespace {

namespace vc = vectorized_copy;
using vc::Element;

struct CopyVariant {
  const char* name;
  vc::Width width;
  vc::Shape shape;
};

constexpr CopyVariant kVariants[] = {
    {"scalar-slides", vc::Width::int32, vc::Shape::slides}, {"int2-slides", vc::Width::int2, vc::Shape::slides},
    {"int4-slides", vc::Width::int4, vc::Shape::slides},    {"scalar", vc::Width::int32, vc::Shape::tuned},
    {"int2", vc::Width::int2, vc::Shape::tuned},            {"int4", vc::Width::int4, vc::Shape::tuned},
};

const CopyVariant& find(const std::string& name) {
  for (const auto& v : kVariants)
    if (name == v.name) return v;
  throw std::invalid_argument("unknown variant " + name);
}

// Elements after the copied range in dst that must stay untouched (catches a tail that runs past n).
constexpr std::size_t kGuard = 8;

class CopyWorkload final : public tut::Workload {
 public:
  std::size_t device_bytes(const tut::Options& opt) const override {
    return 2 * (opt.size + kMaxOffset + kGuard) * sizeof(Element);
  }

  void prepare(const tut::Options& opt, bool with_reference) override {
    n_ = opt.size;
    offset_ = static_cast<std::size_t>(opt.extra.at("offset"));
    // Both buffers are cudaMalloc'd (256-byte aligned); src and dst start `offset_` elements into them,
    // so both are misaligned by the same 4 * offset_ bytes and the vector path stays possible.
    src_ = tut::DeviceBuffer<Element>(offset_ + n_ + kGuard);
    dst_ = tut::DeviceBuffer<Element>(offset_ + n_ + kGuard);
    // The reference: a copy is the identity, so the check compares dst with this input, kept in src.
    src_.upload(tut::random_integers<Element>(src_.size(), opt.seed));
    src_.label("src").watch();
    dst_.label("dst");
    (void)with_reference;
    resident_ = vc::query_resident_blocks();
  }

  void poison(cudaStream_t s) override { dst_.poison(s); }

  void run(const std::string& variant, cudaStream_t s) override {
    const CopyVariant& v = find(variant);
    vc::copy(src_.data() + offset_, dst_.data() + offset_, static_cast<std::int64_t>(n_), v.width, v.shape,
             resident_, s);
  }

  tut::CheckResult check(const std::string&) override {
    // The copy must reproduce src, which holds the CPU's input unchanged: compared on the GPU, so that the
    // 2^31-element test does not download 8 GiB per variant (see device_compare.cuh).
    tut::CheckResult r = tut::compare_exact_on_device(src_.data() + offset_, dst_.data() + offset_, n_);
    if (!r.ok) return r;
    // Nothing outside [dst, dst + n) may be written: the offset elements before it and the guard after.
    Element poison;
    std::memset(&poison, tut::kPoisonByte, sizeof poison);
    for (const auto& [begin, end] : {std::pair{std::size_t{0}, offset_}, std::pair{offset_ + n_, dst_.size()}}) {
      std::vector<Element> got(end - begin);
      TUT_CUDA_CHECK(cudaMemcpy(got.data(), dst_.data() + begin, got.size() * sizeof(Element), cudaMemcpyDeviceToHost));
      for (std::size_t i = begin; i < end; ++i)
        if (got[i - begin] != poison)
          return tut::check_fail("wrote outside the destination range: buffer element " + std::to_string(i) +
                                 " (dst starts at element " + std::to_string(offset_) +
                                 ", n = " + std::to_string(n_) + ")");
    }
    return r;
  }

  // One read and one write of every element.
  tut::Work work(const std::string&) const override { return {2.0 * static_cast<double>(n_) * sizeof(Element), 0.0}; }
  std::size_t memcpy_bytes() const override { return n_ * sizeof(Element); }

  static constexpr std::size_t kMaxOffset = 3;

 private:
  std::size_t n_ = 0, offset_ = 0;
  tut::DeviceBuffer<Element> src_, dst_;
  vc::ResidentBlocks resident_;
};

}  // namespace

tut::ChapterSpec chapter_spec() {
  tut::ChapterSpec spec;
  spec.id = "03-vectorized-loads";
  spec.title = "vectorised loads: int32, int2 and int4 copies against cudaMemcpy";
  spec.default_size = "2^28";  // 1 GiB each way: far beyond the L2, so DRAM bandwidth decides
  spec.variants = {
      {"scalar-slides", "32-bit grid-stride copy, slides' launch: 128 threads, <= 65535 blocks", false, ""},
      {"int2-slides", "64-bit (int2) copy with scalar head and tail, slides' launch", false, ""},
      {"int4-slides", "128-bit (int4) copy with scalar head and tail, slides' launch", false, ""},
      {"scalar", "32-bit grid-stride copy, 256 threads x one resident wave of blocks", false, ""},
      {"int2", "64-bit (int2) copy, 256 threads x one resident wave of blocks", false, ""},
      {"int4", "128-bit (int4) copy, 256 threads x one resident wave of blocks", false, ""},
  };
  spec.extra_options = {{"offset",
                         "start src and dst this many int32 past their 256-byte-aligned allocations (0..3): "
                         "the misaligned path",
                         0, 0, static_cast<long long>(CopyWorkload::kMaxOffset)}};
  spec.ratio_to = "cudaMemcpy";
  spec.make_workload = [] { return std::make_unique<CopyWorkload>(); };
  return spec;
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
