// Which Hopper features the code being compiled may use, and whether the running program has them.
//
//   TUT_SM90A_DEVICE_CODE   1 while compiling device code for sm_90a (wgmma, setmaxnreg), else 0
//   TUT_SM90_DEVICE_CODE    1 while compiling device code for sm_90 or newer (TMA, mbarrier tx counts, clusters)
//   sm90a_unavailable_reason()   host: nullptr when this program's sm_90a kernels run on device 0, else why not
//
// wgmma and setmaxnreg exist only in the architecture-specific target sm_90a (PTX ISA, "Architecture-specific
// features"): code compiled for sm_90 or for compute_90 PTX has no such instructions, so every kernel that uses
// them compiles its body only under TUT_SM90A_DEVICE_CODE, and the host asks a probe kernel, compiled the same
// way, whether the image the driver picked is an sm_90a one.
#pragma once

#include <cuda_runtime.h>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TUT_SM90A_DEVICE_CODE 1
#else
#define TUT_SM90A_DEVICE_CODE 0
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TUT_SM90_DEVICE_CODE 1
#else
#define TUT_SM90_DEVICE_CODE 0
#endif

namespace tut::hopper {

// Writes 1 where it was compiled for sm_90a, 0 elsewhere (sm_75, sm_90, PTX compiled at load time).
template <int kUnused = 0>
__global__ void sm90a_probe_kernel(int* compiled_for_sm90a) {
  *compiled_for_sm90a = TUT_SM90A_DEVICE_CODE;
}

// Host: nullptr when sm_90a kernels of this executable run on the current device; otherwise one short reason,
// for a program's one-line exit (status 2) or a test's skip. Leaves no CUDA error behind.
// The answer is worked out once per process (the first call launches the probe), so a later call, even after a
// kernel has failed and left the context unusable, repeats it rather than mistaking that failure for a skip.
inline const char* sm90a_unavailable_reason_uncached();
inline const char* sm90a_unavailable_reason() {
  static const char* const reason = sm90a_unavailable_reason_uncached();
  return reason;
}
inline const char* sm90a_unavailable_reason_uncached() {
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return "no usable CUDA device";
  }
  // sm_90a code runs on compute capability 9.0 only (not on 10.x or 12.x, which have no wgmma).
  if (major != 9 || minor != 0) return "needs an sm_90 GPU (H100/H200): wgmma and setmaxnreg exist on sm_90a only";
  int* flag = nullptr;
  if (cudaMalloc(&flag, sizeof(int)) != cudaSuccess) {
    (void)cudaGetLastError();
    return "cudaMalloc failed";
  }
  int host_flag = 0;
  sm90a_probe_kernel<<<1, 1, 0, 0>>>(flag);
  const bool ran = cudaGetLastError() == cudaSuccess && cudaMemcpy(&host_flag, flag, sizeof(int),
                                                                    cudaMemcpyDeviceToHost) == cudaSuccess;
  (void)cudaFree(flag);
  (void)cudaGetLastError();
  if (!ran) return "this build has no kernel image for this GPU";
  if (host_flag != 1)
    return "this build has no sm_90a code (configure with -Dgpu_archs=90, which adds "
           "-gencode=arch=compute_90a,code=sm_90a to the Hopper targets)";
  return nullptr;
}

}  // namespace tut::hopper
