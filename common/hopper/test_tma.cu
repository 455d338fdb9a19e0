// Block 2 alone: TMA loads of one box (64 columns x box_rows rows) of a BF16 matrix into 128B-swizzled shared
// memory, counted by an mbarrier, read back through swizzle_128b_offset() and compared element by element: inside
// the matrix the element, outside it (past the last row or column, before the first, or the box wholly outside)
// zero, never the NaN that fills the rows' padding past cols. Then the multicast form: one CTA of a cluster of 2
// loads, both receive.
#include <cuda_bf16.h>

#include <cooperative_groups.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "bulk_copy.cuh"
#include "device_buffer.cuh"
#include "gpu_test.cuh"
#include "hopper/hopper_testing.cuh"
#include "hopper/tma.cuh"

namespace {

using namespace tut::hopper;

constexpr int kBoxCols = kBf16PerSwizzleRow;

// The box at (row, col) to out (box_rows x 64, row-major, unswizzled).
__global__ void tma_box_kernel(const __grid_constant__ CUtensorMap map, int col, int row, int box_rows,
                               __nv_bfloat16* out) {
#if TUT_SM90_DEVICE_CODE
  using namespace tut::bulk_copy;
  extern __shared__ unsigned char shared_raw[];
  __shared__ std::uint64_t full;
  unsigned char* box = align_to_swizzle_atom(shared_raw);
  if (threadIdx.x == 0) {
    mbarrier_init(&full, 1);
    fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbarrier_arrive_expect_tx(&full, box_rows * kSwizzleBytes);
    tma_load_2d(box, &map, col, row, &full);
  }
  mbarrier_wait_parity(&full, 0);
  for (int i = threadIdx.x; i < box_rows * kBoxCols; i += blockDim.x) {
    const int r = i / kBoxCols, c = i % kBoxCols;
    out[i] = *reinterpret_cast<const __nv_bfloat16*>(box + swizzle_128b_offset(r, c * 2));
  }
#else
  (void)map, (void)col, (void)row, (void)box_rows, (void)out;
#endif
}

// One cluster of 2 CTAs (launched with a cluster attribute: __cluster_dims__ would not compile for sm_75): CTA 0
// multicasts the box at (row, col) to both; CTA r writes it to out + r * box_rows * 64. Then both CTAs release the
// box to CTA 0 with mbarrier_arrive_cluster() on CTA 0's `released` barrier (how chapter 57's consumers free a
// multicast stage), and CTA 0 sets *released_seen once both arrivals came (a bounded wait: no hang if they don't).
__global__ void tma_multicast_kernel(const __grid_constant__ CUtensorMap map, int col, int row, int box_rows,
                                     __nv_bfloat16* out, int* released_seen) {
#if TUT_SM90A_DEVICE_CODE
  using namespace tut::bulk_copy;
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ unsigned char shared_raw[];
  __shared__ std::uint64_t full;
  __shared__ std::uint64_t released;  // used in CTA 0 only: one arrival from each CTA of the cluster
  unsigned char* box = align_to_swizzle_atom(shared_raw);  // the same offset in both CTAs (same kernel, same layout)
  if (threadIdx.x == 0) {
    mbarrier_init(&full, 1);
    mbarrier_init(&released, 2);
    fence_mbarrier_init();  // visible to the other CTA's copy (release at cluster scope)
  }
  cluster.sync();  // both barriers initialised before any byte may arrive
  const unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0) {
    mbarrier_arrive_expect_tx(&full, box_rows * kSwizzleBytes);  // each CTA expects the bytes it receives
    if (rank == 0) tma_load_2d_multicast(box, &map, col, row, &full, 0b11);
  }
  mbarrier_wait_parity(&full, 0);
  for (int i = threadIdx.x; i < box_rows * kBoxCols; i += blockDim.x) {
    const int r = i / kBoxCols, c = i % kBoxCols;
    out[rank * box_rows * kBoxCols + i] = *reinterpret_cast<const __nv_bfloat16*>(box + swizzle_128b_offset(r, c * 2));
  }
  __syncthreads();
  if (threadIdx.x == 0) mbarrier_arrive_cluster(&released, 0);  // CTA 1's arrival crosses to CTA 0's shared memory
  if (rank == 0 && threadIdx.x == 0) {
    bool seen = false;
    for (long tries = 0; tries < (1L << 22) && !seen; ++tries) seen = mbarrier_try_wait_parity(&released, 0);
    *released_seen = seen ? 1 : 0;
  }
  cluster.sync();  // no CTA leaves while the cluster's copy or arrival may still target it
#else
  (void)map, (void)col, (void)row, (void)box_rows, (void)out, (void)released_seen;
#endif
}

