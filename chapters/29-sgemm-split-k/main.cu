// Chapter 29: SGEMM at every shape, part 2: split-K with a deterministic reduction, the tile and the split
// chosen together by chapter 28's per-SM model, or where the model cannot tell the tiles apart by this GPU's plan
// (stage_plan.cuh). The stage is the whole dispatcher; fixed tile-and-split candidates stay runnable (--variant
// splitk-<tile>-s<splits>, splitk-<tile> for the model's best split of a tile, or --variant all) to measure the
// model. Stream-K and its data-parallel hybrid (sgemm_stream_k.cuh) are on-demand variants beside them
// (--variant stream-k, dp-stream-k, and the 64x128 tile's): measured against split-K; the 64x128 hybrid is also
// one of the plan's candidates.
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "gemm/gemm_workload.cuh"
#include "sgemm_split_k.cuh"
#include "sgemm_stream_k.cuh"
#include "stage_plan.cuh"

namespace {

// The fixed candidates: both tiles of chapter 28 (128x256 and 64x128, indices in sgemm_shapes::Tiles) at 2, 4
// and 8 splits. (Split 1 of each is chapter 28's tile-<BMxBN> variant.)
constexpr int kFixedTiles[] = {0, 1};
static_assert(std::tuple_size<sgemm_shapes::Tiles>::value == 2, "kFixedTiles lists every tile of chapter 28");
constexpr int kFixedSplits[] = {2, 4, 8};

tut::gemm::GemmVariant split_variant(std::shared_ptr<sgemm_split_k::SplitDispatcher> d, std::string name,
                                     std::string description, int tile, int splits, bool on_demand) {
  tut::gemm::GemmVariant v{std::move(name), std::move(description),
                           [d, tile, splits](int m, int n, int k, float alpha, const float* A, const float* B,
                                             float beta, float* C, cudaStream_t stream) {
                             if (m <= 0 || n <= 0) return;  // an empty C: nothing to plan or write
                             d->run(d->plan(m, n, k, tile, splits, beta != 0.0f), m, n, k, alpha, A, B, beta, C,
                                    stream);
                           },
                           "", on_demand};
  v.setup = [d, tile, splits](int m, int n, int k) { d->set_up(m, n, k, tile, splits); };
  v.explain = [d, tile, splits](int m, int n, int k) {
    d->set_up(m, n, k, tile, splits);
    return sgemm_shapes::explain(d->tiles().models(), d->plan(m, n, k, tile, splits));
  };
  return v;
}

// A stream-K variant of tile Tile (sgemm_shapes::Tiles); hybrid: the full waves' tiles data-parallel.
template <class Tile>
tut::gemm::GemmVariant stream_k_variant(std::string name,
                                        std::shared_ptr<sgemm_stream_k::StreamK<typename Tile::Config>> sk,
                                        bool hybrid) {
  const std::string tile = Tile::kName;
  tut::gemm::GemmVariant v{
      std::move(name),
      tile + " tiles, " +
          (hybrid ? "whole tiles for the full waves, stream-K over the last wave's tiles"
                  : "stream-K: every tile's K slices dealt evenly to SMs x blocks-per-SM persistent blocks") +
          "; partial tiles in a workspace of 2 tiles per block, fixed up by a second kernel in K order",
      [sk, hybrid](int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
                   cudaStream_t stream) {
        if (m <= 0 || n <= 0) return;  // an empty C: nothing to schedule or write
        sk->run(sk->schedule(m, n, k, hybrid), m, n, k, alpha, A, B, beta, C, stream);
      },
      "", true};
  v.setup = [sk, hybrid](int m, int n, int k) { sk->set_up(m, n, k, hybrid); };
  v.explain = [sk, hybrid](int m, int n, int k) {
    sk->set_up(m, n, k, hybrid);
    return sk->explain(m, n, k, hybrid);
  };
  return v;
}

// stream-k and dp-stream-k on chapter 27's tile (128x256, the model's default), then both on 64x128. The two
// variants of a tile share its set-up and workspace (grown to the larger of their schedules); small: the 64x128
// one, shared with the stage's plan where given.
std::vector<tut::gemm::GemmVariant> stream_k_variants(std::shared_ptr<sgemm_split_k::StageStreamK> small = nullptr) {
  using Big = std::tuple_element_t<0, sgemm_shapes::Tiles>;
  using Small = sgemm_split_k::StreamKTile;
  const auto big = std::make_shared<sgemm_stream_k::StreamK<Big::Config>>(Big::kName);
  if (!small) small = std::make_shared<sgemm_split_k::StageStreamK>(Small::kName);
  const std::string small_suffix = std::string("-") + Small::kName;
  return {stream_k_variant<Big>("stream-k", big, false), stream_k_variant<Big>("dp-stream-k", big, true),
          stream_k_variant<Small>("stream-k" + small_suffix, small, false),
          stream_k_variant<Small>("dp-stream-k" + small_suffix, small, true)};
}

}  // namespace

