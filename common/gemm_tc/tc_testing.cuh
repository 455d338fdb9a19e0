// The tests every tensor-core GEMM chapter runs (chapters 50-59). A chapter's test.cu is
//     #define TUT_CHAPTER_NO_MAIN
//     #include "main.cu"
//     #include "gemm_tc/tc_testing.cuh"
//     TUT_TC_CHAPTER_TESTS(chapter_spec(), my_variants())
// Every variant against cuBLAS (cublasGemmEx, same process) and, up to M N K = 2^30, the FP64 CPU reference
// on the same BF16 values, with the SGEMM ladder's 8 eps_fp32 sqrt(K) tolerance (gemm_check.hpp); guards
// around C, A and B unchanged. Each failure names the variant, the shape, alpha/beta and the first bad
// element, so one GPU run says which stage and which shape fails. A GPU older than a variant's min_cc
// skips that variant's cases with one line.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "device.cuh"
#include "device_guards.cuh"
#include "gemm/gemm_testing.cuh"
#include "gemm_tc/tc_workload.cuh"
#include "gpu_test.cuh"

namespace tut::gemm_tc::testing {

using tut::gemm::testing::Shape;
using tut::gemm::testing::work_of;

// The SGEMM ladder's adversarial shapes (single elements, K = 1, K = 0, M = 0, N = 0, 31-33, 1023-1025,
// multiples of no tile, M != N != K) plus what tensor-core tiles add: K not a multiple of 8 (no 16-byte
// chunk, element copies) or of the 32-deep slice, one more or one less than a 128 x 128 tile, skinny
// outputs (one row, one column, 8 rows) and K-heavy problems (many slices, every pipeline stage reused).
inline std::vector<Shape> adversarial_shapes() {
  std::vector<Shape> s = tut::gemm::testing::adversarial_shapes();
  const std::vector<Shape> more = {
      {16, 8, 16},    {128, 128, 32},  {127, 129, 31},  {129, 127, 33},  {128, 128, 40},  {256, 128, 8},
      {1, 4096, 64},  {4096, 1, 64},   {8, 2048, 256},  {2048, 8, 256},  {64, 64, 4097},  {33, 130, 2056},
      {1, 1, 1025},   {100, 100, 7},   {200, 136, 24},  {384, 256, 96},
  };
  s.insert(s.end(), more.begin(), more.end());
  return s;
}
inline std::vector<Shape> alpha_beta_shapes() { return {{1, 1, 1}, {17, 19, 0}, {33, 65, 17}, {129, 257, 67}, {128, 256, 64}}; }
inline std::vector<Shape> large_shapes() { return {{512, 512, 512}, {2048, 2048, 2048}, {1025, 2049, 1537}, {1000, 1000, 1000}}; }
// Offsets of one element: A and B rows no longer start 16-byte aligned (ld a multiple of 8 but the base
// off by 2 bytes), C's rows no longer 8-byte aligned. The vector paths must see it and fall back.
inline std::vector<Shape> misaligned_shapes() { return {{16, 256, 32}, {128, 128, 64}, {33, 65, 17}, {256, 256, 256}}; }

// The set-up contract of a stage whose one-time set-up (shared-memory opt-in, sm_90a check) is its own call: a
// launch before it throws a std::logic_error naming that call, instead of setting up inside a timed run.
// require(): the set-up registry's require (throws while not set up); launch(): one launch of the stage. Once a
// case of this process has set the stage up the contract cannot be seen, and a message says so.
template <class Require, class Launch>
void check_launch_before_setup_throws(Require&& require, Launch&& launch, const char* setup_name) {
  tut::require_supported_gpu();
  try {
    require();
  } catch (const std::logic_error&) {
    CHECK_THROWS_WITH_AS(launch(), doctest::Contains(setup_name), std::logic_error);
    return;
  }
  MESSAGE("already set up in this process (test order changed): the contract is not testable here");
}

inline bool variant_runs_here(const TcVariant& v) {
  int device = 0, major = 0, minor = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major * 10 + minor >= v.min_cc) return true;
  MESSAGE(v.name << " skipped: needs compute capability " << v.min_cc / 10 << "." << v.min_cc % 10);
  return false;
}

