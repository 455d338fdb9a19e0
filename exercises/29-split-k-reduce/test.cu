// Test of exercise 29: the split-K reduction against a CPU sum in the same order, compared bit for bit
// (the order is part of the contract: it is what makes split-K deterministic). Seeded random slices, counts
// around warp, block and vector boundaries, 1 to 9 splits, beta = 0 with C full of NaN, beta != 0 with the
// initial C, and C one float past an aligned address. C is poisoned (NaN around and, with beta = 0, in it)
// before every run.
// The same source tests the exercise and the solution.
#include <split_k_sum.cuh>

#include "exercise_testing.cuh"

#include <cmath>
#include <cstring>
#include <vector>

namespace {

// What the kernel must produce: the same float operations in the same order.
std::vector<float> cpu_split_sum(const std::vector<float>& ws, std::size_t count, int splits, float alpha, float beta,
                                 const std::vector<float>& c0) {
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    float sum = 0.0f;
    for (int s = 0; s < splits; ++s) sum += ws[static_cast<std::size_t>(s) * count + i];
    out[i] = beta == 0.0f ? alpha * sum : std::fmaf(beta, c0[i], alpha * sum);
  }
  return out;
}

void check_case(std::size_t count, int splits, float alpha, float beta, int offset) {
  INFO("count = " << count << ", splits = " << splits << ", alpha = " << alpha << ", beta = " << beta
                  << ", C offset by " << offset << " float(s)");
  const std::uint64_t seed = exercise_testing::test_seed() + count * 31 + static_cast<std::uint64_t>(splits);
  const std::vector<float> ws = tut::random_floats(count * static_cast<std::size_t>(splits), seed);
  const std::vector<float> c0 = tut::random_floats(count, seed + 1);
  tut::DeviceBuffer<float> ws_d(ws.size() + 1), c_d(count + offset + 1);
  if (!ws.empty()) ws_d.upload(ws.data(), ws.size());
  std::vector<float> c_init(count + offset + 1, std::nanf(""));
  if (beta != 0.0f) std::memcpy(c_init.data() + offset, c0.data(), count * sizeof(float));
  c_d.upload(c_init);  // beta == 0: NaN everywhere, which a kernel that reads C would carry into its output
  split_k_sum::split_k_sum(count, splits, ws_d.data(), alpha, beta, c_d.data() + offset, 0);
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> got(count + offset + 1);
  c_d.download(got.data(), got.size());
  const std::vector<float> want = cpu_split_sum(ws, count, splits, alpha, beta, c0);
  for (std::size_t i = 0; i < count; ++i) {
    const float g = got[offset + i];
    if (std::memcmp(&g, &want[i], sizeof(float)) != 0) {
      FAIL_CHECK("C[" << i << "] = " << g << ", expected " << want[i] << " (the sum over splits 0.."
                      << splits - 1 << " in order, times alpha, plus beta * C)");
      return;
    }
  }
  // Nothing written past the end.
  CHECK(std::isnan(got[offset + count]));
}

}  // namespace

TEST_CASE("29: the split-K reduction gives the CPU's bits, in split order, at every count and split") {
  tut::require_supported_gpu();
  const std::size_t counts[] = {0, 1, 31, 32, 33, 255, 1023, 1024, 1025, 4097, 300 * 257};
  for (std::size_t count : counts)
    for (int splits : {1, 2, 3, 9}) {
      check_case(count, splits, 1.5f, -0.75f, 0);
      check_case(count, splits, -2.0f, 0.0f, 0);  // beta = 0: C (NaN) never read
    }
  check_case(1000, 4, 0.25f, 1.0f, 1);  // C only 4-byte aligned
  check_case(1u << 20, 5, 1.0f, 0.5f, 0);  // more elements than threads of the capped grid
}
