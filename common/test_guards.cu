// GPU tests of the buffer checks (device_guards.cuh): fixture kernels with planted bugs, run through the same
// scaffolding as every chapter (run_variant, and the runner's checked run through run_chapter_with), must each
// fail with the message that names the bug, and the correct kernel must pass:
//   past-the-end      its bound is n + 1: one element past the end of the output
//   before-the-start  thread 0 also writes out[-1]
//   into-the-input    a correct output, but one input element changed
//   drops-the-tail    its bound is n - 1: the last element keeps the poison
// Plus the guards' layout, the registry through moves, release()'s own check, and the input checksum at 2^30 + 3
// bytes (a ragged tail) without host copies.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "device.cuh"
#include "device_buffer.cuh"
#include "gpu_test.cuh"

namespace {

// The layout promised in device_guards.cuh, checked where it compiles.
static_assert(tut::guard_back_bytes(0) == tut::kGuardMinBackBytes &&
              tut::guard_back_bytes(1) == tut::kGuardMinBackBytes + 255 &&
              tut::guard_back_bytes(4 * 1025) == tut::kGuardMinBackBytes + 252);
static_assert((4 * 1025 + tut::guard_back_bytes(4 * 1025)) % 256 == 0, "the allocation ends on 256 bytes");

enum class Plant { kNone, kPastTheEnd, kBeforeTheStart, kIntoTheInput, kDropsTheTail };

// What the fixture computes: every byte changes (so a guard written with it differs in all 4 bytes).
__device__ __host__ inline std::int32_t transform(std::int32_t x) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(x) ^ 0x5A5A5A5Au);
}

// out[i] = transform(in[i]) for i < n, with the planted bug. The overruns read the input at the same index, as
// an off-by-one loop bound would (the input's guard: readable, not checked).
__global__ void fixture_kernel(std::int32_t* in, std::int32_t* out, std::size_t n, Plant plant) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t bound = plant == Plant::kPastTheEnd ? n + 1 : plant == Plant::kDropsTheTail && n > 0 ? n - 1 : n;
  if (i < bound) out[i] = transform(in[i]);
  if (i == 0 && plant == Plant::kBeforeTheStart) out[-1] = transform(in[-1]);
  if (i == n / 2 && i < n && plant == Plant::kIntoTheInput) in[i] += 1;  // after its own read: out stays right
}

struct FixtureVariant {
  const char* name;
  Plant plant;
};
constexpr FixtureVariant kVariants[] = {{"correct", Plant::kNone},
                                        {"past-the-end", Plant::kPastTheEnd},
                                        {"before-the-start", Plant::kBeforeTheStart},
                                        {"into-the-input", Plant::kIntoTheInput},
                                        {"drops-the-tail", Plant::kDropsTheTail}};

class FixtureWorkload final : public tut::Workload {
 public:
  std::size_t device_bytes(const tut::Options& opt) const override { return 2 * opt.size * sizeof(std::int32_t); }
  void prepare(const tut::Options& opt, bool) override {
    n_ = opt.size;
    const std::vector<std::int32_t> host = tut::random_integers<std::int32_t>(n_, opt.seed);
    expected_.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) expected_[i] = transform(host[i]);
    in_ = tut::DeviceBuffer<std::int32_t>(host);
    in_.label("input").watch();
    out_ = tut::DeviceBuffer<std::int32_t>(n_);
    out_.label("output");
  }
  void poison(cudaStream_t stream) override { out_.poison(stream); }
  void run(const std::string& variant, cudaStream_t stream) override {
    for (const auto& v : kVariants)
      if (variant == v.name) {
        constexpr int kThreads = 256;
        const auto blocks = static_cast<unsigned>((n_ + 1 + kThreads - 1) / kThreads);  // n + 1 threads at least
        fixture_kernel<<<blocks, kThreads, 0, stream>>>(in_.data(), out_.data(), n_, v.plant);
        TUT_CHECK_LAUNCH();
        return;
      }
    throw std::invalid_argument("unknown fixture variant " + variant);
  }
  tut::CheckResult check(const std::string&) override { return tut::compare_exact(expected_, out_.download()); }
  tut::Work work(const std::string&) const override { return {2.0 * n_ * sizeof(std::int32_t), 0.0}; }

 private:
  std::size_t n_ = 0;
  tut::DeviceBuffer<std::int32_t> in_, out_;
  std::vector<std::int32_t> expected_;
};

