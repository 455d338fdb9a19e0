// Block 1 alone: one warpgroup multiplies a 64 x K A by an N x K B^T with wgmma from descriptors of 128B-swizzled
// shared memory, staged there with ordinary loads and stores (no TMA), and writes the 64 x N result through the
// accumulator fragment's (row, col) map. Checked against the CPU for N = 64, 128, 256 and K = 16 .. 256.
// Proves: the descriptor fields, the K step inside a swizzled row, swizzle_128b_offset(), scale-d = 0 (the
// accumulators start as NaN and the first wgmma must overwrite them), and accumulator_coord().
#include <cuda_bf16.h>

#include <cstdint>
#include <string>
#include <vector>

#include "device_buffer.cuh"
#include "gpu_test.cuh"
#include "hopper/hopper_testing.cuh"
#include "hopper/warpgroup.cuh"
#include "hopper/wgmma.cuh"

namespace {

using namespace tut::hopper;

constexpr int kMaxK = 256;

template <int N>
constexpr int shared_bytes_for(int k) {
  return ((k + 63) / 64) * (64 + N) * kSwizzleBytes + kSwizzleAtomBytes;
}

// a: 64 x k (ld k), b: N x k (ld k), c: 64 x N; k a multiple of 16, at most kMaxK.
template <int N>
__global__ void __launch_bounds__(128) wgmma_tile_kernel(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c,
                                                         int k) {
#if TUT_SM90A_DEVICE_CODE
  extern __shared__ unsigned char shared_raw[];
  unsigned char* shared = align_to_swizzle_atom(shared_raw);
  const int k_blocks = (k + 63) / 64;
  // K-block kb of A: 64 rows x 128 bytes; then the K-blocks of B, N rows each.
  auto tile_a = [&](int kb) { return shared + kb * 64 * kSwizzleBytes; };
  auto tile_b = [&](int kb) { return shared + k_blocks * 64 * kSwizzleBytes + kb * N * kSwizzleBytes; };
  const int t = threadIdx.x;

  // Stage both operands swizzled; columns from k to the end of the last K-block are zero.
  for (int i = t; i < (64 + N) * k_blocks * 64; i += blockDim.x) {
    const int col = i % (k_blocks * 64), row = i / (k_blocks * 64);
    const bool in_a = row < 64;
    const int r = in_a ? row : row - 64;
    const __nv_bfloat16 v = col < k ? (in_a ? a : b)[r * k + col] : __float2bfloat16(0.0f);
    unsigned char* tile = in_a ? tile_a(col / 64) : tile_b(col / 64);
    *reinterpret_cast<__nv_bfloat16*>(tile + swizzle_128b_offset(r, (col % 64) * 2)) = v;
  }
  fence_proxy_async_shared();  // the stores above were generic-proxy; wgmma reads through the async proxy
  __syncthreads();

  float acc[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) acc[i] = __int_as_float(0x7fc00000);  // NaN: the first wgmma must overwrite
  accumulator_fence(acc);
  wgmma_fence();
  for (int kb = 0; kb < k_blocks; ++kb) {
    const std::uint64_t da = make_smem_descriptor_sw128(tile_a(kb));
    const std::uint64_t db = make_smem_descriptor_sw128(tile_b(kb));
#pragma unroll
    for (int kk = 0; kk < 64; kk += 16)
      wgmma_m64k16_bf16<N>(acc, smem_descriptor_advance_k(da, kk), smem_descriptor_advance_k(db, kk),
                           /*accumulate=*/kb + kk > 0);
  }
  wgmma_commit_group();
  wgmma_wait_group<0>();
  accumulator_fence(acc);
#pragma unroll
  for (int i = 0; i < N / 2; ++i) {
    const AccumulatorCoord at = accumulator_coord(t, i);
    c[at.row * N + at.col] = acc[i];
  }
#else
  (void)a, (void)b, (void)c, (void)k;
#endif
}

// Three warpgroups: the first gives registers back (a producer's 40), the other two take them (consumers' 232),
// then each thread writes its warpgroup's number + 1 and the number of its warp's lanes that got there.
__global__ void __launch_bounds__(384, 1) setmaxnreg_kernel(int* out) {
#if TUT_SM90A_DEVICE_CODE
  const int wg = warpgroup_index();
  if (wg == 0)
    warpgroup_registers_decrease<40>();
  else
    warpgroup_registers_increase<232>();
  out[threadIdx.x] = (wg + 1) * 100 + __popc(__activemask());
#else
  (void)out;
#endif
}

template <int N>
void check_tile(int k) {
  CAPTURE(N);
  CAPTURE(k);
  const std::uint64_t seed = tut::testing::test_seed() + 1000 * N + k;
  const testing::Bf16Matrix a = testing::random_bf16_matrix(64, k, k, seed);
  const testing::Bf16Matrix b = testing::random_bf16_matrix(N, k, k, seed + 1);
  tut::DeviceBuffer<__nv_bfloat16> da(a.bits), db(b.bits);
  tut::DeviceBuffer<float> dc(64 * N);
  da.label("A").watch();
  db.label("B").watch();
  dc.label("C");
  TUT_CUDA_CHECK(cudaMemset(dc.data(), 0xFF, dc.bytes()));
  const int shared = shared_bytes_for<N>(k);
  TUT_CUDA_CHECK(cudaFuncSetAttribute(wgmma_tile_kernel<N>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  wgmma_tile_kernel<N><<<1, 128, shared, 0>>>(da.data(), db.data(), dc.data(), k);
  TUT_CHECK_LAUNCH();
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(testing::check_gemm(dc.download(), N, a, b, 0xFFFFFFFFu) == 0);
  for (const std::string& problem : tut::check_device_buffers()) CHECK_MESSAGE(false, problem);
}

TEST_CASE("the accumulator map covers the 64 x N tile once") {  // host-only; a wrong map fails the case above too
  for (int n : {64, 128, 256}) {
    std::vector<int> hits(64 * n, 0);
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < n / 2; ++i) {
        const AccumulatorCoord at = accumulator_coord(t, i);
        REQUIRE((at.row >= 0 && at.row < 64 && at.col >= 0 && at.col < n));
        ++hits[at.row * n + at.col];
      }
    for (int h : hits) REQUIRE(h == 1);
  }
}


TEST_CASE("wgmma m64nNk16 from 128B-swizzled shared memory matches the CPU") {
  testing::skip_unless_sm90a();
  for (int k : {16, 64, 80, 192, kMaxK}) {
    check_tile<64>(k);
    check_tile<128>(k);
    check_tile<256>(k);
  }
}

TEST_CASE("setmaxnreg: a producer warpgroup gives registers to two consumer warpgroups") {
  testing::skip_unless_sm90a();
  tut::DeviceBuffer<int> out(384);
  out.label("out");
  TUT_CUDA_CHECK(cudaMemset(out.data(), 0xFF, out.bytes()));
  setmaxnreg_kernel<<<1, 384, 0, 0>>>(out.data());
  TUT_CHECK_LAUNCH();
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<int> got = out.download();
  for (int t = 0; t < 384; ++t) REQUIRE(got[t] == (t / 128 + 1) * 100 + 32);
}

}  // namespace
