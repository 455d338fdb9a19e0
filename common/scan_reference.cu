#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.cuh"
#include "device.cuh"
#include "device_buffer.cuh"
#include "device_compare.cuh"
#include "device_random.cuh"
#include "scan_reference.cuh"
#include "verify.hpp"

namespace tut::scan {

namespace {

// The wrapping (uint32) sum of value_at(i) over each chunk of `chunk` elements of [0, n), on all cores.
template <class ValueAt>
std::vector<std::uint32_t> chunk_sums(std::size_t n, std::size_t chunk, ValueAt value_at) {
  std::vector<std::uint32_t> sums((n + chunk - 1) / chunk, 0);
  parallel_for(sums.size(), [&](std::size_t b, std::size_t e) {
    for (std::size_t c = b; c < e; ++c) {
      std::uint32_t s = 0;
      for (std::size_t i = c * chunk, end = std::min(n, i + chunk); i < end; ++i) s += value_at(i);
      sums[c] = s;
    }
  }, 1);
  return sums;
}

}  // namespace

void cpu_inclusive_scan(const std::int32_t* in, std::int32_t* out, std::size_t n) {
  // Two passes over chunks: chunk sums in parallel, a serial scan of the sums, then each chunk
  // scanned from its base in parallel. All arithmetic in uint32 so that overflow wraps.
  const std::size_t chunk = std::size_t{1} << 22;
  const std::size_t chunks = (n + chunk - 1) / chunk;
  std::vector<std::uint32_t> base =
      chunk_sums(n, chunk, [&](std::size_t i) { return static_cast<std::uint32_t>(in[i]); });
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
  }, 1);
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

// An inclusive scan y of x is the one array with y[0] = x[0] and y[i] - y[i-1] = x[i] (mod 2^32): so checking
// that rule at every i checks every element exactly. x[i] is recomputed from the generator (device_random.cuh),
// not read from the input buffer, so a kernel that wrote into its input fails too.
struct ScanStepWrong {
  const std::int32_t* in;
  const std::int32_t* out;
  std::uint64_t mixed_seed;  // splitmix64(seed), as fill_random_integers_on_device uses it
  __device__ bool operator()(std::size_t i) const {
    const auto x = static_cast<std::uint32_t>(static_cast<std::int32_t>(detail::device_splitmix64(mixed_seed ^ i)));
    const std::uint32_t previous = i == 0 ? 0u : static_cast<std::uint32_t>(out[i - 1]);
    return static_cast<std::uint32_t>(in[i]) != x || static_cast<std::uint32_t>(out[i]) - previous != x;
  }
};

}  // namespace

// Each chunk's sum is computed from the generator on all cores, without storing the input.
std::vector<std::pair<std::size_t, std::int32_t>> scan_checkpoints(std::size_t n, std::uint64_t seed) {
  const std::vector<std::uint32_t> sums = chunk_sums(n, kCheckpointEvery, [&](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(random_bits(seed, i)));
  });
  const std::size_t chunks = sums.size();
  std::vector<std::pair<std::size_t, std::int32_t>> points;
  std::uint32_t running = 0;
  for (std::size_t c = 0; c < chunks; ++c) {
    running += sums[c];
    points.push_back({std::min(n, (c + 1) * kCheckpointEvery) - 1, static_cast<std::int32_t>(running)});
  }
  return points;
}

CheckResult check_scan_by_definition(const std::int32_t* d_in, const std::int32_t* d_out, std::size_t n,
                                     std::uint64_t seed,
                                     const std::vector<std::pair<std::size_t, std::int32_t>>& checkpoints) {
  const BadCount bad = count_bad_on_device(n, ScanStepWrong{d_in, d_out, splitmix64(seed)});
  CheckResult r;
  if (bad.count > 0) {
    const std::size_t i = bad.first;
    const auto x = static_cast<std::int32_t>(random_bits(seed, i));
    const std::int32_t previous = i == 0 ? 0 : detail::download_one(d_out + i - 1);
    r.ok = false;
    r.bad_count = bad.count;
    r.first_bad = i;
    r.expected = value_text(static_cast<std::int32_t>(static_cast<std::uint32_t>(previous) + static_cast<std::uint32_t>(x)));
    r.actual = value_text(detail::download_one(d_out + i));
    r.detail = detail::download_one(d_in + i) != x
                   ? "the input was overwritten at index " + std::to_string(i)
                   : "checked by the scan's definition: output[i] - output[i-1] must equal input[i]";
    return r;
  }
  for (const auto& [i, want] : checkpoints) {
    const std::int32_t got = detail::download_one(d_out + i);
    if (got != want) {
      r.ok = false;
      r.bad_count = 1;
      r.first_bad = i;
      r.expected = value_text(want);
      r.actual = value_text(got);
      r.detail = "at a checkpoint of the CPU's scan";
      return r;
    }
  }
  return r;
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

  // The input and the CPU's scan up to kFullReferenceUpTo; past it only the checkpoints.
  std::size_t host_bytes(const Options& opt) const override {
    if (opt.size <= kFullReferenceUpTo) return 2 * opt.size * sizeof(std::int32_t);
    return (opt.size / kCheckpointEvery + 1) * sizeof(std::pair<std::size_t, std::int32_t>);
  }

  void prepare(const Options& opt, bool with_reference) override {
    n_ = opt.size;
    // The input is made on the GPU and, for the reference, again on the host: the same values
    // (device_random.cuh), so no 8 GiB upload at 2^31 elements.
    in_ = DeviceBuffer<std::int32_t>(n_);
    fill_random_integers_on_device(in_.data(), n_, opt.seed);
    in_.label("input").watch();  // a scan must leave its input as it found it
    out_ = DeviceBuffer<std::int32_t>(n_);
    out_.label("output");
    std::size_t ws = cub_workspace_bytes(n_);
    for (const auto& v : variants_) ws = std::max(ws, v.workspace_bytes(n_));
    workspace_ = DeviceBuffer<unsigned char>(ws);
    workspace_.label("workspace");
    expected_dev_ = DeviceBuffer<std::int32_t>();
    expected_.clear();
    checkpoints_.clear();
    seed_ = opt.seed;
    if (with_reference && n_ > kFullReferenceUpTo) {
      checkpoints_ = scan_checkpoints(n_, seed_);
    } else if (with_reference) {
      const std::vector<std::int32_t> host = random_integers<std::int32_t>(n_, opt.seed);
      expected_.resize(n_);
      cpu_inclusive_scan(host.data(), expected_.data(), n_);
      // Where the GPU has room for it, the CPU's result is uploaded once and every variant is compared
      // with it on the GPU (see device_compare.cuh): at 2^31 elements that saves seconds per variant.
      const std::size_t bytes = n_ * sizeof(std::int32_t);
      if (n_ >= kCompareOnDeviceFrom && static_cast<double>(bytes) < 0.8 * static_cast<double>(free_device_bytes())) {
        expected_dev_ = DeviceBuffer<std::int32_t>(expected_);
        expected_dev_.label("expected output");
        expected_ = std::vector<std::int32_t>();  // the host copy is no longer needed
      }
    }
  }

  void setup(const std::string& variant) override {
    for (const auto& v : variants_) {
      if (v.name != variant) continue;
      if (v.setup) v.setup();
      if (v.plan) v.plan(in_.data(), out_.data(), n_, workspace_.data());
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
    if (n_ > kFullReferenceUpTo) return check_scan_by_definition(in_.data(), out_.data(), n_, seed_, checkpoints_);
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
  std::uint64_t seed_ = 0;
  std::vector<std::pair<std::size_t, std::int32_t>> checkpoints_;
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
