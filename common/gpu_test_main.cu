// main() for every GPU test executable: exit 77 (meson's SKIP) when no usable GPU is present,
// so a machine without one reports these tests as skipped, never as passed. Set TUT_REQUIRE_GPU=1
// (docs/getting-started.md) to turn that skip into a failure on a machine that must have a GPU.
//
// Meson runs GPU test executables in parallel: each first takes one of a few GPU slots (test_locks.hpp), and
// a case that needs much memory takes the large-case lock too (claim_memory in gpu_test.cuh).
#define DOCTEST_CONFIG_IMPLEMENT
#include <cuda_runtime.h>
#include "doctest.hpp"

#include <cstdio>
#include <cstdlib>

#include "test_locks.hpp"

int main(int argc, char** argv) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  int major = 0, minor = 0;
  if (e == cudaSuccess && count > 0) {
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
  }
  if (e != cudaSuccess || count == 0 || major * 10 + minor < 75) {
    const char* why = e != cudaSuccess ? cudaGetErrorName(e) : count == 0 ? "no device" : "compute capability < 7.5";
    const char* req = std::getenv("TUT_REQUIRE_GPU");
    if (req && *req && req[0] != '0') {
      std::fprintf(stderr, "FAIL: TUT_REQUIRE_GPU is set but no usable CUDA GPU was found (%s)\n", why);
      return 1;
    }
    std::printf("SKIP: no usable CUDA GPU (%s); GPU tests need one of compute capability 7.5+\n", why);
    return 77;
  }
  // Held until the process exits: at most gpu_test_slots() GPU test processes share the GPU at once.
  const tut::testing::FileLock slot = tut::testing::acquire_gpu_slot();
  doctest::Context context;
  context.setOption("duration", true);  // each case's time in the log: what a slow suite spends it on
  context.applyCommandLine(argc, argv);
  return context.run();
}
