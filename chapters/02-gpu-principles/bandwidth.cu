// Chapter 02, experiment 4: how wide should each thread's access be, and how large its block?
// --size is the number of floats copied. The runner times cudaMemcpy of the same bytes in the same
// run, the practical ceiling.
#include <memory>
#include <string>
#include <vector>

#include "bandwidth.cuh"
#include "device_buffer.cuh"
#include "device_compare.cuh"
#include "experiment.cuh"

namespace bandwidth_experiment {

using namespace principles;

constexpr int kWidths[] = {32, 64, 128};        // bits per access
constexpr int kBlocks[] = {128, 256, 1024};     // threads per block; 128 is the article's
constexpr int kStrides[] = {2, 32};             // floats between neighbouring threads' reads
constexpr int kGatherBlock = gtx280::kBandwidthBlock;

struct Variant {
  std::string name;
  int bits;        // access width
  int block;       // threads per block
  int stride = 0;  // 0: contiguous copy; else the strided gather
};

std::vector<Variant> variants() {
  std::vector<Variant> v;
  for (int block : kBlocks)
    for (int bits : kWidths)
      v.push_back({"copy" + std::to_string(bits) + "-block" + std::to_string(block), bits, block});
  for (int stride : kStrides)
    v.push_back({"gather-stride" + std::to_string(stride) + "-block" + std::to_string(kGatherBlock), 32,
                 kGatherBlock, stride});
  return v;
}


class BandwidthWorkload final : public tut::Workload {
 public:
  std::size_t device_bytes(const tut::Options& opt) const override {
    if (opt.size > (1ull << 40)) throw tut::UsageError("--size must be at most 2^40 floats");
    return 2 * opt.size * sizeof(float);
  }

  void prepare(const tut::Options& opt, bool) override {
    n_ = opt.size;
    in_host_ = tut::random_floats(n_, opt.seed);
    in_ = tut::DeviceBuffer<float>(in_host_);
    in_.label("input").watch();
    out_ = tut::DeviceBuffer<float>(n_);
  }
  void poison(cudaStream_t s) override { out_.poison(s); }

  void run(const std::string& name, cudaStream_t s) override {
    if (n_ == 0) return;
    const Variant& v = find(name);  // host time here lands inside the timed interval: no rebuilding
    // Threads needed: one per whole vector, and at least as many as the leftover floats.
    const std::uint64_t width = static_cast<std::uint64_t>(v.bits / 32);
    const std::uint64_t threads = v.stride ? n_ : std::max(n_ / width, n_ % width);
    const std::uint64_t grid = (threads + v.block - 1) / v.block;
    if (grid > 0x7fffffffull) throw tut::UsageError("--size too large for one element per thread");
    const unsigned g = static_cast<unsigned>(grid);
    if (v.stride) gather_strided<<<g, v.block, 0, s>>>(in_.data(), out_.data(), n_, v.stride);
    else if (v.bits == 32) copy_vectors<float><<<g, v.block, 0, s>>>(in_.data(), out_.data(), n_);
    else if (v.bits == 64) copy_vectors<float2><<<g, v.block, 0, s>>>(in_.data(), out_.data(), n_);
    else copy_vectors<float4><<<g, v.block, 0, s>>>(in_.data(), out_.data(), n_);
    TUT_CHECK_LAUNCH();
  }

  tut::CheckResult check(const std::string& name) override {
    const Variant& v = find(name);
    // A plain copy must reproduce the input, which in_ holds: compared on the GPU (device_compare.cuh), so the
    // 2^31-float test does not download 8 GiB per variant.
    if (!v.stride) return tut::compare_exact_on_device(in_.data(), out_.data(), n_);
    std::vector<float> expected(n_);
    tut::parallel_for(n_, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) expected[i] = in_host_[strided_source(i, n_, v.stride)];
    });
    return tut::compare_exact(expected, out_.download());
  }

  tut::Work work(const std::string&) const override { return {2.0 * n_ * sizeof(float), 0.0}; }
  std::size_t memcpy_bytes() const override { return n_ * sizeof(float); }

 private:
  const Variant& find(const std::string& name) const {
    for (const auto& v : variants_)
      if (v.name == name) return v;
    throw tut::UsageError("unknown variant " + name);
  }

  const std::vector<Variant> variants_ = variants();
  std::uint64_t n_ = 0;
  std::vector<float> in_host_;
  tut::DeviceBuffer<float> in_, out_;
};

Summary summary(const tut::DeviceInfo& d, const tut::Options&, const std::vector<tut::Result>& rows) {
  Summary s;
  s.title = "Rule 4 (article §1.5): coalesced accesses; 64-bit slightly ahead of 32-bit";
  s.head = {"", "bits/access", "threads/block", "GB/s", "% of DRAM peak", "% of cudaMemcpy"};
  s.rows.push_back({"GTX 280 (article)", "32", "128", fixed(gtx280::kBandwidth32Gbps, 1),
                    fixed(100.0 * gtx280::kBandwidth32Gbps / gtx280::kPeakDramGbps, 1), "-"});
  s.rows.push_back({"GTX 280 (article)", "64", "128", fixed(gtx280::kBandwidth64Gbps, 1),
                    fixed(100.0 * gtx280::kBandwidth64Gbps / gtx280::kPeakDramGbps, 1), "-"});
  for (const auto& v : variants()) {
    const tut::Result* r = find_row(rows, v.name);
    if (!r) continue;
    s.rows.push_back({v.name, std::to_string(v.bits) + (v.stride ? " (stride " + std::to_string(v.stride) + ")" : ""),
                      std::to_string(v.block), fixed(r->gbps, 1), fixed(r->pct_peak_dram, 1),
                      r->pct_memcpy > 0 ? fixed(r->pct_memcpy, 1) : "-"});
  }
  s.notes = {
      "GB/s counts each float read once and written once. DRAM peak here: " + fixed(d.peak_dram_gbps, 1) +
          " GB/s (memory clock x bus width x 2); the GTX 280's 141.7 GB/s is NVIDIA's specification, not the article's.",
      "The article does not say whether its test copied or only read; compare shares of peak, not GB/s.",
  };
  return s;
}

tut::ChapterSpec spec() {
  tut::ChapterSpec spec;
  spec.id = "02-gpu-principles-bandwidth";
  spec.title = "rule 4: device-memory bandwidth by access width and block size (--size: floats)";
  spec.default_size = "2^27";
  for (const auto& v : variants())
    spec.variants.push_back(
        {v.name,
         v.stride ? "strided gather: neighbouring threads read floats " + std::to_string(4 * v.stride) +
                        " bytes apart, write contiguously; 128 threads per block"
                  : "coalesced copy, " + std::to_string(v.bits) + "-bit loads and stores, " +
                        std::to_string(v.block) + " threads per block",
         false, ""});
  spec.make_workload = [] { return std::make_unique<BandwidthWorkload>(); };
  return spec;
}

}  // namespace bandwidth_experiment

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) {
  return principles::run_experiment(argc, argv, bandwidth_experiment::spec(), bandwidth_experiment::summary);
}
#endif
