#include <cuda_runtime.h>

#include <iostream>
#include <string>

#include "cli.hpp"
#include "cuda_check.cuh"
#include "device.cuh"
#include "stats.hpp"

namespace tut {

int run_standalone(const char* program, bool test_mode, const std::function<int()>& body) {
  try {
    return body();
  } catch (const NoUsableGpu& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return test_mode ? 77 : 2;
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 1;
  }
}

void require_supported_gpu(int device) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  int driver = 0;
  cudaDriverGetVersion(&driver);  // 0 when no NVIDIA driver is installed at all
  if (e != cudaSuccess && driver == 0) {
    (void)cudaGetLastError();
    throw NoUsableGpu("no CUDA GPU found: no NVIDIA driver is installed on this machine; this program "
                      "needs an NVIDIA GPU of compute capability 7.5 or newer");
  }
  if (e == cudaErrorInsufficientDriver) {
    (void)cudaGetLastError();
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    throw NoUsableGpu("the NVIDIA driver is too old for CUDA runtime " + std::to_string(rt / 1000) + "." +
                      std::to_string((rt % 1000) / 10) + "; update the driver");
  }
  if (e != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    throw NoUsableGpu(std::string("no CUDA GPU found (") + cudaGetErrorName(e) +
                      "); this program needs an NVIDIA GPU of compute capability 7.5 or newer");
  }
  if (device >= count)
    throw NoUsableGpu("GPU " + std::to_string(device) + " requested but only " + std::to_string(count) +
                      " present");
  int major = 0, minor = 0;
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major * 10 + minor < 75)
    throw NoUsableGpu("unsupported GPU: compute capability " + std::to_string(major) + "." +
                      std::to_string(minor) + " is older than 7.5 (Turing), the oldest CUDA 13 supports");
  TUT_CUDA_CHECK(cudaSetDevice(device));
}

DeviceInfo query_device(int device) {
  DeviceInfo d;
  d.device = device;
  cudaDeviceProp prop{};
  TUT_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  d.name = prop.name;
  d.global_mem_bytes = static_cast<long long>(prop.totalGlobalMem);
  auto attr = [&](cudaDeviceAttr a) {
    int v = 0;
    TUT_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, device));
    return v;
  };
  d.cc_major = attr(cudaDevAttrComputeCapabilityMajor);
  d.cc_minor = attr(cudaDevAttrComputeCapabilityMinor);
  d.sm_count = attr(cudaDevAttrMultiProcessorCount);
  d.l2_bytes = attr(cudaDevAttrL2CacheSize);
  d.sm_clock_khz = attr(cudaDevAttrClockRate);
  d.mem_clock_khz = attr(cudaDevAttrMemoryClockRate);
  d.bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth);
  TUT_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  TUT_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  d.peak_dram_gbps = peak_dram_gbps(d.mem_clock_khz, d.bus_width_bits);
  d.peak_fp32_gflops = peak_fp32_gflops_from(d.sm_count, fp32_lanes_per_sm_by_cc(d.cc_major, d.cc_minor),
                                             d.sm_clock_khz);
  return d;
}

std::size_t free_device_bytes() {
  std::size_t free = 0, total = 0;
  TUT_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

void require_device_memory(std::size_t needed, const std::string& what) {
  std::size_t free = free_device_bytes();
  if (static_cast<double>(needed) > 0.95 * static_cast<double>(free)) {
    auto gib = [](double b) { return std::to_string(b / (1024.0 * 1024.0 * 1024.0)).substr(0, 6); };
    throw UsageError(what + " needs " + gib(static_cast<double>(needed)) + " GiB of device memory but only " +
                     gib(static_cast<double>(free)) + " GiB are free; choose a smaller --size");
  }
}

}  // namespace tut
