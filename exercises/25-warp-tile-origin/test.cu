// Test of exercise 25: the warp tile's thread-to-result map. On the host: the 256 threads' quads cover the 128 x 128
// block tile exactly once, each warp's results are its 32 x 64 warp tile, and for every k a warp reads 4 adjacent
// float4s of A and 8 adjacent float4s of B per sub-tile (the reads that make chapter 25's LDS.128 conflict-free).
// On the GPU: the kernel built on the map against cuBLAS and the FP64 CPU reference (common/gemm) at the SGEMM
// ladder's adversarial shapes, five alpha/beta pairs, misaligned buffers and large shapes. The same source tests
// the exercise and the solution.
#include <warp_tile_origin.cuh>

#include "gemm_exercise_testing.cuh"

#include <set>
#include <string>
#include <vector>

using namespace exercise_testing;
namespace wt = warp_tile_origin;

namespace {

constexpr int kWarps = wt::kWarpsM * wt::kWarpsN;

std::string who(int warp, int lane) {
  return "thread " + std::to_string(warp * 32 + lane) + " (warp " + std::to_string(warp) + ", lane " +
         std::to_string(lane) + ")";
}

// Calls f(row, col) for every result of the thread, in the order multiply_quads and store_quads use.
template <class F>
void for_each_result(int warp, int lane, F f) {
  const wt::QuadOrigin o = wt::thread_quad_origin(warp, lane);
  for (int im = 0; im < wt::kWarpIterM; ++im)
    for (int in = 0; in < wt::kWarpIterN; ++in)
      for (int i = 0; i < wt::kQuad; ++i)
        for (int j = 0; j < wt::kQuad; ++j)
          f(o.row + im * wt::kLanesM * wt::kQuad + i, o.col + in * wt::kLanesN * wt::kQuad + j);
}

}  // namespace

TEST_CASE("25: every result of the 128 x 128 block tile belongs to exactly one thread") {
  std::vector<int> owner(wt::kBlockM * wt::kBlockN, -1);
  for (int warp = 0; warp < kWarps; ++warp)
    for (int lane = 0; lane < 32; ++lane)
      for_each_result(warp, lane, [&](int r, int c) {
        REQUIRE_MESSAGE((r >= 0 && r < wt::kBlockM && c >= 0 && c < wt::kBlockN),
                        "MISMATCH: " << who(warp, lane) << " owns (" << r << ", " << c << "), outside the block tile");
        int& o = owner[static_cast<std::size_t>(r) * wt::kBlockN + c];
        REQUIRE_MESSAGE(o == -1, "MISMATCH: result (" << r << ", " << c << ") of the block tile belongs to "
                                                      << who(o / 32, o % 32) << " and to " << who(warp, lane));
        o = warp * 32 + lane;
      });
  // 256 threads x 64 results = 128 x 128 with no result twice: every result has its thread.
}

TEST_CASE("25: a warp's results are its 32 x 64 warp tile (4 x 2 warp tiles, warp w at row w / 2, column w % 2)") {
  for (int warp = 0; warp < kWarps; ++warp) {
    const int row0 = warp / wt::kWarpsN * wt::kWarpM, col0 = warp % wt::kWarpsN * wt::kWarpN;
    for (int lane = 0; lane < 32; ++lane)
      for_each_result(warp, lane, [&](int r, int c) {
        REQUIRE_MESSAGE((r >= row0 && r < row0 + wt::kWarpM && c >= col0 && c < col0 + wt::kWarpN),
                        "MISMATCH: " << who(warp, lane) << " owns (" << r << ", " << c << "), outside its warp's tile "
                                     << "(rows " << row0 << " .. " << row0 + wt::kWarpM - 1 << ", columns " << col0
                                     << " .. " << col0 + wt::kWarpN - 1 << ")");
      });
  }
}

TEST_CASE("25: per k and sub-tile a warp reads 4 adjacent float4s of A and 8 adjacent float4s of B") {
  for (int warp = 0; warp < kWarps; ++warp) {
    for (int im = 0; im < wt::kWarpIterM; ++im) {
      std::set<int> quads;  // float4 index within the row As[kk] of each lane's A fragment
      for (int lane = 0; lane < 32; ++lane)
        quads.insert((wt::thread_quad_origin(warp, lane).row + im * wt::kLanesM * wt::kQuad) / 4);
      REQUIRE_MESSAGE((quads.size() == 4 && *quads.rbegin() - *quads.begin() == 3),
                      "MISMATCH: warp " << warp << ", sub-tile row " << im << ": the lanes read " << quads.size()
                                        << " float4s of A, spread over " << *quads.rbegin() - *quads.begin() + 1
                                        << " (want 4 adjacent ones: 64 bytes, each broadcast to 8 lanes)");
    }
    for (int in = 0; in < wt::kWarpIterN; ++in) {
      std::set<int> quads;
      for (int lane = 0; lane < 32; ++lane)
        quads.insert((wt::thread_quad_origin(warp, lane).col + in * wt::kLanesN * wt::kQuad) / 4);
      REQUIRE_MESSAGE((quads.size() == 8 && *quads.rbegin() - *quads.begin() == 7),
                      "MISMATCH: warp " << warp << ", sub-tile column " << in << ": the lanes read " << quads.size()
                                        << " float4s of B, spread over " << *quads.rbegin() - *quads.begin() + 1
                                        << " (want 8 adjacent ones: 128 bytes, each broadcast to 4 lanes)");
    }
  }
}

TEST_CASE("25: the warp-tiled SGEMM matches cuBLAS and the CPU reference at every shape and alpha/beta") {
  tut::gemm::testing::check_exercise({{"warp-tile", "chapter 25's kernel on the map under test", wt::sgemm, ""}});
}

TEST_CASE("measure" * doctest::skip()) {
  measure_sgemm_against_cublas("25-warp-tile-origin", "warp-tile", wt::sgemm);
}
