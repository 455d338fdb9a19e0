// RAII device memory: freed when it goes out of scope, on the device it was allocated on; move-only.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "cuda_check.cuh"
#include "device.cuh"
#include "verify.hpp"

namespace tut {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ == 0) return;
    TUT_CUDA_CHECK(cudaGetDevice(&device_));  // the current device owns the memory
    TUT_CUDA_CHECK(cudaMalloc(&ptr_, count_ * sizeof(T)));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)), device_(o.device_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
      device_ = o.device_;
    }
    return *this;
  }

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void upload(const T* host, std::size_t count) {
    if (count > count_) throw std::length_error("DeviceBuffer::upload: more elements than the buffer holds");
    if (count) TUT_CUDA_CHECK(cudaMemcpy(ptr_, host, count * sizeof(T), cudaMemcpyHostToDevice));
  }
  void upload(const std::vector<T>& host) { upload(host.data(), host.size()); }

  void download(T* host, std::size_t count) const {
    if (count > count_) throw std::length_error("DeviceBuffer::download: more elements than the buffer holds");
    if (count) TUT_CUDA_CHECK(cudaMemcpy(host, ptr_, count * sizeof(T), cudaMemcpyDeviceToHost));
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    download(host.data(), count_);
    return host;
  }

  // Fills every byte with kPoisonByte, so an element a kernel fails to write is caught by the check.
  void poison(cudaStream_t stream = 0) {
    if (count_) TUT_CUDA_CHECK(cudaMemsetAsync(ptr_, kPoisonByte, bytes(), stream));
  }
  void zero(cudaStream_t stream = 0) {
    if (count_) TUT_CUDA_CHECK(cudaMemsetAsync(ptr_, 0, bytes(), stream));
  }

 private:
  // Frees on the owning device, whichever is current (cudaFree of another device's memory fails).
  void release() noexcept {
    if (!ptr_) return;
    ScopedDevice owner(device_, std::nothrow);
    cudaFree(ptr_);  // no check: a destructor must not throw, and this cannot be retried
    ptr_ = nullptr;
  }

  T* ptr_ = nullptr;
  std::size_t count_ = 0;
  int device_ = 0;  // where ptr_ was allocated
};

}  // namespace tut
