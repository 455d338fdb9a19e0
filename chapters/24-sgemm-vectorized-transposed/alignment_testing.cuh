// Tests of the float4 fallback shared by chapters 24-27 (their test.cu files include this header).
//
// Their kernels use 128-bit global accesses only when every row start is 16-byte aligned; otherwise the
// launcher picks the same kernel with scalar (or 4-byte cp.async) accesses. The shared GEMM tests reach the
// fallback through k or n % 4 != 0, but their buffers are always aligned. Here A, B and C start one float
// past an aligned allocation, with k and n multiples of 4, so only the pointers force the fallback. The
// fallback changes only the width of the global accesses, not which products are summed in which order, so
// its C must equal the aligned run's C bit for bit (and that one is checked against cuBLAS and the CPU by
// the shared tests).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "gemm/gemm_testing.cuh"
#include "gpu_test.cuh"
#include "verify.hpp"

namespace sgemm_alignment_testing {

// Runs `variant` on the same seeded problem twice: from aligned buffers and from buffers offset by one
// float (4 bytes: every row start misaligned for float4), and CHECKs that both C's are identical.
inline void check_misaligned_matches_aligned(const tut::gemm::GemmVariant& variant, int m, int n, int k,
                                             float alpha, float beta) {
  tut::require_supported_gpu();
  const std::size_t a_count = static_cast<std::size_t>(m) * k, b_count = static_cast<std::size_t>(k) * n,
                    c_count = static_cast<std::size_t>(m) * n;
  const std::uint64_t seed = tut::testing::test_seed() + 2417;
  const std::vector<float> a = tut::random_floats(a_count, seed);
  const std::vector<float> b = tut::random_floats(b_count, seed + 1);
  const std::vector<float> c0 = tut::random_floats(c_count, seed + 2);
  // One float more than needed, so the offset copies fit.
  tut::DeviceBuffer<float> a_d(a_count + 1), b_d(b_count + 1), c_d(c_count + 1);

  auto run = [&](std::size_t offset) {
    TUT_CUDA_CHECK(cudaMemcpy(a_d.data() + offset, a.data(), a_count * sizeof(float), cudaMemcpyHostToDevice));
    TUT_CUDA_CHECK(cudaMemcpy(b_d.data() + offset, b.data(), b_count * sizeof(float), cudaMemcpyHostToDevice));
    TUT_CUDA_CHECK(cudaMemcpy(c_d.data() + offset, c0.data(), c_count * sizeof(float), cudaMemcpyHostToDevice));
    variant.launch(m, n, k, alpha, a_d.data() + offset, b_d.data() + offset, beta, c_d.data() + offset, 0);
    TUT_CHECK_LAUNCH();
    TUT_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> c(c_count);
    TUT_CUDA_CHECK(cudaMemcpy(c.data(), c_d.data() + offset, c_count * sizeof(float), cudaMemcpyDeviceToHost));
    return c;
  };
  const std::vector<float> aligned = run(0);
  const std::vector<float> misaligned = run(1);

  std::size_t differ = 0, first = c_count;
  for (std::size_t i = 0; i < c_count; ++i)
    if (std::memcmp(&aligned[i], &misaligned[i], sizeof(float)) != 0) {
      if (first == c_count) first = i;
      ++differ;
    }
  INFO(variant.name << " at M = " << m << ", N = " << n << ", K = " << k << ", alpha = " << alpha
                    << ", beta = " << beta << ": misaligned run (pointers + 4 bytes) against the aligned run");
  CHECK_MESSAGE(differ == 0, differ << " of " << c_count << " elements differ, first at row " << first / n
                                    << ", column " << first % n);
}

// The shapes: aligned k and n (so the aligned run does take the float4 path), interior-only and ragged m.
inline void check_all_misaligned(const std::vector<tut::gemm::GemmVariant>& variants) {
  const tut::gemm::testing::Shape shapes[] = {{128, 128, 64}, {129, 132, 68}, {37, 260, 20}};
  for (const auto& v : variants)
    for (const auto& s : shapes) {
      check_misaligned_matches_aligned(v, s.m, s.n, s.k, tut::gemm::kDefaultAlpha, tut::gemm::kDefaultBeta);
      check_misaligned_matches_aligned(v, s.m, s.n, s.k, 1.0f, 0.0f);
    }
}

}  // namespace sgemm_alignment_testing
