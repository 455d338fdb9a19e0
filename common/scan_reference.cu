#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <memory>

#include "cuda_check.cuh"
#include "device.cuh"
#include "device_buffer.cuh"
#include "device_compare.cuh"
#include "device_random.cuh"
#include "scan_reference.cuh"
#include "verify.hpp"

namespace tut::scan {

void cpu_inclusive_scan(const std::int32_t* in, std::int32_t* out, std::size_t n) {
  // Two passes over chunks: chunk sums in parallel, a serial scan of the sums, then each chunk
  // scanned from its base in parallel. All arithmetic in uint32 so that overflow wraps.
  const std::size_t chunk = std::size_t{1} << 22;
  const std::size_t chunks = (n + chunk - 1) / chunk;
  std::vector<std::uint32_t> base(chunks, 0);
  parallel_for(chunks, [&](std::size_t b, std::size_t e) {
    for (std::size_t c = b; c < e; ++c) {
      std::uint32_t s = 0;
      for (std::size_t i = c * chunk, end = std::min(n, i + chunk); i < end; ++i)
        s += static_cast<std::uint32_t>(in[i]);
      base[c] = s;
    }
  });
  std::uint32_t running = 0;
  for (auto& b : base) {
    std::uint32_t s = b;
    b = running;
    running += s;
  }
  parallel_for(chunks, [&](std::size_t b, std::size_t e) {
    for (std::size_t c = b; c < e; ++c) {
      std::uint32_t s = base[c];
      for (std::size_t i = c * chunk, end = std::min(n, i + chunk); i < end; ++i) {
        s += static_cast<std::uint32_t>(in[i]);
        out[i] = static_cast<std::int32_t>(s);
      }
    }
  });
}

// CUB picks its offset type from the type of num_items: 32-bit counts below 2^31 (what a user
// would pass, and CUB's fastest path), 64-bit beyond.
std::size_t cub_workspace_bytes(std::size_t n) {
  std::size_t bytes = 0;
  const std::int32_t* in = nullptr;
  std::int32_t* out = nullptr;
  if (n < (std::size_t{1} << 31))
    TUT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, static_cast<std::int32_t>(n)));
  else
    TUT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, static_cast<std::int64_t>(n)));
  return bytes;
}

void cub_inclusive_sum(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                       std::size_t workspace_bytes, cudaStream_t stream) {
  if (n == 0) return;
  if (n < (std::size_t{1} << 31))
    TUT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(d_workspace, workspace_bytes, d_in, d_out,
                                                 static_cast<std::int32_t>(n), stream));
  else
    TUT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(d_workspace, workspace_bytes, d_in, d_out,
                                                 static_cast<std::int64_t>(n), stream));
}

namespace {

class ScanWorkload final : public Workload {
 public:
  explicit ScanWorkload(std::vector<ScanVariant> variants) : variants_(std::move(variants)) {}

  std::size_t device_bytes(const Options& opt) const override {
    std::size_t ws = cub_workspace_bytes(opt.size);
    for (const auto& v : variants_) ws = std::max(ws, v.workspace_bytes(opt.size));
    return 2 * opt.size * sizeof(std::int32_t) + ws;
  }

  void prepare(const Options& opt, bool with_reference) override {
    n_ = opt.size;
    // The input is made on the GPU and, for the reference, again on the host: the same values
    // (device_random.cuh), so no 8 GiB upload at 2^31 elements.
    in_ = DeviceBuffer<std::int32_t>(n_);
    fill_random_integers_on_device(in_.data(), n_, opt.seed);
    out_ = DeviceBuffer<std::int32_t>(n_);
    std::size_t ws = cub_workspace_bytes(n_);
    for (const auto& v : variants_) ws = std::max(ws, v.workspace_bytes(n_));
    workspace_ = DeviceBuffer<unsigned char>(ws);
    expected_dev_ = DeviceBuffer<std::int32_t>();
    expected_.clear();
    if (with_reference) {
      const std::vector<std::int32_t> host = random_integers<std::int32_t>(n_, opt.seed);
      expected_.resize(n_);
      cpu_inclusive_scan(host.data(), expected_.data(), n_);
      // Where the GPU has room for it, the CPU's result is uploaded once and every variant is compared
      // with it on the GPU (see device_compare.cuh): at 2^31 elements that saves seconds per variant.
      const std::size_t bytes = n_ * sizeof(std::int32_t);
      if (n_ >= kCompareOnDeviceFrom && static_cast<double>(bytes) < 0.8 * static_cast<double>(free_device_bytes())) {
        expected_dev_ = DeviceBuffer<std::int32_t>(expected_);
        expected_ = std::vector<std::int32_t>();  // the host copy is no longer needed
      }
    }
  }

  void poison(cudaStream_t stream) override {
    out_.poison(stream);
    workspace_.poison(stream);  // a scan must not depend on its scratch being zero
  }

  void run(const std::string& variant, cudaStream_t stream) override {
    if (variant == "cub") {
      cub_inclusive_sum(in_.data(), out_.data(), n_, workspace_.data(), workspace_.size(), stream);
      return;
    }
    for (const auto& v : variants_)
      if (v.name == variant) {
        v.scan(in_.data(), out_.data(), n_, workspace_.data(), stream);
        return;
      }
    throw std::invalid_argument("unknown scan variant " + variant);
  }

  CheckResult check(const std::string&) override {
    if (expected_dev_.size() == n_ && n_ > 0) return compare_exact_on_device(expected_dev_.data(), out_.data(), n_);
    std::vector<std::int32_t> got = out_.download();
    return compare_exact(expected_, got);
  }

  Work work(const std::string&) const override {
    return {2.0 * static_cast<double>(n_) * sizeof(std::int32_t), 0.0};
  }
  std::size_t memcpy_bytes() const override { return n_ * sizeof(std::int32_t); }

 private:
  std::vector<ScanVariant> variants_;
  std::size_t n_ = 0;
  DeviceBuffer<std::int32_t> in_, out_;
  DeviceBuffer<unsigned char> workspace_;
  std::vector<std::int32_t> expected_;
  DeviceBuffer<std::int32_t> expected_dev_;
  static constexpr std::size_t kCompareOnDeviceFrom = std::size_t{1} << 24;
};

}  // namespace

ChapterSpec make_scan_chapter(const std::string& id, const std::string& title,
                              std::vector<ScanVariant> variants) {
  ChapterSpec spec;
  spec.id = id;
  spec.title = title;
  spec.default_size = "2^28";
  for (const auto& v : variants) spec.variants.push_back({v.name, v.description, false, v.known_defect, v.on_demand});
  spec.variants.push_back({"cub", "cub::DeviceScan::InclusiveSum (vendor reference)", true, ""});
  spec.ratio_to = "cub";
  spec.make_workload = [variants] { return std::make_unique<ScanWorkload>(variants); };
  return spec;
}

}  // namespace tut::scan
