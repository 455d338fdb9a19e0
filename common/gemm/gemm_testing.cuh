// The tests every SGEMM chapter runs (chapters 20-29). A chapter's test.cu is
//     #define TUT_CHAPTER_NO_MAIN
//     #include "main.cu"
//     #include "gemm/gemm_testing.cuh"
//     TUT_GEMM_CHAPTER_TESTS(chapter_spec(), my_variants())
// plus anything specific to its kernel (27's links main.cu compiled once, and declares what it calls instead of
// including it: docs/harness.md). Every variant is tested, the on-demand ones included, against
// cuBLAS (same process) and, up to M N K = 2^30, the FP64 CPU reference (see gemm_check.hpp for the
// tolerance). Under compute-sanitizer (TUT_SANITIZER set) shapes above kSanitizerMaxWork are skipped.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "device.cuh"
#include "device_guards.cuh"
#include "gemm/gemm_workload.cuh"
#include "gpu_test.cuh"
#include "plan_testing.cuh"

namespace tut::gemm::testing {

struct Shape {
  int m, n, k;
};

// Largest M N K a test runs under compute-sanitizer (the tools run kernels 10-100x slower, racecheck
// more): the edge and alignment shapes stay, the large ones go; two alpha/beta pairs instead of five.
constexpr std::uint64_t kSanitizerMaxWork = std::uint64_t{1} << 21;

inline std::uint64_t work_of(const Shape& s) {
  return static_cast<std::uint64_t>(s.m) * s.n * static_cast<std::uint64_t>(s.k);
}

// Shapes that catch what GEMM kernels get wrong: single elements, K = 1 and K = 0 (C = beta C), empty
// outputs, warp and tile boundaries (31/32/33, 1023/1024/1025), sizes that are multiples of no tile
// (127, 129, 255, 257, 513, 67, ...), and rectangular problems with M != N != K both with ragged edges and
// with every dimension a multiple of the large tiles (16 x 256, 128 x 128), where an index swapped between
// M, N and K reads the wrong element without leaving the matrix and only the values can tell.
inline std::vector<Shape> adversarial_shapes() {
  return {
      {1, 1, 1},     {1, 1, 2},      {2, 1, 1},      {1, 2, 1},       // single elements
      {64, 96, 1},   {33, 65, 1},    {17, 19, 0},    {0, 16, 16},     // K = 1, K = 0, M = 0
      {16, 0, 16},   {33, 65, 17},   {127, 1, 255},  {1, 129, 63},    // N = 0, rectangular ragged
      {255, 127, 1}, {17, 33, 65},   {31, 31, 31},   {32, 32, 32},    //
      {33, 33, 33},  {129, 257, 67}, {257, 31, 511}, {17, 513, 129},  // no tile divides these
      {64, 512, 96}, {512, 256, 64}, {128, 768, 320}, {48, 272, 80},  // multiples of the tiles, M != N != K
      {300, 500, 100}, {1023, 1025, 1024}, {1024, 1024, 1024},        // 1023/1024/1025 (CPU reference)
  };
}

// Shapes for the alpha/beta cases (small, ragged and aligned).
inline std::vector<Shape> alpha_beta_shapes() { return {{1, 1, 1}, {17, 19, 0}, {33, 65, 17}, {129, 257, 67}, {64, 512, 96}}; }

// Big enough to run many blocks per SM: 512^3 is checked against the CPU too, 2048^3 against cuBLAS.
inline std::vector<Shape> large_shapes() { return {{512, 512, 512}, {2048, 2048, 2048}, {1025, 2049, 1537}}; }

// A, B and C one float past an aligned address (4-byte aligned only), with dimensions that are multiples
// of every vector width: a kernel that assumes float2/float4 alignment from the dimensions alone faults or
// reads the wrong elements here; it must check the pointers too (and fall back).
inline std::vector<Shape> misaligned_shapes() { return {{16, 256, 32}, {64, 512, 96}, {33, 65, 17}}; }

// One problem, every variant (and cuBLAS itself against the CPU reference, which tests the row-major
// mapping of the reference): reset C, run, CHECK against both references, and that no run wrote outside C or
// changed A or B (device_guards.cuh). stop_at_first: REQUIRE instead
// of CHECK, so that the first wrong shape ends the test case with one readable line (the exercises).
inline void check_variants_at(const std::vector<GemmVariant>& variants, const std::vector<Shape>& shapes,
                              float alpha = kDefaultAlpha, float beta = kDefaultBeta, int offset_floats = 0,
                              bool stop_at_first = false) {
  require_supported_gpu();
  for (const Shape& s : shapes) {
    if (tut::testing::under_sanitizer() && work_of(s) > kSanitizerMaxWork) {
      MESSAGE(s.m << " x " << s.n << " x " << s.k << " skipped under compute-sanitizer (M N K cap 2^21)");
      continue;
    }
    GemmProblem p(s.m, s.n, s.k, alpha, beta, tut::testing::test_seed() + work_of(s) + s.m, offset_floats);
    p.compute_references(true);
    // cuBLAS itself, against the CPU reference (where there is one).
    p.reset_c(0);
    p.run_cublas(0);
    TUT_CUDA_CHECK(cudaDeviceSynchronize());
    {
      GemmProblem::Errors e = p.check(true);
      e.check = with_buffer_checks(e.check);  // guards intact, A and B unchanged
      INFO("cublas at M = " << s.m << ", N = " << s.n << ", K = " << s.k << ", alpha = " << alpha << ", beta = " << beta);
      CHECK_MESSAGE(e.check.ok, e.check.message());
    }
    for (const auto& v : variants) {
      if (!v.known_defect.empty()) continue;
      if (v.setup) v.setup(s.m, s.n, s.k);  // one-time set-up (Workload::setup in the chapter program)
      if (v.plan) v.plan(p.operands());      // a tuned stage's plan for this GPU and shape (may overwrite C)
      p.reset_c(0);
      p.run(v.launch, 0);
      TUT_CHECK_LAUNCH();
      TUT_CUDA_CHECK(cudaDeviceSynchronize());
      GemmProblem::Errors e = p.check(false);
      e.check = with_buffer_checks(e.check);  // guards intact, A and B unchanged
      INFO(v.name << " at M = " << s.m << ", N = " << s.n << ", K = " << s.k << ", alpha = " << alpha
                  << ", beta = " << beta << (offset_floats ? ", buffers offset by one float" : "")
                  << (p.has_cpu_reference() ? " (cuBLAS and CPU references)" : " (cuBLAS reference)"));
      if (stop_at_first) REQUIRE_MESSAGE(e.check.ok, e.check.message());
      else CHECK_MESSAGE(e.check.ok, e.check.message());
    }
  }
}

// alpha/beta cases: beta = 0 with C filled with NaN (BLAS: C is not read; 0 * NaN would leak), alpha = 1
// and beta = 1 (the plain accumulate), alpha = 0 (C = beta C), negative alpha with beta = 0.
inline void check_alpha_beta(const std::vector<GemmVariant>& variants, bool stop_at_first = false) {
  const float cases[][2] = {{1.0f, 0.0f}, {0.25f, -1.0f}, {-2.0f, 0.0f}, {1.0f, 1.0f}, {0.0f, 0.5f}};
  const int count = tut::testing::under_sanitizer() ? 2 : 5;
  for (int i = 0; i < count; ++i)
    check_variants_at(variants, alpha_beta_shapes(), cases[i][0], cases[i][1], 0, stop_at_first);
}

// Planted bugs in the real kernels, launched as a wrong launcher would:
//   m + 1 rows on an m x n C: the m rows are right, and C's guard must name the row written past its end (the
//     shapes keep that row inside the 64 KiB guard; the extra row of A is read from A's guard);
//   m - 1 rows: the last row keeps the initial C (beta != 0) and the check must fail there;
//   beta = 0 (C filled with NaN) but the kernel told beta = 1e-30: it reads C, and the NaN must fail the check
//     (the alpha/beta cases above show that every kernel told beta = 0 leaves no NaN).
// PROBLEM: the ladder's problem (GemmProblem, gemm_tc::TcProblem); SKIP(v): true for a variant not to plant in
// (a known defect, or an instruction this GPU lacks).
template <class Problem, class Variant, class Skip>
void check_planted_bugs_of(const std::vector<Variant>& variants, Skip skip) {
  require_supported_gpu();
  const std::vector<Shape> shapes = {{1, 1, 1}, {33, 65, 17}, {127, 129, 63}, {128, 128, 64}, {64, 1024, 32}};
  for (const Shape& s : shapes) {
    for (const auto& v : variants) {
      if (skip(v)) continue;
      INFO(v.name << " at M = " << s.m << ", N = " << s.n << ", K = " << s.k);
      const std::uint64_t seed = tut::testing::test_seed() + work_of(s);
      {
        Problem p(s.m, s.n, s.k, kDefaultAlpha, kDefaultBeta, seed);
        p.compute_references(false);
        p.reset_c(0);
        if (v.setup) v.setup(s.m + 1, s.n, s.k);  // the wrong launcher sets up the shape it launches
        v.launch(s.m + 1, s.n, s.k, p.alpha(), p.a_device(), p.b_device(), p.beta(), p.c_device(), 0);
        TUT_CHECK_LAUNCH();
        TUT_CUDA_CHECK(cudaDeviceSynchronize());
        const GemmErrors values = p.check(false);
        CHECK_MESSAGE(values.check.ok, "the first M rows: " << values.check.message());
        const CheckResult r = with_buffer_checks(values.check);
        CHECK_FALSE(r.ok);
        const std::string where = "past the end of the " + std::to_string(s.m * s.n) + "-element float buffer 'C'";
        CHECK_MESSAGE(r.detail.find(where) != std::string::npos, "M + 1 rows: " << r.message());
      }
      {
        Problem p(s.m, s.n, s.k, kDefaultAlpha, kDefaultBeta, seed);
        p.compute_references(false);
        p.reset_c(0);
        if (v.setup) v.setup(s.m - 1, s.n, s.k);
        v.launch(s.m - 1, s.n, s.k, p.alpha(), p.a_device(), p.b_device(), p.beta(), p.c_device(), 0);
        TUT_CHECK_LAUNCH();
        TUT_CUDA_CHECK(cudaDeviceSynchronize());
        const CheckResult r = with_buffer_checks(p.check(false).check);
        CHECK_FALSE(r.ok);
        CHECK_MESSAGE(r.detail.find("wrote") == std::string::npos, "M - 1 rows: " << r.message());
      }
      {
        Problem p(s.m, s.n, s.k, kDefaultAlpha, 0.0f, seed);
        p.compute_references(false);
        p.reset_c(0);  // beta = 0: C is all NaN
        if (v.setup) v.setup(s.m, s.n, s.k);
        v.launch(s.m, s.n, s.k, p.alpha(), p.a_device(), p.b_device(), 1e-30f, p.c_device(), 0);
        TUT_CHECK_LAUNCH();
        TUT_CUDA_CHECK(cudaDeviceSynchronize());
        const CheckResult r = with_buffer_checks(p.check(false).check);
        CHECK_FALSE(r.ok);
        CHECK_MESSAGE(r.detail.find("NaN") != std::string::npos, "C read with beta = 0: " << r.message());
      }
    }
  }
}

inline void check_planted_bugs(const std::vector<GemmVariant>& variants) {
  check_planted_bugs_of<GemmProblem>(variants, [](const GemmVariant& v) { return !v.known_defect.empty(); });
}

// The tests of an exercise that writes a GEMM launcher: every case above, stopping at the first wrong one.
inline void check_exercise(const std::vector<GemmVariant>& variants) {
  check_variants_at(variants, adversarial_shapes(), kDefaultAlpha, kDefaultBeta, 0, true);
  check_alpha_beta(variants, true);
  check_variants_at(variants, misaligned_shapes(), kDefaultAlpha, kDefaultBeta, 1, true);
  check_variants_at(variants, large_shapes(), kDefaultAlpha, kDefaultBeta, 0, true);
}

// The first shape of a ladder (squares of 256 to 8192 in steps of 128, each followed by its M / 4 x N x 4 K twin)
// for which `wanted` holds: e.g. the smallest where a stage's model cannot decide, so that its plan measures.
inline std::optional<Shape> first_shape_where(const std::function<bool(const Shape&)>& wanted) {
  for (int size = 256; size <= 8192; size += 128)
    for (const Shape& s : {Shape{size, size, size}, Shape{size / 4, size, 4 * size}})
      if (wanted(s)) return s;
  return std::nullopt;
}

// A tuned stage's plan per GPU (common/plan_testing.cuh) at a shape where it measures: each of `candidates`, named
// by a cached plan, is what the stage runs (runs(choice, what the stage's explain() says it ran)) and is right, with
// beta != 0 and with beta = 0 (C full of NaN); a cached plan naming no candidate is ignored and measured again.
inline void check_stage_plan(const GemmVariant& stage, const std::optional<Shape>& measured_at,
                             const std::vector<std::string>& candidates,
                             const std::function<bool(const std::string& choice, const std::string& ran)>& runs) {
  require_supported_gpu();
  if (!measured_at) {
    MESSAGE(stage.name << ": its model decides at every shape of the ladder on this GPU: nothing is measured or cached");
    return;
  }
  const Shape shape = *measured_at;
  if (tut::testing::under_sanitizer() && work_of(shape) > kSanitizerMaxWork) {
    // check_variants_at skips the shape, so no plan would be made: the plan's tests run without the sanitizer.
    MESSAGE(stage.name << ": its plan at " << shape.m << " x " << shape.n << " x " << shape.k
                       << " not checked under compute-sanitizer (M N K cap 2^21)");
    return;
  }
  std::string ran;
  const auto plan_and_check = [&] {
    check_variants_at({stage}, {shape});
    check_variants_at({stage}, {shape}, 1.0f, 0.0f);
    ran = stage.explain(shape.m, shape.n, shape.k);
  };
  tut::testing::check_each_cached_choice(candidates, [&] {
    plan_and_check();
    const std::string choice = tut::testing::choice_of(plan_lines().back());
    INFO(plan_lines().back() << "; the stage ran " << ran);
    CHECK(runs(choice, ran));
  });
  tut::testing::check_unknown_candidate_is_replanned(plan_and_check);
}

// The chapter program's own path (workload, runner check, cuBLAS row) at square sizes.
inline void check_chapter_program(const ChapterSpec& spec) {
  // On-demand variants included. Sizes are M = N = K here, so the sanitizer cap is on the size's cube.
  if (tut::testing::under_sanitizer()) tut::testing::check_all_variants(spec, {0, 1, 33, 65});
  else tut::testing::check_all_variants(spec, {0, 1, 31, 33, 65, 257});
}

}  // namespace tut::gemm::testing

