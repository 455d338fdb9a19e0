// GPU tests of the scan chapters' check itself: each planted defect in the output must fail both ways of
// checking (the CPU's whole scan up to kFullReferenceUpTo, the scan's definition and checkpoints past it), at
// the index where it was planted, and CUB's correct scan must pass both. The check by definition also catches a
// scan that writes into its input, as does the input's checksum (device_guards.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "gpu_test.cuh"
#include "scan_reference.cuh"

namespace {

namespace ts = tut::scan;

// Where the defects are planted: the middle of the array, not a multiple of anything.
std::size_t planted_at(std::size_t n) { return n / 2 + 7; }

// The workspace of CUB's scan of n elements and of its second part (drop_the_carry scans it again in it).
std::size_t workspace_bytes(std::size_t n) {
  return std::max(ts::cub_workspace_bytes(n), ts::cub_workspace_bytes(n - std::min(n, planted_at(n))));
}

using Defect = void (*)(const std::int32_t* in, std::int32_t* out, std::size_t n, void* ws, cudaStream_t s);

// CUB's scan (correct), then one defect applied to its result.
ts::ScanVariant cub_then(const std::string& name, Defect defect) {
  return {name, "CUB, then " + name, workspace_bytes,
          [defect](const std::int32_t* in, std::int32_t* out, std::size_t n, void* ws, cudaStream_t s) {
            ts::cub_inclusive_sum(in, out, n, ws, ts::cub_workspace_bytes(n), s);
            if (defect) defect(in, out, n, ws, s);
          },
          "", false};
}

void flip_one_element(const std::int32_t*, std::int32_t* out, std::size_t n, void*, cudaStream_t s) {
  TUT_CUDA_CHECK(cudaMemsetAsync(out + planted_at(n), 0x5A, sizeof(std::int32_t), s));
}

// The second half scanned on its own: the carry from the first half is missing (a look-back bug).
void drop_the_carry(const std::int32_t* in, std::int32_t* out, std::size_t n, void* ws, cudaStream_t s) {
  const std::size_t m = planted_at(n);
  ts::cub_inclusive_sum(in + m, out + m, n - m, ws, ts::cub_workspace_bytes(n - m), s);
}

void overwrite_the_input(const std::int32_t* in, std::int32_t*, std::size_t n, void*, cudaStream_t s) {
  TUT_CUDA_CHECK(cudaMemsetAsync(const_cast<std::int32_t*>(in) + planted_at(n), 0x33, sizeof(std::int32_t), s));
}

// The last element never written (it keeps the poison).
void skip_the_last(const std::int32_t*, std::int32_t* out, std::size_t n, void*, cudaStream_t s) {
  TUT_CUDA_CHECK(cudaMemsetAsync(out + n - 1, tut::kPoisonByte, sizeof(std::int32_t), s));
}

tut::ChapterSpec defects_spec() {
  return ts::make_scan_chapter("scan-check", "planted defects",
                               {cub_then("correct", nullptr), cub_then("flip-one-element", flip_one_element),
                                cub_then("drop-the-carry", drop_the_carry),
                                cub_then("overwrite-the-input", overwrite_the_input),
                                cub_then("skip-the-last", skip_the_last)});
}

void check_defects_at(std::size_t n) {
  CAPTURE(n);
  const tut::ChapterSpec spec = defects_spec();
  const auto lease = tut::testing::claim_memory("scan-check at n = " + tut::format_size(n), 3 * n * sizeof(std::int32_t),
                                                2 * n * sizeof(std::int32_t));
  if (!lease) return;
  CHECK(tut::testing::run_variant(spec, "correct", n).ok);
  const tut::CheckResult flipped = tut::testing::run_variant(spec, "flip-one-element", n);
  CHECK_FALSE(flipped.ok);
  CHECK(flipped.first_bad == planted_at(n));
  const tut::CheckResult carry = tut::testing::run_variant(spec, "drop-the-carry", n);
  CHECK_FALSE(carry.ok);
  CHECK(carry.first_bad == planted_at(n));
  const tut::CheckResult last = tut::testing::run_variant(spec, "skip-the-last", n);
  CHECK_FALSE(last.ok);
  CHECK(last.first_bad == n - 1);
  MESSAGE("n = " << n << ": " << carry.message());
}

}  // namespace

TEST_CASE("planted defects fail the element-by-element check (up to kFullReferenceUpTo)") {
  check_defects_at((std::size_t{1} << 20) + 3);
}

TEST_CASE("planted defects fail the check by definition and checkpoints (past kFullReferenceUpTo)") {
  static_assert(ts::kFullReferenceUpTo < (std::size_t{1} << 29));
  const std::size_t n = ts::kFullReferenceUpTo + 1025;
  if (n > tut::testing::max_test_elements()) {
    MESSAGE("skipped under compute-sanitizer (size cap)");
    return;
  }
  check_defects_at(n);
}

TEST_CASE("the check by definition names an overwritten input") {
  const std::size_t n = ts::kFullReferenceUpTo + 1025;
  if (n > tut::testing::max_test_elements()) return;
  const auto lease = tut::testing::claim_memory("scan-check", 3 * n * sizeof(std::int32_t), 0);
  if (!lease) return;
  const tut::CheckResult r = tut::testing::run_variant(defects_spec(), "overwrite-the-input", n);
  CHECK_FALSE(r.ok);
  CHECK(r.first_bad == planted_at(n));
  CHECK(r.detail.find("input was overwritten") != std::string::npos);
  CHECK(r.detail.find("the input 'input'") != std::string::npos);  // and the watched input's checksum
}
