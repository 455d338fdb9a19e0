// What the tensor-core exercises' tests (51-53) share beyond common/gemm_tc's scaffolding: whether this GPU and this
// build can run the kernel at all (BF16 tensor cores need compute capability 8.0 and code compiled for sm_80+), the
// checks of the chapter's kernel with the part under test, and the optional "measure" case at M = N = K = 4096.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "exercise_testing.cuh"
#include "gemm_tc/tc_testing.cuh"

namespace tc_exercise {

using tut::gemm_tc::TcVariant;
using tut::gemm_tc::testing::Shape;

// On a GPU older than compute capability 8.0 (no BF16 tensor-core instructions): a message and exit 77, meson's SKIP.
// Where `kernel` (the kernel under test) was compiled without sm_80+ code, its body compiled out and every result
// would be wrong: the test fails here with a line that says how to configure the build instead.
inline void require_tensor_cores(const std::string& id, const void* kernel) {
  tut::require_supported_gpu();
  int device = 0, major = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (major < 8) {
    std::printf("SKIP: exercise %s needs BF16 tensor-core instructions (compute capability 8.0 or newer); this GPU "
                "has none, so nothing was tested\n", id.c_str());
    std::fflush(stdout);
    std::exit(77);
  }
  cudaFuncAttributes attributes{};
  const cudaError_t e = cudaFuncGetAttributes(&attributes, kernel);
  (void)cudaGetLastError();  // not sticky: clear it before the next launch checks
  REQUIRE_MESSAGE(e == cudaSuccess, "the kernel has no code for this GPU (" << cudaGetErrorString(e)
                                        << "): configure the build for it, e.g. meson setup build -Dgpu_archs=90");
  REQUIRE_MESSAGE(attributes.ptxVersion >= 80,
                  "the kernel was compiled for compute_" << attributes.ptxVersion << ", where its tensor-core body "
                  "compiles out: configure the build with -Dgpu_archs=80 or newer (e.g. 90)");
}

// The variant `name` under test, once require_tensor_cores(id, kernel) has passed: `launch` runs `kernel` (the
// chapter's kernel with the exercise's part); `setup` is its one-time set-up, if it has one.
template <class Kernel>
TcVariant variant_under_test(const std::string& id, const std::string& name, Kernel* kernel,
                             const tut::gemm_tc::TcLaunch& launch, std::function<void(int, int, int)> setup = nullptr) {
  require_tensor_cores(id, reinterpret_cast<const void*>(kernel));
  return {name, "chapter " + id.substr(0, 2) + "'s kernel with the part under test", launch, 80, false, std::move(setup)};
}

// The chapter's kernel with the part under test, as the chapter's own test checks it (common/gemm_tc/tc_testing.cuh):
// against cuBLAS and the FP64 CPU reference at the tensor-core ladder's adversarial shapes (no tile divides them; K
// = 0; K not a multiple of 8 or of the 32-deep slice), five alpha/beta pairs (beta = 0 with C full of NaN), buffers
// offset by one element, an exercise's own shapes, and large problems; C's guards and A and B unchanged each time.
inline void check_kernel(const TcVariant& v, const std::vector<Shape>& more = {}) {
  namespace tc = tut::gemm_tc::testing;
  tc::check_variants_at({v}, tc::adversarial_shapes());
  tc::check_alpha_beta({v});
  tc::check_variants_at({v}, tc::misaligned_shapes(), tut::gemm_tc::kDefaultAlpha, tut::gemm_tc::kDefaultBeta, 1);
  if (!more.empty()) tc::check_variants_at({v}, more);
  tc::check_variants_at({v}, tc::large_shapes());
}

// The "measure" case: cuBLAS, the chapter's stage and the kernel with the part under test at M = N = K = 4096, with
// the NVTX ranges "<id>/<variant>/timed" around the timed runs (exercise_testing::median_ms).
inline void measure(const std::string& id, const TcVariant& chapter, const TcVariant& mine) {
  exercise_testing::print_device();
  const int s = 4096;
  tut::gemm_tc::TcProblem p(s, s, s, tut::gemm_tc::kDefaultAlpha, tut::gemm_tc::kDefaultBeta, 1);
  const double flops = 2.0 * s * static_cast<double>(s) * s, bytes = (2.0 * 2.0 + 2.0 * 4.0) * s * static_cast<double>(s);
  std::printf("C = alpha A B^T + beta C, BF16 A and B, FP32 C, M = N = K = %d\n", s);
  exercise_testing::print_row("cublasGemmEx (CUBLAS_COMPUTE_32F)",
                              exercise_testing::median_ms(id, "cublas", [&](cudaStream_t st) { p.run_cublas(st); }),
                              bytes, flops);
  for (const TcVariant* v : {&chapter, &mine}) {
    if (v->setup) v->setup(s, s, s);
    exercise_testing::print_row(v->name, exercise_testing::median_ms(id, v->name, [&](cudaStream_t st) {
                                  p.run(v->launch, st);
                                }), bytes, flops);
  }
}

}  // namespace tc_exercise
