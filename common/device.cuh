// The GPU this program runs on: presence, properties, the banner, and memory headroom.
#pragma once

#include <cstddef>

#include "report.hpp"

namespace tut {

// Throws NoUsableGpu with one readable sentence when there is no GPU, the driver is too old for
// this runtime, or the GPU is older than compute capability 7.5.
void require_supported_gpu(int device = 0);

// Properties read with cudaDeviceGetAttribute (CUDA 13 removed cudaDeviceProp::clockRate and
// memoryClockRate).
DeviceInfo query_device(int device = 0);

// Device memory free right now, in bytes.
std::size_t free_device_bytes();

// Throws UsageError when `needed` bytes will not fit in free device memory (with 5% headroom).
void require_device_memory(std::size_t needed, const std::string& what);

}  // namespace tut
