// Host test (no GPU): a warp of chapters 52-53 emulated on the CPU with the real index helpers of
// mma_sync.cuh, ldmatrix and mma.m16n8k16 modelled as the PTX ISA describes them (see mma_sync.cuh). It checks
// that the swizzled tile, the ldmatrix row addresses and the register pairing of B give C = A B^T for every
// warp of the 128 x 128 x 32 block, and that every 8-lane phase of an ldmatrix and of the 16-byte tile stores
// touches 8 distinct 16-byte bank groups (no bank conflict).
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "doctest.hpp"
#include "gemm_tc/mma_sync.cuh"

namespace {

using tut::gemm_tc::Swizzled32;
constexpr int kBlock = 128, kDepth = 32, kWarpM = 64, kWarpN = 32;

// ldmatrix.x4: lane 8 i + r names row r of matrix i; register i of lane 4 g + q gets elements 2q, 2q + 1 of
// matrix i's row g. Returns [lane][register][2] element values.
using Fragment = std::array<std::array<std::array<float, 2>, 4>, 32>;
Fragment ldmatrix_x4(const std::vector<float>& smem, const std::array<int, 32>& row_offset) {
  Fragment f{};
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i)
      for (int e = 0; e < 2; ++e) f[lane][i][e] = smem[row_offset[8 * i + lane / 4] + 2 * (lane % 4) + e];
  return f;
}

// Bank groups of one ldmatrix's 4 phases (8 lanes each, 16 bytes a lane, 2 bytes an element) are distinct.
void check_conflict_free(const std::array<int, 32>& row_offset) {
  for (int phase = 0; phase < 4; ++phase) {
    std::set<int> groups;
    for (int l = 0; l < 8; ++l) groups.insert((row_offset[8 * phase + l] * 2 / 16) % 8);
    CHECK_MESSAGE(groups.size() == 8, "ldmatrix phase " << phase << " hits " << groups.size() << " bank groups");
  }
}

}  // namespace

TEST_CASE("mma.sync fragments from swizzled tiles compute A B^T (emulated warp)") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-8, 8);  // small integers: exact sums in float
  std::vector<float> a(kBlock * kDepth), b(kBlock * kDepth), a_smem(kBlock * kDepth), b_smem(kBlock * kDepth);
  for (auto& v : a) v = static_cast<float>(small(rng));
  for (auto& v : b) v = static_cast<float>(small(rng));
  const Swizzled32 swizzle;
  for (int r = 0; r < kBlock; ++r)
    for (int ch = 0; ch < kDepth / 8; ++ch)
      for (int e = 0; e < 8; ++e) {
        a_smem[swizzle(r, ch) + e] = a[r * kDepth + ch * 8 + e];
        b_smem[swizzle(r, ch) + e] = b[r * kDepth + ch * 8 + e];
      }
  for (int warp = 0; warp < 8; ++warp) {
    const int warp_m = (warp / 4) * kWarpM, warp_n = (warp % 4) * kWarpN;
    float acc[4][4][32][4] = {};
    for (int kk = 0; kk < kDepth; kk += 16) {
      Fragment fa[4], fb[2];
      for (int i = 0; i < 4; ++i) {
        std::array<int, 32> rows{};
        for (int lane = 0; lane < 32; ++lane)
          rows[lane] = swizzle(warp_m + i * 16 + tut::gemm_tc::a_ldmatrix_row(lane), kk / 8 + tut::gemm_tc::a_ldmatrix_chunk(lane));
        check_conflict_free(rows);
        fa[i] = ldmatrix_x4(a_smem, rows);
      }
      for (int p = 0; p < 2; ++p) {
        std::array<int, 32> rows{};
        for (int lane = 0; lane < 32; ++lane)
          rows[lane] = swizzle(warp_n + p * 16 + tut::gemm_tc::b_ldmatrix_row(lane), kk / 8 + tut::gemm_tc::b_ldmatrix_chunk(lane));
        check_conflict_free(rows);
        fb[p] = ldmatrix_x4(b_smem, rows);
      }
      // mma.m16n8k16 as the PTX ISA lays out its fragments (mma_sync.cuh's table).
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
          float am[16][16], bm[16][8];
          for (int lane = 0; lane < 32; ++lane) {
            const int g = lane / 4, q = lane % 4;
            for (int e = 0; e < 2; ++e) {
              am[g][2 * q + e] = fa[i][lane][0][e];
              am[g + 8][2 * q + e] = fa[i][lane][1][e];
              am[g][2 * q + 8 + e] = fa[i][lane][2][e];
              am[g + 8][2 * q + 8 + e] = fa[i][lane][3][e];
              bm[2 * q + e][g] = fb[j / 2][lane][(j % 2) * 2][e];
              bm[2 * q + 8 + e][g] = fb[j / 2][lane][(j % 2) * 2 + 1][e];
            }
          }
          for (int lane = 0; lane < 32; ++lane) {
            const int g = lane / 4, q = lane % 4;
            for (int c = 0; c < 4; ++c) {
              const int row = g + 8 * (c / 2), col = 2 * q + c % 2;
              for (int x = 0; x < 16; ++x) acc[i][j][lane][c] += am[row][x] * bm[x][col];
            }
          }
        }
    }
    // store_c_fragment's map: c0, c1 at (row0 + g, col0 + 2q + {0, 1}), c2, c3 at row + 8.
    int wrong = 0;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        for (int lane = 0; lane < 32; ++lane)
          for (int c = 0; c < 4; ++c) {
            const int row = warp_m + i * 16 + lane / 4 + 8 * (c / 2), col = warp_n + j * 8 + 2 * (lane % 4) + c % 2;
            float want = 0;
            for (int x = 0; x < kDepth; ++x) want += a[row * kDepth + x] * b[col * kDepth + x];
            wrong += acc[i][j][lane][c] != want;
          }
    CHECK_MESSAGE(wrong == 0, "warp " << warp << ": " << wrong << " wrong elements of C");
  }
}

TEST_CASE("the 16-byte stores of a swizzled tile copy are conflict-free (8 consecutive threads)") {
  const Swizzled32 swizzle;
  for (int first = 0; first < kBlock * kDepth / 8; first += 8) {
    std::set<int> groups;
    for (int t = first; t < first + 8; ++t) groups.insert((swizzle(t / 4, t % 4) * 2 / 16) % 8);
    CHECK_MESSAGE(groups.size() == 8, "chunks " << first << "..." << first + 7);
  }
}

TEST_CASE("without the swizzle the same ldmatrix rows conflict 4-way (what the swizzle removes)") {
  std::set<int> groups;
  for (int r = 0; r < 8; ++r) groups.insert((r * kDepth * 2 / 16) % 8);
  CHECK(groups.size() == 2);
}
