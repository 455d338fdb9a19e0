// The GPU this program runs on: presence, properties, the banner, and memory headroom.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <new>

#include "cuda_check.cuh"
#include "report.hpp"

namespace tut {

// Throws NoUsableGpu with one readable sentence when there is no GPU, the driver is too old for
// this runtime, or the GPU is older than compute capability 7.5.
void require_supported_gpu(int device = 0);

// Properties read with cudaDeviceGetAttribute (CUDA 13 removed cudaDeviceProp::clockRate and
// memoryClockRate).
DeviceInfo query_device(int device = 0);

// main() of a program outside the chapter runner (a measurement such as 53-mma-sync-peak): runs `body` and turns
// an exception into one line on stderr and an exit status: no usable GPU, 77 in test mode (meson's SKIP) and 2
// otherwise; any other error, 1.
int run_standalone(const char* program, bool test_mode, const std::function<int()>& body);

// Device memory free right now, in bytes.
std::size_t free_device_bytes();

// Throws UsageError when `needed` bytes will not fit in free device memory (with 5% headroom).
void require_device_memory(std::size_t needed, const std::string& what);

// Makes a device current for a scope and gives the caller's current device back at its end, also while
// unwinding: multi-GPU code that visits every device, and frees memory on the device that owns it.
// ScopedDevice() only keeps the current device; ScopedDevice(d) switches to d. The nothrow form, for
// destructors, does not check (a destructor must not throw).
class ScopedDevice {
 public:
  ScopedDevice() { TUT_CUDA_CHECK(cudaGetDevice(&previous_)); }
  explicit ScopedDevice(int device) : ScopedDevice() {
    if (device != previous_) TUT_CUDA_CHECK(cudaSetDevice(device));
  }
  ScopedDevice(int device, const std::nothrow_t&) noexcept {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = device;
    if (device != previous_) cudaSetDevice(device);
  }
  ~ScopedDevice() {
    int current = previous_;
    if (cudaGetDevice(&current) == cudaSuccess && current != previous_) cudaSetDevice(previous_);  // no check
  }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace tut
