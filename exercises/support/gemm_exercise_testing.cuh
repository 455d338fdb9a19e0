// What the SGEMM exercises' tests share beyond common/gemm's scaffolding: the optional "measure" case, the
// launcher under test against cuBLAS at M = N = K = 4096 (run it with --test-case=measure --no-skip).
#pragma once

#include <cstdio>
#include <string>

#include "exercise_testing.cuh"
#include "gemm/gemm_testing.cuh"

namespace exercise_testing {

inline void measure_sgemm_against_cublas(const std::string& id, const std::string& name,
                                         const tut::gemm::GemmLaunch& launch) {
  print_device();
  const int s = 4096;
  tut::gemm::GemmProblem p(s, s, s, tut::gemm::kDefaultAlpha, tut::gemm::kDefaultBeta, 1);
  const double flops = 2.0 * s * static_cast<double>(s) * s, bytes = 4.0 * 4.0 * s * static_cast<double>(s);
  std::printf("C = alpha A B + beta C, M = N = K = %d\n", s);
  print_row("cublasSgemm (FP32, no TF32)", median_ms(id, "cublas", [&](cudaStream_t st) { p.run_cublas(st); }),
            bytes, flops);
  print_row(name, median_ms(id, name, [&](cudaStream_t st) { p.run(launch, st); }), bytes, flops);
}

}  // namespace exercise_testing
