// Test of exercise 22: the register-blocked SGEMM against cuBLAS and the FP64 CPU reference (common/gemm), at the SGEMM
// ladder's adversarial shapes, five alpha/beta pairs (beta = 0 with C full of NaN), buffers offset by one
// float, and 512^3 / 2048^3 / 1025 x 2049 x 1537. The first wrong case stops the test with one line.
// The same source tests the exercise and the solution.
#include <sgemm_register_inner_product.cuh>

#include "gemm_exercise_testing.cuh"

#include <vector>

using namespace exercise_testing;

namespace {

std::vector<tut::gemm::GemmVariant> under_test() {
  return {{"register-blocked", "the register-blocked SGEMM (the file under test)", sgemm_register_inner_product::sgemm, ""}};
}

}  // namespace

TEST_CASE("22: the register-blocked SGEMM matches cuBLAS and the CPU reference at every shape and alpha/beta") {
  tut::gemm::testing::check_exercise(under_test());
}

TEST_CASE("measure" * doctest::skip()) {
  measure_sgemm_against_cublas("22-sgemm-register-inner-product", "register-blocked", sgemm_register_inner_product::sgemm);
}
