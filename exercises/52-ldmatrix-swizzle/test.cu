// Test of exercise 52: the shared tiles' layout. On the host, with the layout itself: every chunk of a 128 x 32 tile
// gets its own 16 bytes inside the tile, every 8 x 8 matrix that the kernel's ldmatrix.x4 read (A and B, both k16
// steps, every warp) lies in 8 different bank groups, and so do the tile copy's 16-byte stores, 8 threads at a time.
// On the GPU: chapter 52's kernel with the layout against cuBLAS and the FP64 CPU reference at the tensor-core
// ladder's shapes (common/gemm_tc/tc_testing.cuh). The GPU part needs compute capability 8.0+ (else exit 77, meson's
// SKIP). The same source tests the exercise and the solution.
#include <ldmatrix_swizzle.cuh>

#include <algorithm>
#include <array>
#include <sstream>
#include <string>
#include <vector>

#include "tc_exercise_testing.cuh"

namespace {

using Layout = ldmatrix_swizzle::XorSwizzle;
constexpr int kRows = gemm_mma_sync::kBlockM, kChunks = gemm_mma_sync::kBlockK / tut::gemm_tc::kChunkElements;
static_assert(gemm_mma_sync::kBlockN == kRows, "the A and B tiles have the same rows");

struct Chunk {
  int row, chunk;
};

// The chunk's 16-byte bank group (0 ... 7) in a 128-byte line of the 32 banks.
int bank_group(const Chunk& c) {
  const int sixteen_bytes = Layout{}(c.row, c.chunk) / tut::gemm_tc::kChunkElements;
  return ((sixteen_bytes % 8) + 8) % 8;
}

// For 8 chunks read or written in one pass: "" when they fall on 8 different bank groups, else what collides.
std::string conflict(const std::vector<Chunk>& chunks) {
  std::array<int, 8> count{};
  for (const Chunk& c : chunks) ++count[bank_group(c)];
  const int ways = *std::max_element(count.begin(), count.end());
  if (ways == 1) return "";
  std::ostringstream s;
  s << "they fall on " << std::count_if(count.begin(), count.end(), [](int n) { return n > 0; })
    << " of the 8 bank groups, a " << ways << "-way bank conflict (groups:";
  for (const Chunk& c : chunks) s << " " << bank_group(c);
  s << ")";
  return s.str();
}

tut::gemm_tc::TcVariant with_your_layout() {
  return tc_exercise::variant_under_test("52-ldmatrix-swizzle", "ldmatrix-swizzle",
                                         gemm_mma_sync::gemm_mma_sync_kernel<ldmatrix_swizzle::XorSwizzle>,
                                         ldmatrix_swizzle::gemm);
}

}  // namespace

TEST_CASE("52: the layout gives every 16-byte chunk of a 128 x 32 tile its own place inside the tile") {
  std::vector<int> taken_by(kRows * kChunks, -1);  // by 16-byte place: which chunk (row * kChunks + chunk) is there
  for (int row = 0; row < kRows; ++row)
    for (int chunk = 0; chunk < kChunks; ++chunk) {
      const int offset = Layout{}(row, chunk);
      INFO("chunk " << chunk << " of row " << row << " goes to element offset " << offset);
      REQUIRE_MESSAGE(offset % tut::gemm_tc::kChunkElements == 0,
                      "MISMATCH: not a 16-byte boundary (a multiple of 8 elements): ldmatrix and the 16-byte copies "
                      "need one");
      REQUIRE_MESSAGE((offset >= 0 && offset < kRows * kChunks * tut::gemm_tc::kChunkElements),
                      "MISMATCH: outside the tile of " << kRows << " x 32 elements");
      int& other = taken_by[offset / tut::gemm_tc::kChunkElements];
      REQUIRE_MESSAGE(other == -1, "MISMATCH: chunk " << other % kChunks << " of row " << other / kChunks
                                                      << " goes there too: one overwrites the other");
      other = row * kChunks + chunk;
    }
}

TEST_CASE("52: every 8 x 8 matrix the kernel's ldmatrix.x4 read lies in 8 different bank groups (no conflict)") {
  // A warp's loads in chapter 52's kernel: per k16 step kk, ldmatrix.x4 of A at rows warp_m + 16 i and of B at rows
  // warp_n + 16 p; over the 8 warps those are all 8 blocks of 16 rows. Lanes 8 q ... 8 q + 7 address matrix q.
  struct Load {
    const char* operand;
    int (*row)(int lane);
    int (*chunk)(int lane);
  };
  const Load loads[] = {{"A", tut::gemm_tc::a_ldmatrix_row, tut::gemm_tc::a_ldmatrix_chunk},
                        {"B", tut::gemm_tc::b_ldmatrix_row, tut::gemm_tc::b_ldmatrix_chunk}};
  for (const Load& load : loads)
    for (int row0 = 0; row0 < kRows; row0 += 16)
      for (int kk = 0; kk < gemm_mma_sync::kBlockK; kk += gemm_mma_sync::kMmaK)
        for (int q = 0; q < 4; ++q) {
          std::vector<Chunk> matrix;
          for (int lane = 8 * q; lane < 8 * q + 8; ++lane)
            matrix.push_back({row0 + load.row(lane), kk / 8 + load.chunk(lane)});
          const std::string why = conflict(matrix);
          REQUIRE_MESSAGE(why.empty(), "MISMATCH: ldmatrix.x4 of " << std::string(load.operand) << " at tile rows " << row0 << "-"
                                           << row0 + 15 << ", k " << kk << "-" << kk + 15 << ": matrix " << q
                                           << " reads chunk " << matrix[0].chunk << " of rows " << matrix[0].row
                                           << "-" << matrix[7].row << ", and " << why);
        }
}

TEST_CASE("52: the tile copy's 16-byte stores are conflict-free (8 consecutive threads store 8 chunks at a time)") {
  // copy_tile: thread t stores chunks t, t + 256, ...; chunk c is chunk c % 4 of row c / 4.
  for (int first = 0; first < kRows * kChunks; first += 8) {
    std::vector<Chunk> stores;
    for (int c = first; c < first + 8; ++c) stores.push_back({c / kChunks, c % kChunks});
    const std::string why = conflict(stores);
    REQUIRE_MESSAGE(why.empty(), "MISMATCH: the stores of chunks " << first << "-" << first + 7 << " (rows "
                                     << first / kChunks << "-" << (first + 7) / kChunks << "): " << why);
  }
}

TEST_CASE("52: the mma.sync kernel with your layout matches cuBLAS and the CPU reference at every shape") {
  tc_exercise::check_kernel(with_your_layout(), {{128, 128, 32}, {256, 128, 64}, {129, 255, 95}});
}

TEST_CASE("measure" * doctest::skip()) {
  tc_exercise::measure("52-ldmatrix-swizzle", {"bf16-mma-ldmatrix", "chapter 52's stage", gemm_mma_sync::gemm, 80},
                       with_your_layout());
}
