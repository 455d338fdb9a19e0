// GPU tests for chapter 28: the SGEMM ladder's tests for the dispatcher and every tile configuration, plus
// shapes around each configuration's tile and the rule's choices on the device it runs on.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include <string>

#include "gemm/gemm_testing.cuh"

// This process plans in a folder of its own (no test reads a plan another run cached).
const tut::testing::ScopedPlanDir kTestPlans;

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

// The stage's plan (TileDispatcher::plan_stage): where the model tells the tiles apart it decides; where not, the
// stage measures both, and each tile is what the stage runs when a cached plan names it. The shape: the smallest of
// a ladder where the model's predictions on this GPU are within its error (on an H100, 1920^3).
TEST_CASE("28: the plan: each tile a cached plan names is what the stage runs; an unknown one is replanned") {
  tut::require_supported_gpu();
  sgemm_shapes::TileDispatcher d;
  d.set_up();
  const auto undecided = [&](const tut::gemm::testing::Shape& s) {
    return !sgemm_shapes::rank(d.models(), d.gpu(), s.m, s.n, s.k).decided;
  };
  tut::gemm::testing::check_stage_plan(
      tile_by_shape_variants().front(), tut::gemm::testing::first_shape_where(undecided), d.stage_candidates(),
      [](const std::string& choice, const std::string& ran) {  // ran: "64x128 tiles, ..."
        return ran.rfind(choice.substr(std::string("tile-").size()) + " tiles", 0) == 0;
      });
}

TEST_CASE("28: where the model tells the tiles apart, its plan says so and nothing is measured or cached") {
  tut::require_supported_gpu();
  if (tut::testing::under_sanitizer()) {
    MESSAGE("skipped under compute-sanitizer: the shape is past its M N K cap of 2^21, so no plan is made");
    return;
  }
  const tut::testing::ScopedPlanDir dir;
  const tut::gemm::GemmVariant stage = tile_by_shape_variants().front();
  // 64 x 4096 x 16384 (skinny, long K): 32 tiles of 64 x 128 against 16 of 128 x 256, each as long: on any GPU of
  // more than 32 SMs the small tile is predicted about 3x faster.
  const tut::gemm::testing::Shape skinny{64, 4096, 16384};
  const std::string line = tut::testing::plan_line_of([&] { tut::gemm::testing::check_variants_at({stage}, {skinny}); });
  INFO(line);
  CHECK(line.find(": tile-64x128 (model: 64x128 tiles, no split predicted ") != std::string::npos);
  CHECK(dir.files().empty());
}
