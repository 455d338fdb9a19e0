// Test of exercise 20: the naive SGEMM against cuBLAS and the FP64 CPU reference (common/gemm), at the SGEMM
// ladder's adversarial shapes, five alpha/beta pairs (beta = 0 with C full of NaN), buffers offset by one
// float, and 512^3 / 2048^3 / 1025 x 2049 x 1537. The first wrong case stops the test with one line.
// The same source tests the exercise and the solution.
#include <sgemm_naive_kernel.cuh>

#include "gemm_exercise_testing.cuh"

#include <vector>

using namespace exercise_testing;

namespace {

std::vector<tut::gemm::GemmVariant> under_test() {
  return {{"naive", "the naive SGEMM (the file under test)", sgemm_naive_kernel::sgemm, ""}};
}

}  // namespace

TEST_CASE("20: the naive SGEMM matches cuBLAS and the CPU reference at every shape and alpha/beta") {
  tut::gemm::testing::check_exercise(under_test());
}

TEST_CASE("measure" * doctest::skip()) {
  measure_sgemm_against_cublas("20-sgemm-naive-kernel", "naive", sgemm_naive_kernel::sgemm);
}