// The test cases of an SGEMM chapter. SPEC: the chapter's ChapterSpec; VARIANTS: its GemmVariants (all of
// them, on-demand ones included).
#define TUT_GEMM_CHAPTER_TESTS(SPEC, VARIANTS)                                                          \
  TEST_CASE("every variant matches cuBLAS and the CPU FP64 reference at adversarial shapes") {         \
    tut::gemm::testing::check_variants_at(VARIANTS, tut::gemm::testing::adversarial_shapes());         \
  }                                                                                                     \
  TEST_CASE("alpha and beta: beta = 0 never reads C (it holds NaN), alpha = 0, beta = 1, negatives") {  \
    tut::gemm::testing::check_alpha_beta(VARIANTS);                                                     \
  }                                                                                                     \
  TEST_CASE("large problems: 512^3, 2048^3 and a ragged 1025 x 2049 x 1537") {                          \
    tut::gemm::testing::check_variants_at(VARIANTS, tut::gemm::testing::large_shapes());               \
  }                                                                                                     \
  TEST_CASE("buffers that are only 4-byte aligned (offset by one float)") {                              \
    tut::gemm::testing::check_variants_at(VARIANTS, tut::gemm::testing::misaligned_shapes(),              \
                                          tut::gemm::kDefaultAlpha, tut::gemm::kDefaultBeta, 1);         \
  }                                                                                                     \
  TEST_CASE("the chapter program's workload checks every variant at square sizes") {                    \
    tut::gemm::testing::check_chapter_program(SPEC);                                                    \
  }                                                                                                     \
  TEST_CASE("planted bugs: M + 1 rows hit C's guard, M - 1 rows leave the last, beta = 0 read as nonzero") { \
    tut::gemm::testing::check_planted_bugs(VARIANTS);                                                   \
  }
