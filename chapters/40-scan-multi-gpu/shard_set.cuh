// The scaffolding around chapter 40's scan (not the lesson): the shards' buffers on their devices, seeded
// input made on the GPUs, poisoning, and the two checks (an exact one on the GPUs at any size, and the CPU
// reference where the host can hold the array). Used by main.cu and test.cu.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.cuh"
#include "device.cuh"
#include "device_buffer.cuh"
#include "device_random.cuh"
#include "scan_multi_gpu.cuh"
#include "verify.hpp"

namespace scan_multi_gpu {

// Device bytes one shard of `count` elements takes (in, out, workspace, the totals), and what the program
// keeps free on top (NCCL's buffers, CUB's launch, the driver): 5% and 1 GiB.
inline std::size_t shard_device_bytes(std::size_t count, int shards) {
  return 2 * count * sizeof(std::int32_t) + shard_workspace_bytes(count) + 256 +
         static_cast<std::size_t>(shards + 1) * sizeof(std::uint32_t);
}
inline bool fits_in(std::size_t needed, std::size_t free_bytes) {
  return static_cast<double>(needed) + (1ull << 30) <= 0.95 * static_cast<double>(free_bytes);
}

namespace detail {

// counters[0]: the i in [1, count) where out[i] - out[i - 1] != in[i] (wrapping); counters[1]: the smallest.
__global__ void count_scan_step_errors_kernel(const std::uint32_t* __restrict__ in,
                                              const std::uint32_t* __restrict__ out, std::size_t count,
                                              unsigned long long* counters) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0, first = ULLONG_MAX;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x + 1; i < count; i += stride)
    if (out[i] - out[i - 1] != in[i]) {
      ++bad;
      first = first < i ? first : i;
    }
  for (int offset = 16; offset > 0; offset /= 2) {
    bad += __shfl_down_sync(0xffffffffu, bad, offset);
    const unsigned long long other = __shfl_down_sync(0xffffffffu, first, offset);
    first = other < first ? other : first;
  }
  if ((threadIdx.x & 31) == 0 && bad != 0) {
    atomicAdd(&counters[0], bad);
    atomicMin(&counters[1], first);
  }
}

}  // namespace detail

// A stream or an event, made on the current device and destroyed on it (no check: destructors run while
// unwinding). Move-only.
template <class Handle, cudaError_t (*Destroy)(Handle)>
class DeviceHandle {
 public:
  DeviceHandle() = default;
  ~DeviceHandle() { reset(); }
  DeviceHandle(DeviceHandle&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)), device_(o.device_) {}
  DeviceHandle& operator=(DeviceHandle&& o) noexcept {
    if (this != &o) {
      reset();
      handle_ = std::exchange(o.handle_, nullptr);
      device_ = o.device_;
    }
    return *this;
  }
  DeviceHandle(const DeviceHandle&) = delete;
  DeviceHandle& operator=(const DeviceHandle&) = delete;
  Handle get() const { return handle_; }

 protected:
  // `make` creates the handle on the current device (which owns it from then on).
  template <class Make>
  void make(Make make_handle) {
    TUT_CUDA_CHECK(cudaGetDevice(&device_));
    TUT_CUDA_CHECK(make_handle(&handle_));
  }

 private:
  void reset() noexcept {
    if (!handle_) return;
    tut::ScopedDevice owner(device_, std::nothrow);
    Destroy(handle_);
    handle_ = nullptr;
  }
  Handle handle_ = nullptr;
  int device_ = 0;
};

struct OwnedStream : DeviceHandle<cudaStream_t, cudaStreamDestroy> {
  static OwnedStream non_blocking() {
    OwnedStream s;
    s.make([](cudaStream_t* h) { return cudaStreamCreateWithFlags(h, cudaStreamNonBlocking); });
    return s;
  }
};
struct OwnedEvent : DeviceHandle<cudaEvent_t, cudaEventDestroy> {
  static OwnedEvent create(unsigned flags) {
    OwnedEvent e;
    e.make([flags](cudaEvent_t* h) { return cudaEventCreateWithFlags(h, flags); });
    return e;
  }
};