// The stage: the dispatcher with its plan per GPU (stage_plan.cuh).
tut::gemm::GemmVariant planned_stage(std::shared_ptr<sgemm_split_k::SplitDispatcher> d,
                                     std::shared_ptr<sgemm_split_k::StageStreamK> small) {
  const auto stage = std::make_shared<sgemm_split_k::PlannedSplitK>(std::move(d), std::move(small));
  tut::gemm::GemmVariant v{
      "sgemm-split-k",
      "chapter 28's tiles with K split in up to " + std::to_string(sgemm_split_k::kMaxSplits) +
          " ranges, tile and split chosen by chapter 28's per-SM model, or where the tiles are within its error by "
          "this GPU's plan (the plan: line; the choice is printed after the table); partial sums in a workspace of "
          "splits x M x N floats, summed in split order",
      [stage](int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C,
              cudaStream_t stream) { stage->run(m, n, k, alpha, A, B, beta, C, stream); },
      ""};
  v.setup = [stage](int m, int n, int k) { stage->set_up(m, n, k); };
  v.plan = [stage](const tut::gemm::GemmOperands& op) { stage->plan(op); };
  v.explain = [stage](int m, int n, int k) {
    stage->set_up(m, n, k);
    return stage->explain(m, n, k);
  };
  return v;
}

std::vector<tut::gemm::GemmVariant> split_k_variants() {
  auto d = std::make_shared<sgemm_split_k::SplitDispatcher>();
  auto small = std::make_shared<sgemm_split_k::StageStreamK>(sgemm_split_k::StreamKTile::kName);
  std::vector<tut::gemm::GemmVariant> out;
  out.push_back(planned_stage(d, small));
  const auto tile_kernels = sgemm_shapes::all_tile_kernels();
  for (int t : kFixedTiles) {  // the plan's split-K candidates: each tile at the model's best split for it
    const std::string tile = tile_kernels[static_cast<std::size_t>(t)].model.name;
    out.push_back(split_variant(d, sgemm_split_k::best_split_name(tile),
                                tile + " tiles, K in the number of ranges the model predicts fastest for this tile "
                                "(1 to " + std::to_string(sgemm_split_k::kMaxSplits) + "; 1: the tile kernel alone)",
                                t, sgemm_split_k::kBestSplit, true));
  }
  for (int t : kFixedTiles)
    for (int s : kFixedSplits) {
      const std::string tile = tile_kernels[static_cast<std::size_t>(t)].model.name;
      out.push_back(split_variant(d, "splitk-" + tile + "-s" + std::to_string(s),
                                  tile + " tiles, K in " + std::to_string(s) + " ranges of whole slices (fewer "
                                  "where K has fewer slices), workspace " + std::to_string(s) + " x M x N floats",
                                  t, s, true));
    }
  for (auto& v : stream_k_variants(small)) out.push_back(std::move(v));
  return out;
}

tut::ChapterSpec chapter_spec() {
  return tut::gemm::make_gemm_chapter("29-sgemm-split-k",
                                      "SGEMM at every shape: split-K with a deterministic reduction, tile and split "
                                      "chosen by chapter 28's per-SM model",
                                      split_k_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
