// Chapter 28: SGEMM at every shape, part 1: chapter 27's kernel in a few tile configurations, one chosen per
// shape by the per-SM model (shape_model.hpp). The stage is the dispatcher; every configuration stays runnable
// by itself (--variant tile-<BMxBN>, or --variant all) so the GPU run measures the table that checks the rule.
#include <memory>
#include <string>
#include <vector>

#include "gemm/gemm_workload.cuh"
#include "sgemm_tile_by_shape.cuh"

std::vector<tut::gemm::GemmVariant> tile_by_shape_variants() {
  auto dispatcher = std::make_shared<sgemm_shapes::TileDispatcher>();
  auto set_up = [dispatcher](int, int, int) { dispatcher->set_up(); };
  std::vector<tut::gemm::GemmVariant> out;
  tut::gemm::GemmVariant stage{
      "sgemm-tile-by-shape",
      "chapter 27's kernel in the tile configuration the per-SM model predicts fastest for the shape, or, where "
      "the two are within the model's error, the one this GPU's plan measured faster (the plan: line; the choice "
      "is printed after the table)",
      [dispatcher](int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                   cudaStream_t stream) {
        sgemm_shapes::sgemm_tile_by_shape(*dispatcher, m, n, k, alpha, A, B, beta, C, stream);
      },
      ""};
  stage.setup = set_up;
  stage.plan = [dispatcher](const tut::gemm::GemmOperands& op) { dispatcher->plan_stage(op); };
  stage.explain = [dispatcher](int m, int n, int k) {
    dispatcher->set_up();
    return sgemm_shapes::explain(dispatcher->models(), dispatcher->stage_plan(m, n, k));
  };
  out.push_back(stage);
  const auto& kernels = dispatcher->kernels();
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const auto& t = kernels[i];
    tut::gemm::GemmVariant v{
        dispatcher->variant_name(i),
        t.model.name + " x " + std::to_string(t.model.block_k) + " tiles of chapter 27's kernel for every shape",
        [dispatcher, i](int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                        cudaStream_t stream) { dispatcher->launch_kernel(i, m, n, k, alpha, A, B, beta, C, stream); },
        "", /*on_demand=*/true};
    v.setup = set_up;
    v.explain = [dispatcher, i](int m, int n, int k) {
      dispatcher->set_up();
      const auto& models = dispatcher->models();
      for (std::size_t u = 0; u < models.size(); ++u)
        if (models[u].name == dispatcher->kernels()[i].model.name)
          return sgemm_shapes::explain(models, sgemm_shapes::predict(models, static_cast<int>(u), dispatcher->gpu(), m, n, k, 1));
      return std::string("does not fit this GPU");
    };
    out.push_back(v);
  }
  return out;
}

tut::ChapterSpec chapter_spec() {
  return tut::gemm::make_gemm_chapter(
      "28-sgemm-tile-by-shape", "SGEMM at every shape: the tile configuration chosen per shape by a per-SM model",
      tile_by_shape_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
