// main() for every GPU test executable: exit 77 (meson's SKIP) when no usable GPU is present,
// so a machine without one reports these tests as skipped, never as passed. Set TUT_REQUIRE_GPU=1
// (as tools/gpu-check does on the GPU machine) to turn that skip into a failure.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cuda_runtime.h>
#include "doctest.hpp"

#include <cstdio>
#include <cstdlib>

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
  doctest::Context context(argc, argv);
  return context.run();
}
