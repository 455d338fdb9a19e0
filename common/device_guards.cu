#include "device_guards.cuh"

#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "cuda_check.cuh"
#include "device.cuh"

namespace tut {
namespace {

// One live DeviceBuffer allocation, keyed in the registry by its payload address (data()).
struct Entry {
  unsigned char* base = nullptr;  // the allocation: front guard, payload, back guard
  std::size_t count = 0;
  std::size_t element_bytes = 0;
  const char* element_type = nullptr;
  int device = 0;
  std::string label;
  bool watched = false;
  std::uint64_t checksum = 0;

  std::size_t payload_bytes() const { return count * element_bytes; }
  unsigned char* back_guard() const { return base + kGuardFrontBytes + payload_bytes(); }
};

// Never destroyed: DeviceBuffers with static storage may outlive any static registry.
std::mutex& registry_mutex() {
  static auto* m = new std::mutex;
  return *m;
}
std::map<const void*, Entry>& registry() {
  static auto* r = new std::map<const void*, Entry>;
  return *r;
}

// For each index a bijection of the word (xor, xorshift and an odd multiply are each invertible), different
// per index: changing any one word always changes the sum, and moving a word to another index almost surely.
__device__ std::uint64_t mix_word(std::uint64_t word, std::uint64_t index) {
  std::uint64_t x = word ^ (index * 0x9E3779B97F4A7C15ull);
  x ^= x >> 31;
  x *= 0xD6E8FEB86659FD93ull;
  return x ^ (x >> 32);
}

// sum += mix_word over the payload's 8-byte words (data() is 256-byte aligned); a ragged tail of 1..7 bytes is
// one more word, zero-extended. Grid-stride, one atomic per warp.
__global__ void checksum_kernel(const unsigned char* data, std::size_t bytes, unsigned long long* sum) {
  const std::size_t words = bytes / 8;
  const auto* word = reinterpret_cast<const std::uint64_t*>(data);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::uint64_t s = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride)
    s += mix_word(word[i], i);
  if (blockIdx.x == 0 && threadIdx.x == 0 && bytes % 8 != 0) {
    std::uint64_t tail = 0;
    for (std::size_t j = words * 8; j < bytes; ++j) tail |= std::uint64_t{data[j]} << (8 * (j - words * 8));
    s += mix_word(tail, words);
  }
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(sum, static_cast<unsigned long long>(s));
}

// The checksum of e's payload, computed on its device (call with that device current). The 8-byte counter is
// allocated here with cudaMalloc, not as a DeviceBuffer: the registry is locked while this runs.
std::uint64_t payload_checksum(const Entry& e) {
  constexpr int kThreads = 256;
  static_assert(kThreads % 32 == 0, "whole warps: the reduction shuffles across all 32 lanes");
  unsigned long long* sum = nullptr;
  TUT_CUDA_CHECK(cudaMalloc(&sum, sizeof *sum));
  unsigned long long result = 0;
  try {
    TUT_CUDA_CHECK(cudaMemset(sum, 0, sizeof *sum));
    const std::size_t bytes = e.payload_bytes();
    const std::size_t blocks = (bytes / 8 + kThreads - 1) / kThreads;
    const unsigned grid = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(blocks, 1024)));
    checksum_kernel<<<grid, kThreads, 0, 0>>>(e.base + kGuardFrontBytes, bytes, sum);
    TUT_CHECK_LAUNCH();
    TUT_CUDA_CHECK(cudaMemcpy(&result, sum, sizeof result, cudaMemcpyDeviceToHost));
  } catch (...) {
    (void)cudaFree(sum);
    throw;
  }
  TUT_CUDA_CHECK(cudaFree(sum));
  return result;
}

// "1025-element int32 buffer", "7-element buffer of 12-byte elements".
std::string kind_of(const Entry& e) {
  std::ostringstream d;
  d << e.count << "-element ";
  if (e.element_type) d << e.element_type << " buffer";
  else d << "buffer of " << e.element_bytes << "-byte elements";
  return d.str();
}

// "the 1025-element int32 buffer 'output'", "an unlabeled 1025-element int32 buffer".
std::string describe(const Entry& e) {
  return e.label.empty() ? "an unlabeled " + kind_of(e) : "the " + kind_of(e) + " '" + e.label + "'";
}

// The bytes of a guard that no longer hold kGuardByte: how many, and the first and last (offsets in the guard).
struct Changed {
  std::size_t count = 0, first = 0, last = 0;
};

Changed changed_bytes(const unsigned char* d_guard, std::size_t bytes) {
  std::vector<unsigned char> host(bytes);
  TUT_CUDA_CHECK(cudaMemcpy(host.data(), d_guard, bytes, cudaMemcpyDeviceToHost));
  Changed c;
  for (std::size_t i = 0; i < bytes; ++i)
    if (host[i] != kGuardByte) {
      if (c.count == 0) c.first = i;
      c.last = i;
      ++c.count;
    }
  return c;
}

