// Chapter 01: warp divergence. Runs the article's kernels on n floats and checks each output.
#include <memory>

#include "device_buffer.cuh"
#include "runner.cuh"
#include "warp_divergence.cuh"

namespace {

using Kernel = void (*)(float*, std::int64_t);

struct DivergenceVariant {
  const char* name;
  Kernel kernel;
  bool warp_stripes;  // expected pattern: 100/200 alternating by warp (true) or by thread (false)
};

constexpr DivergenceVariant kVariants[] = {
    {"warmup", warp_divergence::warm_up, true},
    {"kernel1-even-odd", warp_divergence::even_odd_branch, false},
    {"kernel2-warp-uniform", warp_divergence::warp_uniform_branch, true},
    {"kernel3-split-if", warp_divergence::split_predicate_branch, false},
    {"kernel4-warp-shift", warp_divergence::warp_shift_branch, true},
    {"kernel4-article", warp_divergence::warp_shift_branch_article, true},
};

const DivergenceVariant& find(const std::string& name) {
  for (const auto& v : kVariants)
    if (name == v.name) return v;
  throw std::invalid_argument("unknown variant " + name);
}

class DivergenceWorkload final : public tut::Workload {
 public:
  std::size_t device_bytes(const tut::Options& opt) const override { return opt.size * sizeof(float); }

  void prepare(const tut::Options& opt, bool) override {
    n_ = opt.size;
    block_ = static_cast<int>(opt.extra.at("block"));
    c_ = tut::DeviceBuffer<float>(n_);
  }
  void poison(cudaStream_t s) override { c_.poison(s); }

  void run(const std::string& variant, cudaStream_t s) override {
    if (n_ == 0) return;
    const std::uint64_t grid = (n_ + block_ - 1) / block_;  // the article's ceil(size / block)
    if (grid > 0x7fffffffull) throw tut::UsageError("--size too large for one thread per element at this --block");
    find(variant).kernel<<<static_cast<unsigned>(grid), block_, 0, s>>>(c_.data(), static_cast<std::int64_t>(n_));
    TUT_CHECK_LAUNCH();
  }

  tut::CheckResult check(const std::string& variant) override {
    const bool stripes = find(variant).warp_stripes;
    std::vector<float> expected(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      const bool taken = stripes ? (i / warp_divergence::kWarpSize) % 2 == 0 : i % 2 == 0;
      expected[i] = taken ? warp_divergence::kTaken : warp_divergence::kNotTaken;
    }
    return tut::compare_exact(expected, c_.download());
  }

  tut::Work work(const std::string&) const override { return {static_cast<double>(n_) * sizeof(float), 0.0}; }
  // A copy of n/2 floats moves as many bytes (read + write) as these kernels write.
  std::size_t memcpy_bytes() const override { return n_ * sizeof(float) / 2; }

 private:
  std::size_t n_ = 0;
  int block_ = 64;
  tut::DeviceBuffer<float> c_;
};

}  // namespace

tut::ChapterSpec chapter_spec() {
  tut::ChapterSpec spec;
  spec.id = "01-warp-divergence";
  spec.title = "warp divergence: branches that split warps vs branches uniform per warp";
  spec.default_size = "2^26";  // fills the GPU; --size 64 --block 64 is the article's configuration
  spec.variants = {
      {"warmup", "the article's warm-up kernel (warp-uniform branch)", false, ""},
      {"kernel1-even-odd", "mathKernel1: if (tid % 2 == 0), divergent in every warp", false, ""},
      {"kernel2-warp-uniform", "mathKernel2: if ((tid / 32) % 2 == 0), uniform per warp", false, ""},
      {"kernel3-split-if", "mathKernel3: mathKernel1 split into two ifs on a saved predicate", false, ""},
      {"kernel4-warp-shift", "mathKernel4 fixed: if (((tid >> 5) & 1) == 0), uniform per warp", false, ""},
      {"kernel4-article", "mathKernel4 as published: if (tid >> 5 & 0x01 == 0)", false,
       "'& 0x01 == 0' parses as '& (0x01 == 0)': always false, every thread writes 200"},
  };
  spec.extra_options = {{"block", "threads per block (the article uses 64)", 64, 32, 1024}};
  spec.ratio_to = "kernel2-warp-uniform";
  spec.make_workload = [] { return std::make_unique<DivergenceWorkload>(); };
  return spec;
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
