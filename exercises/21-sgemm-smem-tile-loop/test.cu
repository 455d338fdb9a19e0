// Test of exercise 21: the shared-memory tiled SGEMM against cuBLAS and the FP64 CPU reference (common/gemm), at the SGEMM
// ladder's adversarial shapes, five alpha/beta pairs (beta = 0 with C full of NaN), buffers offset by one
// float, and 512^3 / 2048^3 / 1025 x 2049 x 1537. The first wrong case stops the test with one line.
// The same source tests the exercise and the solution.
#include <sgemm_smem_tile_loop.cuh>

#include "exercise_testing.cuh"
#include "gemm/gemm_testing.cuh"

#include <cstdio>
#include <vector>

using namespace exercise_testing;

namespace {

std::vector<tut::gemm::GemmVariant> under_test() {
  return {{"tiled", "the shared-memory tiled SGEMM (the file under test)", sgemm_smem_tile_loop::sgemm, ""}};
}

}  // namespace

TEST_CASE("21: the shared-memory tiled SGEMM matches cuBLAS and the CPU reference at every shape and alpha/beta") {
  tut::gemm::testing::check_exercise(under_test());
}

TEST_CASE("measure" * doctest::skip()) {
  print_device();
  const int s = 4096;
  tut::gemm::GemmProblem p(s, s, s, tut::gemm::kDefaultAlpha, tut::gemm::kDefaultBeta, 1);
  const double flops = 2.0 * s * static_cast<double>(s) * s, bytes = 4.0 * 4.0 * s * static_cast<double>(s);
  std::printf("C = alpha A B + beta C, M = N = K = %d\n", s);
  print_row("cublasSgemm (FP32, no TF32)", median_ms("21-sgemm-smem-tile-loop", "cublas", [&](cudaStream_t st) { p.run_cublas(st); }),
            bytes, flops);
  print_row("tiled", median_ms("21-sgemm-smem-tile-loop", "tiled", [&](cudaStream_t st) { p.run(sgemm_smem_tile_loop::sgemm, st); }), bytes, flops);
}