// What a kernel wrote into e's guards, one line per guard; rearm: refill a damaged guard.
std::vector<std::string> guard_damage(const Entry& e, bool rearm) {
  std::vector<std::string> found;
  const Changed front = changed_bytes(e.base, kGuardFrontBytes);
  if (front.count) {
    std::ostringstream m;
    m << "wrote " << front.count << (front.count == 1 ? " byte" : " bytes") << " before the start of " << describe(e)
      << " (bytes " << kGuardFrontBytes - front.last << " .. " << kGuardFrontBytes - front.first
      << " before its start changed)";
    found.push_back(m.str());
    if (rearm) TUT_CUDA_CHECK(cudaMemset(e.base, kGuardByte, kGuardFrontBytes));
  }
  const std::size_t back_bytes = guard_back_bytes(e.payload_bytes());
  const Changed back = changed_bytes(e.back_guard(), back_bytes);
  if (back.count) {
    std::ostringstream m;
    m << "wrote " << back.count << (back.count == 1 ? " byte" : " bytes") << " past the end of " << describe(e)
      << " (bytes " << back.first << " .. " << back.last << " after its end changed)";
    found.push_back(m.str());
    if (rearm) TUT_CUDA_CHECK(cudaMemset(e.back_guard(), kGuardByte, back_bytes));
  }
  return found;
}

// Damage found by release() (buffers freed between checks), until take_damage_found_at_release().
std::vector<std::string>& damage_at_release() {
  static auto* d = new std::vector<std::string>;
  return *d;
}

}  // namespace

namespace guards {

void* allocate(std::size_t count, std::size_t element_bytes, const char* element_type) {
  constexpr std::size_t kGuardBytes = kGuardFrontBytes + kGuardMinBackBytes + 256;
  if (element_bytes != 0 && count > (SIZE_MAX - kGuardBytes) / element_bytes)
    throw std::length_error("DeviceBuffer: " + std::to_string(count) + " elements do not fit in size_t bytes");
  Entry e;
  e.count = count;
  e.element_bytes = element_bytes;
  e.element_type = element_type;
  TUT_CUDA_CHECK(cudaGetDevice(&e.device));
  const std::size_t payload = e.payload_bytes(), back = guard_back_bytes(payload);
  void* base = nullptr;
  TUT_CUDA_CHECK(cudaMalloc(&base, kGuardFrontBytes + payload + back));
  e.base = static_cast<unsigned char*>(base);
  try {
    TUT_CUDA_CHECK(cudaMemset(e.base, kGuardByte, kGuardFrontBytes));
    TUT_CUDA_CHECK(cudaMemset(e.back_guard(), kGuardByte, back));
    const std::lock_guard<std::mutex> lock(registry_mutex());
    registry().emplace(e.base + kGuardFrontBytes, std::move(e));
  } catch (...) {
    (void)cudaFree(base);
    throw;
  }
  return static_cast<unsigned char*>(base) + kGuardFrontBytes;
}

void release(void* data) noexcept {
  Entry e;
  {
    const std::lock_guard<std::mutex> lock(registry_mutex());
    const auto it = registry().find(data);
    if (it == registry().end()) return;
    e = std::move(it->second);
    registry().erase(it);
  }
  const ScopedDevice on(e.device, std::nothrow);  // checked and freed on its own device
  // A buffer freed without a check after its last run (a test that compares outputs itself) still has its
  // guards read here: cudaFree synchronises anyway, and 512 bytes back cost little. The damage is kept for
  // take_damage_found_at_release(). After a kernel fault every call fails; then there is nothing to report.
  try {
    const std::vector<std::string> found = guard_damage(e, false);
    if (!found.empty()) {
      const std::lock_guard<std::mutex> lock(registry_mutex());
      damage_at_release().insert(damage_at_release().end(), found.begin(), found.end());
    }
  } catch (...) {
  }
  (void)cudaFree(e.base);  // no check: called from destructors, which must not throw
}

std::vector<std::string> take_damage_found_at_release() {
  const std::lock_guard<std::mutex> lock(registry_mutex());
  return std::exchange(damage_at_release(), {});
}

void set_label(const void* data, const std::string& label) {
  const std::lock_guard<std::mutex> lock(registry_mutex());
  const auto it = registry().find(data);
  if (it != registry().end()) it->second.label = label;
}

void watch(const void* data) {
  const std::lock_guard<std::mutex> lock(registry_mutex());
  const auto it = registry().find(data);
  if (it == registry().end()) return;
  const ScopedDevice on(it->second.device);
  it->second.checksum = payload_checksum(it->second);
  it->second.watched = true;
}

void refresh_if_watched(const void* data) {
  const std::lock_guard<std::mutex> lock(registry_mutex());
  const auto it = registry().find(data);
  if (it == registry().end() || !it->second.watched) return;
  const ScopedDevice on(it->second.device);
  it->second.checksum = payload_checksum(it->second);
}

}  // namespace guards

std::vector<std::string> check_device_buffers() {
  const std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<std::string> problems;
  std::set<int> synchronised;
  for (auto& [data, e] : registry()) {
    const ScopedDevice on(e.device, std::nothrow);  // checked and freed on its own device
    // Kernels still running could write a guard after it was read.
    if (synchronised.insert(e.device).second) TUT_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<std::string> found = guard_damage(e, true);
    problems.insert(problems.end(), found.begin(), found.end());
    if (e.watched) {
      const std::uint64_t now = payload_checksum(e);
      if (now != e.checksum) {
        problems.push_back("the input" + (e.label.empty() ? std::string() : " '" + e.label + "'") + " (a " +
                           kind_of(e) + ") changed during the run (its checksum differs)");
        e.checksum = now;
      }
    }
  }
  return problems;
}

CheckResult with_buffer_checks(CheckResult c) {
  const std::vector<std::string> problems = check_device_buffers();
  if (problems.empty()) return c;
  c.ok = false;
  for (const std::string& p : problems) c.detail += (c.detail.empty() ? "" : "; ") + p;
  return c;
}

std::size_t live_device_buffers() {
  const std::lock_guard<std::mutex> lock(registry_mutex());
  return registry().size();
}

}  // namespace tut