// Pinned host memory (cudaMallocHost), freed with cudaFreeHost.
struct FreePinned {
  void operator()(void* p) const noexcept { cudaFreeHost(p); }  // no check: a destructor must not throw
};
template <class T>
std::unique_ptr<T[], FreePinned> make_pinned(std::size_t count) {
  void* p = nullptr;
  TUT_CUDA_CHECK(cudaMallocHost(&p, count * sizeof(T)));
  return std::unique_ptr<T[], FreePinned>(static_cast<T*>(p));
}

// n elements in shards on `devices` (shard p on devices[p]; a device may repeat: logical shards on one GPU),
// split evenly or with the last shard last_weight percent of each other (see Split). Every buffer is owned
// (DeviceBuffer, OwnedStream, pinned host memory) and freed on its device, also when a constructor throws;
// the Shards are views of them.
class ShardSet {
 public:
  ShardSet(std::size_t n, const std::vector<int>& devices, int last_weight = 100)
      : ShardSet(Split{n, static_cast<int>(devices.size()), last_weight}, 0, devices) {}
  // Shards first .. first + devices.size() - 1 of `split` only (the rank form: one process, one shard of P),
  // shard first + p on devices[p]. Each receives all split.shards totals. The rest is the same code.
  ShardSet(const Split& split, int first, const std::vector<int>& devices)
      : split_(split), first_(first), shards_(devices.size()), owned_(devices.size()) {
    if (first < 0 || first + static_cast<int>(devices.size()) > split.shards)
      throw std::logic_error("ShardSet: shards past the split's");
    const int count = split.shards;  // totals every shard receives
    tut::ScopedDevice caller;  // the caller's device is current again at the end
    for (int p = 0; p < static_cast<int>(devices.size()); ++p) {
      Shard& s = shards_[p];
      Storage& o = owned_[p];
      s.device = devices[p];
      s.index = first + p;
      s.shard_count = count;
      s.count = split_.count(first + p);
      TUT_CUDA_CHECK(cudaSetDevice(s.device));
      o.stream = OwnedStream::non_blocking();
      s.stream = o.stream.get();
      o.in = tut::DeviceBuffer<std::int32_t>(s.count);
      o.out = tut::DeviceBuffer<std::int32_t>(s.count);
      s.in = o.in.data();
      s.out = o.out.data();
      s.workspace_bytes = shard_workspace_bytes(s.count);
      o.workspace = tut::DeviceBuffer<unsigned char>(s.workspace_bytes + 1);  // + 1: never a null buffer
      s.workspace = o.workspace.data();
      // total, then `count` received totals; zeroed once (the last shard never writes its total)
      o.words = tut::DeviceBuffer<std::uint32_t>(count + 1);
      TUT_CUDA_CHECK(cudaMemset(o.words.data(), 0, o.words.bytes()));
      s.total = o.words.data();
      s.totals = s.total + 1;
      o.totals_host = make_pinned<std::uint32_t>(count);
      s.totals_host = o.totals_host.get();
      // Both shard scans' one-time set-up on this shard's GPU (idempotent): shards are made before any timed run.
      setup_shard_scans();
    }
  }
  ShardSet(const ShardSet&) = delete;
  ShardSet& operator=(const ShardSet&) = delete;

  const std::vector<Shard>& shards() const { return shards_; }
  std::size_t n() const { return split_.n; }
  const Split& split() const { return split_; }
  std::size_t begin_of(int p) const { return split_.begin(first_ + p); }  // p: a shard of this set

