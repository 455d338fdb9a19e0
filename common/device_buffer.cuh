// RAII device memory: freed when it goes out of scope, move-only. Every buffer has guard regions before and
// after its elements and is checked by check_device_buffers() (device_guards.cuh).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.cuh"
#include "device_guards.cuh"
#include "verify.hpp"

namespace tut {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // On the current device, with guards; a 0-element buffer has guards too (data() is not null), so that a
  // kernel writing to an empty output is caught.
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    TUT_CUDA_CHECK(cudaGetDevice(&device_));
    ptr_ = static_cast<T*>(guards::allocate(count_, sizeof(T), element_type_name<T>()));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() {
    if (ptr_) guards::release(ptr_);  // frees on device_; never throws (a destructor must not)
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)), device_(o.device_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      if (ptr_) guards::release(ptr_);
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
  int device() const { return device_; }  // the device it was allocated on

  // A name for the buffer in guard and input messages ("input", "C", "workspace"). Returns *this.
  DeviceBuffer& label(const std::string& name) {
    if (ptr_) guards::set_label(ptr_, name);
    return *this;
  }
  // Marks the buffer as an input that runs must not change: its checksum (computed on the GPU) is recorded
  // now and after each upload(), and check_device_buffers() fails when it differs. Not for in/out buffers
  // (SGEMM's C with beta != 0). Returns *this.
  DeviceBuffer& watch() {
    if (ptr_) guards::watch(ptr_);
    return *this;
  }

  void upload(const T* host, std::size_t count) {
    if (count > count_) throw std::length_error("DeviceBuffer::upload: more elements than the buffer holds");
    if (count) TUT_CUDA_CHECK(cudaMemcpy(ptr_, host, count * sizeof(T), cudaMemcpyHostToDevice));
    if (ptr_) guards::refresh_if_watched(ptr_);
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
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
  int device_ = 0;  // where ptr_ was allocated (guards::release frees it there)
};

}  // namespace tut
