// Chapter 29's stage with its plan per GPU (docs/tuning-per-gpu.md). The candidates, the default first: each tile
// of chapter 28 at the split the model predicts fastest for it ("splitk-128x256", "splitk-64x128"; split 1 is the
// tile kernel alone), and stream-K's data-parallel hybrid on the 64 x 128 tile ("dp-stream-k-64x128", ahead of the
// split-K stage at some shapes of the H100's candidates table, README). The model (shape_model.hpp, rank())
// decides where the rule's plan is predicted faster than the other tile's best by more than its error,
// kModelError; it cannot predict stream-K, which is only measured. Where the tiles' plans are within the error of
// each other, a measured search of the candidates on the problem's operands at set-up, cached per GPU and shape
// class. Each candidate is also a variant of its own (--variant NAME runs it alone).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "gemm/gemm_plan.cuh"
#include "sgemm_split_k.cuh"
#include "sgemm_stream_k.cuh"

namespace sgemm_split_k {

using StreamKTile = std::tuple_element_t<1, sgemm_shapes::Tiles>;  // 64x128
using StageStreamK = sgemm_stream_k::StreamK<StreamKTile::Config>;
inline const std::string kStreamKCandidate = std::string("dp-stream-k-") + StreamKTile::kName;

// A tile's candidate and variant name: the tile at the model's best split for it.
inline std::string best_split_name(const std::string& tile) { return "splitk-" + tile; }

// The plan's candidates on this GPU, the default first: each usable tile's best split, then stream-K where its
// tile fits.
inline std::vector<std::string> stage_candidates(const SplitDispatcher& d) {
  std::vector<std::string> names;
  for (const auto& t : d.tiles().models()) names.push_back(best_split_name(t.name));
  int device = 0, optin = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (StreamKTile::Config::kSharedBytes <= optin) names.push_back(kStreamKCandidate);
  return names;
}

class PlannedSplitK {
 public:
  // stream_k: the 64x128 stream-K of the chapter's variants (they share its set-up and workspace).
  PlannedSplitK(std::shared_ptr<SplitDispatcher> d, std::shared_ptr<StageStreamK> stream_k)
      : d_(std::move(d)), stream_k_(std::move(stream_k)) {}

  void set_up(int m, int n, int k) { d_->set_up(m, n, k); }

  // The plan for the problem's shape on this GPU, after set_up() and outside any timed run (a measured search
  // overwrites C).
  void plan(const tut::gemm::GemmOperands& op) {
    const auto& models = d_->tiles().models();
    const sgemm_shapes::Ranking& ranking = d_->ranking(op.m, op.n, op.k, op.beta != 0.0f);
    tut::PlanRequest r;
    r.key = tut::plan_key_here("29 sgemm " + tut::gemm::shape_class(op.m, op.n, op.k), TUT_THIS_BUILD_ID());
    r.candidates = stage_candidates(*d_);
    r.model = [&]() -> std::optional<tut::Plan> {
      const std::string chosen = best_split_name(models.at(static_cast<std::size_t>(ranking.chosen)).name);
      if (op.m <= 0 || op.n <= 0) return tut::Plan{chosen, "model: an empty C, nothing runs"};
      if (ranking.decided)
        return tut::Plan{chosen, "model: " + sgemm_shapes::compare(models, ranking) + ": apart by more than the model's " +
                                     std::to_string(static_cast<int>(sgemm_shapes::kModelError * 100)) + "%"};
      return std::nullopt;  // within the model's error of each other, or stream-K: measure
    };
    r.measure = [&](const std::vector<std::string>& names) {
      std::vector<double> ms;
      for (const auto& name : names) {
        if (name == kStreamKCandidate) stream_k_->set_up(op.m, op.n, op.k, true);
        else d_->set_stage_tile(model_index(name));  // sizes the workspace for that tile's plan
        ms.push_back(tut::gemm::search_ms(
            [&](int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                cudaStream_t stream) { run_candidate(name, m, n, k, alpha, A, B, beta, C, stream); },
            op));
      }
      return ms;
    };
    const std::string choice = tut::choose_plan(r).choice;
    if (choice == kStreamKCandidate) {
      stream_k_->set_up(op.m, op.n, op.k, true);
      d_->set_stage_tile(-1);
    } else {
      d_->set_stage_tile(model_index(choice));
    }
    planned_ = {op.m, op.n, op.k, choice};
  }

  // C = alpha A B + beta C with the plan of (m, n, k): its candidate where a plan saw that shape, else the model's
  // split plan.
  void run(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
           cudaStream_t stream) {
    if (m <= 0 || n <= 0) return;  // an empty C: nothing to plan or write
    if (planned_.at(m, n, k) && planned_.choice == kStreamKCandidate)
      return run_candidate(kStreamKCandidate, m, n, k, alpha, A, B, beta, C, stream);
    d_->run(d_->plan(m, n, k, -1, 0, beta != 0.0f), m, n, k, alpha, A, B, beta, C, stream);
  }

  // What the stage runs at (m, n, k).
  std::string explain(int m, int n, int k) const {
    if (planned_.at(m, n, k) && planned_.choice == kStreamKCandidate) return stream_k_->explain(m, n, k, true);
    return sgemm_shapes::explain(d_->tiles().models(), d_->plan(m, n, k));
  }

 private:
  int model_index(const std::string& name) const {
    const auto& models = d_->tiles().models();
    for (std::size_t u = 0; u < models.size(); ++u)
      if (best_split_name(models[u].name) == name) return static_cast<int>(u);
    throw std::logic_error("chapter 29's stage has no candidate " + name);
  }

  // One candidate at (m, n, k), set up beforehand (the search, or the plan's choice).
  void run_candidate(const std::string& name, int m, int n, int k, float alpha, const float* A, const float* B,
                     float beta, float* C, cudaStream_t stream) {
    if (name == kStreamKCandidate) {
      stream_k_->run(stream_k_->schedule(m, n, k, true), m, n, k, alpha, A, B, beta, C, stream);
      return;
    }
    const sgemm_shapes::Ranking& ranking = d_->ranking(m, n, k, beta != 0.0f);
    d_->run(ranking.plans.at(static_cast<std::size_t>(model_index(name))), m, n, k, alpha, A, B, beta, C, stream);
  }

  std::shared_ptr<SplitDispatcher> d_;
  std::shared_ptr<StageStreamK> stream_k_;
  tut::gemm::PlannedShape planned_;
};

}  // namespace sgemm_split_k