int shared_bytes(int box_rows) { return box_rows * kSwizzleBytes + kSwizzleAtomBytes; }

// Compares the unswizzled box(es) in got with the matrix: element or zero.
long long check_box(const std::vector<__nv_bfloat16>& got, int copies, const testing::Bf16Matrix& m, int col, int row,
                    int box_rows) {
  long long bad = 0;
  for (int copy = 0; copy < copies; ++copy)
    for (int r = 0; r < box_rows; ++r)
      for (int c = 0; c < kBoxCols; ++c) {
        const int gr = row + r, gc = col + c;
        const bool inside = gr >= 0 && gr < m.rows && gc >= 0 && gc < m.cols;
        const float expected = inside ? m.at(gr, gc) : 0.0f;
        const float value = __bfloat162float(got[(static_cast<std::size_t>(copy) * box_rows + r) * kBoxCols + c]);
        std::uint32_t want_bits, got_bits;
        std::memcpy(&want_bits, &expected, 4);
        std::memcpy(&got_bits, &value, 4);
        if (want_bits != got_bits && ++bad <= 5)
          CHECK_MESSAGE(false, "copy ", copy, " box element (", r, ", ", c, ") = matrix (", gr, ", ", gc, "): got ",
                        value, ", expected ", expected);
      }
  return bad;
}

struct Box {
  int row, col, box_rows;
};