tut::ChapterSpec fixture_spec() {
  tut::ChapterSpec spec;
  spec.id = "guards-fixture";
  spec.title = "planted writes outside the output";
  spec.default_size = "1025";
  for (const auto& v : kVariants) {
    tut::VariantSpec variant;
    variant.name = v.name;
    variant.description = std::string("fixture: ") + v.name;
    spec.variants.push_back(variant);
  }
  spec.make_workload = [] { return std::make_unique<FixtureWorkload>(); };
  return spec;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::vector<std::uint64_t> kSizes = {0, 1, 2, 31, 32, 33, 1023, 1024, 1025, 4097};

}  // namespace

TEST_CASE("the correct fixture passes at adversarial sizes, before and after each planted bug") {
  const tut::ChapterSpec spec = fixture_spec();
  for (std::uint64_t n : kSizes) {
    CAPTURE(n);
    const tut::CheckResult r = tut::testing::run_variant(spec, "correct", n);
    CHECK_MESSAGE(r.ok, r.message());
  }
}

namespace {

// Runs the fixture's `variant` at each size: its output is right, yet the check must fail with `expected(n)` in
// its message, once (the next check finds nothing: what it found was re-armed).
template <class Expected>
void check_caught(const std::string& variant, const std::vector<std::uint64_t>& sizes, Expected expected) {
  const tut::ChapterSpec spec = fixture_spec();
  for (std::uint64_t n : sizes) {
    CAPTURE(n);
    const tut::CheckResult r = tut::testing::run_variant(spec, variant, n);
    CHECK_FALSE(r.ok);
    CHECK(r.bad_count == 0);  // only the guard or the input's checksum shows the bug
    CHECK_MESSAGE(contains(r.detail, expected(n)), r.detail);
    CHECK(tut::check_device_buffers().empty());
  }
}

}  // namespace

TEST_CASE("one element past the end of the output is caught, named and re-armed") {
  check_caught("past-the-end", kSizes, [](std::uint64_t n) {
    return "wrote 4 bytes past the end of the " + std::to_string(n) +
           "-element int32 buffer 'output' (bytes 0 .. 3 after its end changed)";
  });
}

TEST_CASE("one element before the start of the output is caught and named") {
  check_caught("before-the-start", kSizes, [](std::uint64_t n) {
    return "wrote 4 bytes before the start of the " + std::to_string(n) +
           "-element int32 buffer 'output' (bytes 1 .. 4 before its start changed)";
  });
}

TEST_CASE("a write into the input is caught by its checksum, though the output is right") {
  check_caught("into-the-input", {1, 2, 33, 1025, 4097}, [](std::uint64_t n) {
    return "the input 'input' (a " + std::to_string(n) + "-element int32 buffer) changed during the run";
  });
}

TEST_CASE("a dropped tail is caught by the poison at the last element, with no guard message") {
  const tut::ChapterSpec spec = fixture_spec();
  for (std::uint64_t n : {1, 2, 33, 1025, 4097}) {
    CAPTURE(n);
    const tut::CheckResult r = tut::testing::run_variant(spec, "drops-the-tail", n);
    CHECK_FALSE(r.ok);
    CHECK(r.bad_count == 1);
    CHECK(r.first_bad == n - 1);
    CHECK_FALSE(contains(r.detail, "wrote"));
  }
}

