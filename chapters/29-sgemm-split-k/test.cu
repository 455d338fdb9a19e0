// GPU tests for chapter 29: the SGEMM ladder's tests for the dispatcher and every fixed split, shapes where
// the model splits, K ranges that are not whole multiples of the slice or the split, bit-identical repeats
// (the reduction's fixed order), and the refusal of a workspace the set-up did not size.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include <cstring>

#include "gemm/gemm_testing.cuh"

TUT_GEMM_CHAPTER_TESTS(chapter_spec(), split_k_variants())

TEST_CASE("29: K not a multiple of the slice nor of the split; fewer slices than splits; K = 1 and K = 0") {
  // 8 splits of K = 40 (3 slices of 16): 3 ranges; K = 1000 in 3, 4, 8 ranges; K = 17 (a partial slice).
  tut::gemm::testing::check_variants_at(split_k_variants(), {{33, 65, 40}, {129, 257, 1000}, {64, 64, 17},
                                                             {31, 33, 1}, {17, 19, 0}, {1, 1, 4097}});
}

TEST_CASE("29: shapes the model splits (few tiles, deep K): checked against cuBLAS and the CPU") {
  // On a 132-SM H200 the model splits all of these; on any GPU the stage must be right whatever it chooses.
  tut::gemm::testing::check_variants_at(split_k_variants(), {{64, 64, 8192}, {128, 512, 4096}, {255, 257, 3001}});
  tut::gemm::testing::check_variants_at(split_k_variants(), {{64, 64, 8192}, {129, 130, 2049}}, 1.0f, 0.0f);  // C = NaN
}

TEST_CASE("29: the reduction sums in a fixed order: two runs give the same bits") {
  tut::require_supported_gpu();
  for (const auto& v : split_k_variants()) {
    if (v.name != "sgemm-split-k" && v.name != "splitk-64x128-s8") continue;
    tut::gemm::GemmProblem p(200, 300, 5000, 1.0f, 0.0f, 7);
    v.setup(200, 300, 5000);
    std::vector<float> first(200 * 300), second(200 * 300);
    for (auto* out : {&first, &second}) {
      p.reset_c(0);
      p.run(v.launch, 0);
      TUT_CUDA_CHECK(cudaDeviceSynchronize());
      TUT_CUDA_CHECK(cudaMemcpy(out->data(), p.c_device(), out->size() * sizeof(float), cudaMemcpyDeviceToHost));
    }
    INFO(v.name);
    CHECK(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)) == 0);
  }
}

TEST_CASE("29: the stage's plan is made in the set-up, and the partial-sum kernels hold what the model counts") {
  tut::require_supported_gpu();
  sgemm_split_k::SplitDispatcher d;
  d.set_up(128, 4096, 4096);
  const auto& tiles = d.tiles();
  for (bool beta : {true, false}) {  // the looked-up plan is the model's
    const sgemm_shapes::Plan looked_up = d.plan(128, 4096, 4096, -1, 0, beta);
    const sgemm_shapes::Plan model = tiles.plan(128, 4096, 4096, sgemm_split_k::kMaxSplits, beta);
    CHECK(looked_up.config == model.config);
    CHECK(looked_up.splits == model.splits);
    CHECK(looked_up.k_per_split == model.k_per_split);
    CHECK(d.workspace_bytes() >= looked_up.workspace_bytes);
  }
  // A shape the set-up did not see is planned in the launch (slower, still the model's plan).
  CHECK(d.plan(1024, 1024, 16384).splits == tiles.plan(1024, 1024, 16384, sgemm_split_k::kMaxSplits).splits);
  // The model counts the tile kernel's blocks per SM; a split plan runs the partial-sum kernel. On sm_90 with
  // CUDA 13.0 that holds as many for 128x256 (1) and one fewer for 64x128 (159 registers: 3, not 4); the
  // per-SM model feels it only where fewer than 4 blocks fall on an SM. More than one fewer would be a change
  // the model must learn.
  auto split_blocks = [](auto kernel, int threads, int shared) {
    int blocks = 0;
    TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared));
    return blocks;
  };
  using C0 = std::tuple_element_t<0, sgemm_shapes::Tiles>::Config;
  using C1 = std::tuple_element_t<1, sgemm_shapes::Tiles>::Config;
  for (const auto& m : tiles.models()) {
    const int split = m.name == tiles.kernels()[0].model.name
                          ? split_blocks(sgemm_split_k::sgemm_split_k_kernel<C0, true>, C0::kThreads, C0::kSharedBytes)
                          : split_blocks(sgemm_split_k::sgemm_split_k_kernel<C1, true>, C1::kThreads, C1::kSharedBytes);
    INFO(m.name, ": tile kernel ", m.blocks_per_sm, " blocks per SM, partial-sum kernel ", split);
    CHECK(split >= 1);
    CHECK(split <= m.blocks_per_sm);
    CHECK(split >= m.blocks_per_sm - 1);
  }
}

TEST_CASE("29: a split plan with a workspace the set-up did not size is refused with one sentence (exit 2)") {
  tut::require_supported_gpu();
  sgemm_split_k::SplitDispatcher d;
  d.set_up(16, 16, 16);  // no split here: no workspace
  const sgemm_shapes::Plan p = d.plan(256, 256, 4096, 0, 4);
  REQUIRE(p.splits == 4);
  CHECK(d.workspace_bytes() < p.workspace_bytes);
  tut::gemm::GemmProblem prob(256, 256, 4096, 1.0f, 0.0f, 3);
  CHECK_THROWS_WITH_AS(d.run(p, 256, 256, 4096, 1.0f, prob.a_device(), prob.b_device(), 0.0f, prob.c_device(), 0),
                       doctest::Contains("workspace"), tut::UsageError);
  d.reserve(p.workspace_bytes);  // sized: now it runs
  d.run(p, 256, 256, 4096, 1.0f, prob.a_device(), prob.b_device(), 0.0f, prob.c_device(), 0);
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
}

TEST_CASE("29: the program refuses negative sizes with exit 2") {
  tut::require_supported_gpu();
  const char* argv[] = {"29-sgemm-split-k", "--m", "-5", "--n", "8", "--k", "8"};
  CHECK(tut::run_chapter(7, const_cast<char**>(argv), chapter_spec()) == 2);
}
