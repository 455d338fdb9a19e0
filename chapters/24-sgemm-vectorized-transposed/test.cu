// GPU tests for chapter 24: the SGEMM ladder's tests (every variant, the on-demand ones included), plus the
// scalar fallback taken for misaligned pointers (same bits as the float4 path), and the untransposed-A
// variant against the stage (same bits: only the shared-memory layout of A differs).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include <cstddef>
#include <cstring>
#include <vector>

#include "alignment_testing.cuh"
#include "gemm/gemm_testing.cuh"

TUT_GEMM_CHAPTER_TESTS(chapter_spec(), vectorized_variants())

TEST_CASE("24: k and n that are not multiples of 4 (scalar path) next to ones that are (float4 path)") {
  tut::gemm::testing::check_variants_at(vectorized_variants(),
                                        {{128, 128, 6}, {128, 126, 8}, {130, 130, 130}, {132, 132, 132}});
}

TEST_CASE("24: misaligned A, B and C take the scalar path and give the same bits") {
  sgemm_alignment_testing::check_all_misaligned(vectorized_variants());
}

// kTransposeA = false stores A as it lies and reads it with chapter 23's multiply_tile: the same fmaf on the
// same operands in the same order as the stage, so C must be identical bit for bit, on both global paths.
TEST_CASE("24: vectorized-untransposed-a gives the stage's bits (float4 and scalar paths)") {
  tut::require_supported_gpu();
  const tut::gemm::testing::Shape shapes[] = {{128, 128, 64}, {129, 132, 68}, {33, 65, 17}, {257, 31, 511}};
  for (const auto& s : shapes) {
    tut::gemm::GemmProblem p(s.m, s.n, s.k, tut::gemm::kDefaultAlpha, tut::gemm::kDefaultBeta,
                             tut::testing::test_seed() + 2471);
    auto run = [&](const tut::gemm::GemmLaunch& launch) {
      p.reset_c(0);
      p.run(launch, 0);
      TUT_CHECK_LAUNCH();
      TUT_CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<float> c(static_cast<std::size_t>(s.m) * s.n);
      TUT_CUDA_CHECK(cudaMemcpy(c.data(), p.c_device(), c.size() * sizeof(float), cudaMemcpyDeviceToHost));
      return c;
    };
    const std::vector<float> stage = run(sgemm_vectorized_transposed::sgemm);
    const std::vector<float> untransposed = run(sgemm_vectorized_transposed::sgemm_untransposed_a);
    REQUIRE(stage.size() == untransposed.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < stage.size(); ++i)
      differ += std::memcmp(&stage[i], &untransposed[i], sizeof(float)) != 0;
    INFO("M = " << s.m << ", N = " << s.n << ", K = " << s.k);
    CHECK_MESSAGE(differ == 0, differ << " of " << stage.size() << " elements differ from the stage's");
  }
}
