// Test of exercise 26: chapter 26's double-buffered SGEMM with the main loop under test, against cuBLAS and the FP64
// CPU reference (common/gemm) at the SGEMM ladder's adversarial shapes (K = 0: no slice; K = 1 .. 8: one slice, no
// overlap; K = 17, 31, 65, ...: odd slice counts, a ragged last slice), five alpha/beta pairs (beta = 0 with C full
// of NaN), buffers offset by one float (the 4-byte copies of B), and large shapes. A missing barrier is a race that
// may still give the right values: the manifest runs the solution under racecheck and synccheck too. The same
// source tests the exercise and the solution.
#include <cp_async_pipeline.cuh>

#include "gemm_exercise_testing.cuh"

using namespace exercise_testing;

TEST_CASE("26: the double-buffered SGEMM matches cuBLAS and the CPU reference at every shape and alpha/beta") {
  tut::gemm::testing::check_exercise(
      {{"cp-async-pipeline", "chapter 26's kernel with the main loop under test", cp_async_pipeline::sgemm, ""}});
}

TEST_CASE("measure" * doctest::skip()) {
  measure_sgemm_against_cublas("26-cp-async-pipeline", "cp-async-pipeline", cp_async_pipeline::sgemm);
}