inline void check_variants_at(const std::vector<TcVariant>& variants, const std::vector<Shape>& shapes,
                              float alpha = kDefaultAlpha, float beta = kDefaultBeta, int offset = 0) {
  require_supported_gpu();
  for (const Shape& s : shapes) {
    if (tut::testing::under_sanitizer() && work_of(s) > tut::gemm::testing::kSanitizerMaxWork) {
      MESSAGE(s.m << " x " << s.n << " x " << s.k << " skipped under compute-sanitizer (M N K cap 2^21)");
      continue;
    }
    TcProblem p(s.m, s.n, s.k, alpha, beta, tut::testing::test_seed() + work_of(s) + s.m, offset);
    p.compute_references(true);
    p.reset_c(0);
    p.run_cublas(0);
    TUT_CUDA_CHECK(cudaDeviceSynchronize());
    {
      TcProblem::Errors e = p.check(true);
      e.check = with_buffer_checks(e.check);
      INFO("cublas at M = " << s.m << ", N = " << s.n << ", K = " << s.k << ", alpha = " << alpha << ", beta = " << beta);
      CHECK_MESSAGE(e.check.ok, e.check.message());
    }
    for (const auto& v : variants) {
      if (!variant_runs_here(v)) continue;
      if (v.setup) v.setup(s.m, s.n, s.k);
      if (v.plan) v.plan(p.operands());  // a stage's plan for this GPU and shape (may overwrite C)
      p.reset_c(0);
      p.run(v.launch, 0);
      TUT_CHECK_LAUNCH();
      TUT_CUDA_CHECK(cudaDeviceSynchronize());
      TcProblem::Errors e = p.check(false);
      e.check = with_buffer_checks(e.check);
      INFO(v.name << " at M = " << s.m << ", N = " << s.n << ", K = " << s.k << ", alpha = " << alpha
                  << ", beta = " << beta << (offset ? ", buffers offset by one element" : "")
                  << (p.has_cpu_reference() ? " (cuBLAS and CPU references)" : " (cuBLAS reference)"));
      CHECK_MESSAGE(e.check.ok, e.check.message());
    }
  }
}

// beta = 0 with C full of NaN (C must not be read), alpha = 1 / beta = 1, alpha = 0 (C = beta C), negatives.
inline void check_alpha_beta(const std::vector<TcVariant>& variants) {
  const float cases[][2] = {{1.0f, 0.0f}, {0.25f, -1.0f}, {-2.0f, 0.0f}, {1.0f, 1.0f}, {0.0f, 0.5f}};
  const int count = tut::testing::under_sanitizer() ? 2 : 5;
  for (int i = 0; i < count; ++i) check_variants_at(variants, alpha_beta_shapes(), cases[i][0], cases[i][1]);
}

// Planted bugs, launched as a wrong launcher would: M + 1 rows must hit C's guard (named), M - 1 rows must
// fail the check, beta = 0 (NaN C) told as 1e-30 must read the NaN and fail.
inline void check_planted_bugs(const std::vector<TcVariant>& variants) {
  tut::gemm::testing::check_planted_bugs_of<TcProblem>(variants, [](const TcVariant& v) { return !variant_runs_here(v); });
}

// The chapter program's own path (workload, runner check, cuBLAS row) at square sizes.
inline void check_chapter_program(const ChapterSpec& spec, const std::vector<TcVariant>& variants) {
  for (const auto& v : variants)
    if (!variant_runs_here(v)) return;
  if (tut::testing::under_sanitizer()) tut::testing::check_all_variants(spec, {0, 1, 33, 65});
  else tut::testing::check_all_variants(spec, {0, 1, 31, 33, 65, 257});
}

}  // namespace tut::gemm_tc::testing

// The test cases of a tensor-core chapter. SPEC: its ChapterSpec; VARIANTS: its TcVariants.
#define TUT_TC_CHAPTER_TESTS(SPEC, VARIANTS)                                                              \
  TEST_CASE("every variant matches cuBLAS and the CPU FP64 reference at adversarial shapes") {           \
    tut::gemm_tc::testing::check_variants_at(VARIANTS, tut::gemm_tc::testing::adversarial_shapes());     \
  }                                                                                                       \
  TEST_CASE("alpha and beta: beta = 0 never reads C (it holds NaN), alpha = 0, beta = 1, negatives") {    \
    tut::gemm_tc::testing::check_alpha_beta(VARIANTS);                                                    \
  }                                                                                                       \
  TEST_CASE("large problems: 512^3, 2048^3, 1025 x 2049 x 1537, 1000^3") {                                \
    tut::gemm_tc::testing::check_variants_at(VARIANTS, tut::gemm_tc::testing::large_shapes());           \
  }                                                                                                       \
  TEST_CASE("buffers offset by one element: no 16-byte rows, no 8-byte C pairs") {                         \
    tut::gemm_tc::testing::check_variants_at(VARIANTS, tut::gemm_tc::testing::misaligned_shapes(),       \
                                             tut::gemm_tc::kDefaultAlpha, tut::gemm_tc::kDefaultBeta, 1); \
  }                                                                                                       \
  TEST_CASE("the chapter program's workload checks every variant at square sizes") {                      \
    tut::gemm_tc::testing::check_chapter_program(SPEC, VARIANTS);                                         \
  }                                                                                                       \
  TEST_CASE("planted bugs: M + 1 rows hit C's guard, M - 1 rows leave the last, beta = 0 read as nonzero") { \
    tut::gemm_tc::testing::check_planted_bugs(VARIANTS);                                                  \
  }                                                                                                       \
  TEST_CASE("a GPU older than a stage needs is refused with one line (UsageError: exit 2)") {            \
    tut::require_supported_gpu();                                                                         \
    CHECK_THROWS_WITH_AS(tut::gemm_tc::require_compute_capability("stage", 990),                          \
                         doctest::Contains("stage needs a GPU of compute capability 99.0 or newer"),      \
                         tut::UsageError);                                                                \
    for (const auto& v : VARIANTS) CHECK_NOTHROW(tut::gemm_tc::require_compute_capability(v.name, 75));  \
  }