  // Element i of the whole array is element i of random_integers<int32_t>(n, seed).
  void fill_random(std::uint64_t seed) {
    for (std::size_t p = 0; p < shards_.size(); ++p) {
      Shard& s = shards_[p];
      TUT_CUDA_CHECK(cudaSetDevice(s.device));
      tut::fill_random_integers_on_device(const_cast<std::int32_t*>(s.in), s.count, seed, begin_of(static_cast<int>(p)),
                                          s.stream);
    }
    synchronize();
  }
  // Copies host[begin_of(p) ...] into each shard (tests with chosen values).
  void upload(const std::vector<std::int32_t>& host) {
    for (std::size_t p = 0; p < shards_.size(); ++p) {
      Shard& s = shards_[p];
      TUT_CUDA_CHECK(cudaSetDevice(s.device));
      if (s.count)
        TUT_CUDA_CHECK(cudaMemcpy(const_cast<std::int32_t*>(s.in), host.data() + begin_of(static_cast<int>(p)),
                                  s.count * sizeof(std::int32_t), cudaMemcpyHostToDevice));
    }
  }
  // Outputs, workspaces and received totals poisoned: a scan must not depend on any of them.
  void poison() {
    for (Shard& s : shards_) {
      TUT_CUDA_CHECK(cudaSetDevice(s.device));
      if (s.count) TUT_CUDA_CHECK(cudaMemsetAsync(s.out, tut::kPoisonByte, s.count * sizeof(std::int32_t), s.stream));
      TUT_CUDA_CHECK(cudaMemsetAsync(s.workspace, tut::kPoisonByte, s.workspace_bytes, s.stream));
      TUT_CUDA_CHECK(cudaMemsetAsync(s.totals, tut::kPoisonByte, split_.shards * sizeof(std::uint32_t), s.stream));
    }
    synchronize();
  }
  void synchronize() const {
    for (const Shard& s : shards_) {
      TUT_CUDA_CHECK(cudaSetDevice(s.device));
      TUT_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    }
  }
  // The output of shard p (tests).
  std::vector<std::int32_t> download(int p) const {
    const Shard& s = shards_[p];
    std::vector<std::int32_t> host(s.count);
    TUT_CUDA_CHECK(cudaSetDevice(s.device));
    if (s.count) TUT_CUDA_CHECK(cudaMemcpy(host.data(), s.out, s.count * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
    return host;
  }

  // The exact check on the GPUs, at any size: out is the inclusive scan of in if and only if out[0] = in[0]
  // and out[i] - out[i - 1] = in[i] for every i > 0 (uint32 arithmetic). Each GPU checks the steps inside its
  // shard; the host checks the steps across shard boundaries (the last output of the previous non-empty
  // shard against the first of the next). A different method from the scan's: no sums, no carries.
  tut::CheckResult check_on_devices() const { return check_on_devices(0); }
  // The same for a set that starts past element 0 (the rank form): `previous_last` is the output just before
  // this set's first element (the last output of the nearest earlier non-empty shard; 0 for none).
  tut::CheckResult check_on_devices(std::uint32_t previous_last) const {
    tut::CheckResult r;  // previous_last = out[-1] := 0 for the first shard, so that out[0] = in[0]
    for (std::size_t p = 0; p < shards_.size(); ++p) {
      const Shard& s = shards_[p];
      if (s.count == 0) continue;
      TUT_CUDA_CHECK(cudaSetDevice(s.device));
      tut::DeviceBuffer<unsigned long long> counter_buffer(std::vector<unsigned long long>{0, ULLONG_MAX});
      unsigned long long* counters = counter_buffer.data();
      const std::size_t blocks = (s.count + 255) / 256;
      detail::count_scan_step_errors_kernel<<<static_cast<unsigned>(blocks < 8192 ? blocks : 8192), 256, 0,
                                               s.stream>>>(reinterpret_cast<const std::uint32_t*>(s.in),
                                                           reinterpret_cast<const std::uint32_t*>(s.out), s.count,
                                                           counters);
      TUT_CHECK_LAUNCH();
      TUT_CUDA_CHECK(cudaStreamSynchronize(s.stream));
      const std::vector<unsigned long long> result = counter_buffer.download();
      std::uint32_t first_in = 0, first_out = 0, last_out = 0;
      TUT_CUDA_CHECK(cudaMemcpy(&first_in, s.in, sizeof first_in, cudaMemcpyDeviceToHost));
      TUT_CUDA_CHECK(cudaMemcpy(&first_out, s.out, sizeof first_out, cudaMemcpyDeviceToHost));
      TUT_CUDA_CHECK(cudaMemcpy(&last_out, s.out + s.count - 1, sizeof last_out, cudaMemcpyDeviceToHost));
      const std::size_t begin = begin_of(static_cast<int>(p));
      const bool boundary_bad = first_out - previous_last != first_in;
      const std::size_t bad = static_cast<std::size_t>(result[0]) + (boundary_bad ? 1 : 0);
      if (bad && r.ok) {
        r.ok = false;
        const std::size_t local = boundary_bad ? 0 : static_cast<std::size_t>(result[1]);
        r.first_bad = begin + local;
        std::uint32_t got = 0, before = previous_last, in_value = first_in;
        TUT_CUDA_CHECK(cudaMemcpy(&got, s.out + local, sizeof got, cudaMemcpyDeviceToHost));
        if (local > 0) {
          TUT_CUDA_CHECK(cudaMemcpy(&before, s.out + local - 1, sizeof before, cudaMemcpyDeviceToHost));
          TUT_CUDA_CHECK(cudaMemcpy(&in_value, s.in + local, sizeof in_value, cudaMemcpyDeviceToHost));
        }
        r.expected = tut::value_text(static_cast<std::int32_t>(before + in_value));  // the previous output + in
        r.actual = tut::value_text(static_cast<std::int32_t>(got));
        r.detail = "the output's step differs from the input (checked on the GPUs)";
      }
      r.bad_count += bad;
      previous_last = last_out;
    }
    return r;
  }

  // The last output of this set's last non-empty shard (false: every shard of this set is empty).
  bool last_output(std::uint32_t& value) const {
    for (std::size_t p = shards_.size(); p-- > 0;) {
      const Shard& s = shards_[p];
      if (s.count == 0) continue;
      tut::ScopedDevice on(s.device);
      TUT_CUDA_CHECK(cudaMemcpy(&value, s.out + s.count - 1, sizeof value, cudaMemcpyDeviceToHost));
      return true;
    }
    return false;
  }

  // Against a reference of all n elements on the host, shard by shard (one shard's output on the host at a time).
  tut::CheckResult check_against(const std::vector<std::int32_t>& expected) const {
    tut::CheckResult r;
    if (expected.size() != split_.n) return tut::check_fail("reference of the wrong size");
    for (std::size_t p = 0; p < shards_.size(); ++p) {
      const std::size_t begin = begin_of(static_cast<int>(p));
      const std::vector<std::int32_t> got = download(static_cast<int>(p));
      tut::CheckResult part = tut::compare_exact(expected.data() + begin, got.data(), got.size());
      if (!part.ok && r.ok) {
        r = part;
        r.first_bad += begin;
      } else {
        r.bad_count += part.bad_count;
      }
    }
    return r;
  }

 private:
  // What shard p owns (Shard holds views of it). Declared in this order so that the stream goes last.
  struct Storage {
    OwnedStream stream;
    tut::DeviceBuffer<std::int32_t> in, out;
    tut::DeviceBuffer<unsigned char> workspace;
    tut::DeviceBuffer<std::uint32_t> words;  // total, then the received totals
    std::unique_ptr<std::uint32_t[], FreePinned> totals_host;
  };

  Split split_;
  int first_ = 0;  // this set's first shard among split_.shards
  std::vector<Shard> shards_;
  std::vector<Storage> owned_;
};

}  // namespace scan_multi_gpu
