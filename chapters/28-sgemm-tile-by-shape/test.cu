// GPU tests for chapter 28: the SGEMM ladder's tests for the dispatcher and every tile configuration, plus
// shapes around each configuration's tile and the rule's choices on the device it runs on.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gemm/gemm_testing.cuh"

TUT_GEMM_CHAPTER_TESTS(chapter_spec(), tile_by_shape_variants())

TEST_CASE("28: one past and one short of each tile (64, 128 rows; 128, 256 columns), K not a multiple of the slice") {
  tut::gemm::testing::check_variants_at(tile_by_shape_variants(),
                                        {{65, 129, 17}, {129, 257, 33}, {63, 127, 15}, {127, 255, 47}, {1, 257, 16}});
}

TEST_CASE("28: shapes where the rule picks different tiles (the ones chosen are checked like the others)") {
  // 3072^3 picks 64x128 on a 132-SM GPU; its checks run on the smaller shapes above. Here the dispatcher
  // meets shapes with few tiles and skinny ones, against cuBLAS.
  tut::gemm::testing::check_variants_at(tile_by_shape_variants(), {{1000, 3000, 70}, {128, 2048, 512}, {1536, 1536, 64}});
}

TEST_CASE("28: the set-up reads blocks per SM from the device, and every candidate fits an sm_90 GPU") {
  tut::require_supported_gpu();
  sgemm_shapes::TileDispatcher d;
  d.set_up();
  CHECK(d.gpu().sms > 0);
  for (const auto& m : d.models()) {
    INFO(m.name);
    CHECK(m.blocks_per_sm >= 1);
  }
  int device = 0, major = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (major >= 9) CHECK(d.models().size() == d.kernels().size());
}

TEST_CASE("28: a launch before the set-up is refused with one sentence, not run") {
  tut::require_supported_gpu();
  sgemm_shapes::TileDispatcher d;
  CHECK_THROWS_WITH_AS(sgemm_shapes::sgemm_tile_by_shape(d, 8, 8, 8, 1.0f, nullptr, nullptr, 0.0f, nullptr, 0),
                       doctest::Contains("before its set-up"), std::logic_error);
}