TEST_CASE("make_tensor_map_2d_bf16 refuses what TMA cannot describe, naming the rule") {  // host only
  const __nv_bfloat16* aligned = reinterpret_cast<const __nv_bfloat16*>(std::uintptr_t(1) << 20);
  CHECK_THROWS_WITH_AS(make_tensor_map_2d_bf16(aligned, 10, 1, 1, 64, 64), doctest::Contains("multiple of 8"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(make_tensor_map_2d_bf16(aligned + 1, 10, 8, 8, 64, 64), doctest::Contains("aligned"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(make_tensor_map_2d_bf16(aligned, 0, 8, 8, 64, 64), doctest::Contains("is 0"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(make_tensor_map_2d_bf16(aligned, 10, 8, 8, 257, 64), doctest::Contains("box_rows"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(make_tensor_map_2d_bf16(aligned, 10, 8, 8, 64, 32), doctest::Contains("box_cols"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(make_tensor_map_2d_bf16(aligned, 10, 16, 8, 64, 64), doctest::Contains("ld 8 < cols"),
                       std::invalid_argument);
}


TEST_CASE("a TMA box at and past the matrix edges holds the elements inside and zeros outside") {
  testing::skip_unless_sm90a();  // TMA itself needs sm_90 only; these blocks are built and run together
  // 100 x 72, ld 80: the NaN padding (columns 72..79) must read as zero like any other column past the edge.
  const testing::Bf16Matrix m = testing::random_bf16_matrix(100, 72, 80, tut::testing::test_seed());
  tut::DeviceBuffer<__nv_bfloat16> matrix(m.bits);
  matrix.label("matrix").watch();
  // Column coordinates are multiples of 8 (16 bytes): an H200 stops with an illegal instruction at column 71.
  const std::vector<Box> boxes = {{0, 0, 64},  {64, 64, 64}, {96, 0, 64},  {0, 64, 256}, {-8, -16, 64},
                                  {99, 64, 8}, {200, 0, 64}, {0, 200, 64}, {36, 8, 64},  {0, 0, 1}};
  for (const Box& box : boxes) {
    CAPTURE(box.row);
    CAPTURE(box.col);
    CAPTURE(box.box_rows);
    const TensorMap2d map = make_tensor_map_2d_bf16(matrix.data(), m.rows, m.cols, m.ld, box.box_rows, kBoxCols);
    tut::DeviceBuffer<__nv_bfloat16> out(static_cast<std::size_t>(box.box_rows) * kBoxCols);
    out.label("box");
    TUT_CUDA_CHECK(cudaMemset(out.data(), 0xFF, out.bytes()));
    TUT_CUDA_CHECK(
        cudaFuncSetAttribute(tma_box_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes(256)));
    tma_box_kernel<<<1, 128, shared_bytes(box.box_rows), 0>>>(map.map, box.col, box.row, box.box_rows, out.data());
    TUT_CHECK_LAUNCH();
    TUT_CUDA_CHECK(cudaDeviceSynchronize());
    CHECK(check_box(out.download(), 1, m, box.col, box.row, box.box_rows) == 0);
    for (const std::string& problem : tut::check_device_buffers()) CHECK_MESSAGE(false, problem);
  }
}

TEST_CASE("a 1 x 1 matrix (ld 8) loads as one element and zeros") {
  testing::skip_unless_sm90a();
  const testing::Bf16Matrix m = testing::random_bf16_matrix(1, 1, 8, tut::testing::test_seed() + 7);
  tut::DeviceBuffer<__nv_bfloat16> matrix(m.bits);
  const TensorMap2d map = make_tensor_map_2d_bf16(matrix.data(), 1, 1, 8, 64, kBoxCols);
  tut::DeviceBuffer<__nv_bfloat16> out(64 * kBoxCols);
  TUT_CUDA_CHECK(cudaMemset(out.data(), 0xFF, out.bytes()));
  tma_box_kernel<<<1, 128, shared_bytes(64), 0>>>(map.map, 0, 0, 64, out.data());
  TUT_CHECK_LAUNCH();
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(check_box(out.download(), 1, m, 0, 0, 64) == 0);
}

TEST_CASE("a multicast TMA box reaches both CTAs of a cluster, which release it to CTA 0") {
  testing::skip_unless_sm90a();
  const testing::Bf16Matrix m = testing::random_bf16_matrix(100, 72, 80, tut::testing::test_seed() + 3);
  tut::DeviceBuffer<__nv_bfloat16> matrix(m.bits);
  matrix.label("matrix").watch();
  for (const Box& box : std::vector<Box>{{0, 0, 64}, {64, 32, 64}}) {
    CAPTURE(box.row);
    CAPTURE(box.col);
    const TensorMap2d map = make_tensor_map_2d_bf16(matrix.data(), m.rows, m.cols, m.ld, box.box_rows, kBoxCols);
    tut::DeviceBuffer<__nv_bfloat16> out(2 * static_cast<std::size_t>(box.box_rows) * kBoxCols);
    out.label("boxes");
    TUT_CUDA_CHECK(cudaMemset(out.data(), 0xFF, out.bytes()));
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(2);
    config.blockDim = dim3(128);
    config.dynamicSmemBytes = shared_bytes(box.box_rows);
    cudaLaunchAttribute cluster_launch[1];
    cluster_launch[0].id = cudaLaunchAttributeClusterDimension;
    cluster_launch[0].val.clusterDim.x = 2;
    cluster_launch[0].val.clusterDim.y = 1;
    cluster_launch[0].val.clusterDim.z = 1;
    config.attrs = cluster_launch;
    config.numAttrs = 1;
    tut::DeviceBuffer<int> released_seen(1);
    TUT_CUDA_CHECK(cudaMemset(released_seen.data(), 0, sizeof(int)));
    TUT_CUDA_CHECK(cudaLaunchKernelEx(&config, tma_multicast_kernel, map.map, box.col, box.row, box.box_rows,
                                      out.data(), released_seen.data()));
    TUT_CUDA_CHECK(cudaDeviceSynchronize());
    CHECK(check_box(out.download(), 2, m, box.col, box.row, box.box_rows) == 0);
    CHECK_MESSAGE(released_seen.download()[0] == 1, "CTA 0's barrier did not get both CTAs' cluster arrivals");
  }
}

}  // namespace
