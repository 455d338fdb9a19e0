// Blocks 1 and 2 together: tma_wgmma_gemm.cuh's GEMM (TMA into a ring of mbarrier-guarded stages, one wgmma
// warpgroup, guarded epilogue) at shapes no multiple of any tile, K = 0 and 1 included, for every tile width and
// 2 and 4 stages. Inputs are seeded BF16 with NaN in the rows' padding (a TMA reading past K would spread it);
// C is poisoned, has a gap of 3 columns between rows that must stay poisoned, and sits between guard regions.
#include <cuda_bf16.h>

#include <cstdint>
#include <string>
#include <vector>

#include "device_buffer.cuh"
#include "gpu_test.cuh"
#include "hopper/hopper_testing.cuh"
#include "hopper/tma_wgmma_gemm.cuh"

namespace {

using namespace tut::hopper;

constexpr std::uint32_t kPoison = 0xFFFFFFFFu;  // a NaN

int padded_ld(int k) { return ((k + 7) / 8) * 8 + 8; }  // a multiple of 8, and always some NaN padding

template <int kBlockN, int kStages>
void check_gemm_shape(int m, int n, int k) {
  CAPTURE(kBlockN);
  CAPTURE(kStages);
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  const std::uint64_t seed = tut::testing::test_seed() + 7919ull * m + 131ull * n + k;
  const testing::Bf16Matrix a = testing::random_bf16_matrix(m, k, padded_ld(k), seed);
  const testing::Bf16Matrix b = testing::random_bf16_matrix(n, k, padded_ld(k), seed + 1);
  const int ldc = n + 3;
  tut::DeviceBuffer<__nv_bfloat16> da(a.bits), db(b.bits);
  tut::DeviceBuffer<float> dc(static_cast<std::size_t>(m) * ldc);
  da.label("A").watch();
  db.label("B").watch();
  dc.label("C");
  TUT_CUDA_CHECK(cudaMemset(dc.data(), 0xFF, dc.bytes()));
  launch_tma_wgmma_gemm<kBlockN, kStages>(da.data(), a.ld, db.data(), b.ld, dc.data(), ldc, m, n, k);
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(testing::check_gemm(dc.download(), ldc, a, b, kPoison) == 0);
  for (const std::string& problem : tut::check_device_buffers()) CHECK_MESSAGE(false, problem);
}

struct Mnk {
  int m, n, k;
};

// Every edge: one element; K = 0 and 1; M, N, K one under, at and over a tile; K past several rings of stages.
const std::vector<Mnk> kShapes = {{1, 1, 1},    {1, 1, 0},     {3, 5, 1},     {63, 65, 64},  {64, 64, 64},
                                  {65, 63, 65}, {33, 31, 17},  {128, 257, 8}, {1, 300, 130}, {200, 1, 200},
                                  {130, 129, 1000}, {64, 256, 513}};

TEST_CASE("TMA + mbarrier ring + wgmma GEMM matches the CPU at every edge") {
  testing::skip_unless_sm90a();
  for (const Mnk& s : kShapes) {
    check_gemm_shape<128, 4>(s.m, s.n, s.k);
    check_gemm_shape<64, 2>(s.m, s.n, s.k);
  }
  for (const Mnk& s : {Mnk{65, 257, 300}, Mnk{1, 1, 1}, Mnk{256, 512, 1024}}) {
    check_gemm_shape<256, 3>(s.m, s.n, s.k);
    check_gemm_shape<128, 2>(s.m, s.n, s.k);
  }
}

TEST_CASE("a larger GEMM (many CTAs, K = 4096) matches the CPU") {
  testing::skip_unless_sm90a();
  if (tut::testing::under_sanitizer()) {
    MESSAGE("skipped under compute-sanitizer: the CPU reference of 300 x 520 x 4096 is the slow part");
    return;
  }
  check_gemm_shape<128, 4>(300, 520, 4096);
}

TEST_CASE("launch_tma_wgmma_gemm refuses a K TMA cannot describe without padding") {
  testing::skip_unless_sm90a();
  tut::DeviceBuffer<__nv_bfloat16> a(64), b(64);
  tut::DeviceBuffer<float> c(64);
  CHECK_THROWS_WITH_AS((launch_tma_wgmma_gemm<64, 2>(a.data(), 3, b.data(), 3, c.data(), 1, 1, 1, 3)),
                       doctest::Contains("multiple of 8"), std::invalid_argument);
}

}  // namespace
