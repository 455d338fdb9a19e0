// Test of exercise 51: chapter 51's wmma kernel with the fragment loop under test, against cuBLAS (cublasGemmEx) and
// the FP64 CPU reference at the tensor-core ladder's adversarial shapes (common/gemm_tc/tc_testing.cuh), five
// alpha/beta pairs, buffers offset by one element, slice counts 1 to 5 with a ragged last slice, and large problems.
// Needs BF16 tensor cores (compute capability 8.0+): on an older GPU the test skips with a message (exit 77, meson's
// SKIP). The same source tests the exercise and the solution.
#include <wmma_fragment_loop.cuh>

#include "tc_exercise_testing.cuh"

static tut::gemm_tc::TcVariant with_your_loop() {
  return tc_exercise::variant_under_test("51-wmma-fragment-loop", "wmma-fragment-loop",
                                         gemm_wmma::gemm_wmma_kernel<wmma_fragment_loop::FragmentLoop>,
                                         wmma_fragment_loop::gemm);
}

TEST_CASE("51: the wmma kernel with your fragment loop matches cuBLAS and the CPU reference at every shape") {
  // K = 16, 32, 48, 96, 160: one 16-deep step, one slice, a slice and a half, 3 and 5 slices; rows and columns
  // that end inside a 16 x 16 fragment.
  tc_exercise::check_kernel(with_your_loop(), {{16, 16, 16}, {64, 32, 32}, {128, 128, 48}, {80, 200, 96}, {257, 129, 160}});
}

TEST_CASE("measure" * doctest::skip()) {
  tc_exercise::measure("51-wmma-fragment-loop", {"bf16-wmma", "chapter 51's stage", gemm_wmma::gemm, 80},
                       with_your_loop());
}