TEST_CASE("the runner's checked run fails a variant that writes past its output (exit 1), passes the correct one") {
  const tut::ChapterSpec spec = fixture_spec();
  CHECK(tut::testing::run_chapter_with(spec, {"--variant", "correct", "--size", "1025"}) == 0);
  CHECK(tut::testing::run_chapter_with(spec, {"--variant", "past-the-end", "--size", "1025"}) == 1);
  CHECK(tut::testing::run_chapter_with(spec, {"--variant", "into-the-input", "--size", "1025"}) == 1);
  // Its timed runs wrote the guard again after the check: release() saw it when the workload was freed.
  const std::vector<std::string> at_release = tut::guards::take_damage_found_at_release();
  CHECK(!at_release.empty());
  for (const auto& d : at_release) CHECK_MESSAGE(contains(d, "past the end of the 1025-element int32 buffer 'output'"), d);
}

TEST_CASE("layout: data() 256-byte aligned, 0 elements still guarded, the registry follows moves") {
  tut::require_supported_gpu();
  const std::size_t before = tut::live_device_buffers();
  {
    for (std::size_t n : {0, 1, 3, 1025}) {
      tut::DeviceBuffer<float> b(n);
      CHECK(b.data() != nullptr);
      CHECK(reinterpret_cast<std::uintptr_t>(b.data()) % 256 == 0);
    }
    tut::DeviceBuffer<std::int32_t> a(5);
    tut::DeviceBuffer<std::int32_t> moved(std::move(a));
    tut::DeviceBuffer<std::int32_t> assigned;
    assigned = std::move(moved);
    assigned = tut::DeviceBuffer<std::int32_t>(7);  // frees the 5-element one
    CHECK(tut::live_device_buffers() == before + 1);
  }
  CHECK(tut::live_device_buffers() == before);
}

TEST_CASE("release() reads the guards of a buffer freed without a check") {
  tut::require_supported_gpu();
  {
    tut::DeviceBuffer<std::int32_t> b(33);
    b.label("freed unchecked");
    TUT_CUDA_CHECK(cudaMemset(b.data() + 33, 0, 2));  // 2 bytes past the end
  }
  const std::vector<std::string> found = tut::guards::take_damage_found_at_release();
  REQUIRE(found.size() == 1);
  CHECK_MESSAGE(contains(found[0], "wrote 2 bytes past the end of the 33-element int32 buffer 'freed unchecked'"),
                found[0]);
}

TEST_CASE("the input checksum sees one changed byte anywhere in 2^30 + 3 bytes, on the GPU") {
  const std::size_t n = (std::size_t{1} << 30) + 3;  // a ragged tail of 3 bytes past the last 8-byte word
  if (n > tut::testing::max_test_elements()) {
    MESSAGE("skipped under compute-sanitizer (size cap)");
    return;
  }
  const auto lease = tut::testing::claim_memory("guards: checksum of 2^30 + 3 bytes", n, 0);
  if (!lease) return;
  tut::DeviceBuffer<unsigned char> big(n);
  TUT_CUDA_CHECK(cudaMemset(big.data(), 0x11, n));
  big.label("big").watch();
  CHECK(tut::check_device_buffers().empty());
  for (std::size_t at : {std::size_t{0}, n / 2 + 5, n - 4, n - 1}) {  // first, middle, last whole word, tail
    CAPTURE(at);
    TUT_CUDA_CHECK(cudaMemset(big.data() + at, 0x12, 1));
    const std::vector<std::string> found = tut::check_device_buffers();
    REQUIRE(found.size() == 1);
    CHECK(contains(found[0], "the input 'big' (a 1073741827-element byte buffer) changed during the run"));
    CHECK(tut::check_device_buffers().empty());  // the new contents are the reference now
  }
  // Two words swapped (same bytes, other places) change the checksum too.
  TUT_CUDA_CHECK(cudaMemset(big.data() + 8, 0x13, 8));
  big.watch();
  TUT_CUDA_CHECK(cudaMemcpy(big.data() + 16, big.data() + 8, 8, cudaMemcpyDeviceToDevice));
  TUT_CUDA_CHECK(cudaMemset(big.data() + 8, 0x11, 8));
  CHECK(tut::check_device_buffers().size() == 1);
}
