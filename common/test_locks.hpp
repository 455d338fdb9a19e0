// How GPU test processes share one GPU and one host: meson runs them in parallel, and two file locks keep them
// from competing for memory.
//
// - A GPU slot: every GPU test process holds one of gpu_test_slots() slots for its whole run (the doctest main
//   takes it), so at most that many CUDA contexts and small cases share the GPU at once.
// - The large-case lock: a case that needs more than kLargeCaseBytes of device or host memory holds it while it
//   runs (tut::testing::claim_memory takes it), so large cases run one at a time, each with the memory it checked.
//
// The locks are flock(2) locks on files in lock_directory(), which is per user and machine-wide (the GPU is
// shared by every build directory, so two checkouts tested at once coordinate too). The kernel drops a lock when
// its process exits, killed or not, so a crashed test never leaves the others waiting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tut::testing {

// A case above this much device or host memory is "large": it runs alone among large cases, and the memory it
// checks for leaves room for the small cases of the other slots (large_case_margin_bytes).
constexpr std::size_t kLargeCaseBytes = std::size_t{1} << 30;

// An exclusive flock on one file, released by the destructor (or when the process ends).
class FileLock {
 public:
  FileLock() = default;
  // Opens (creating) `path` and locks it; blocking waits for the lock, otherwise returns an unheld FileLock
  // when another process has it.
  static FileLock acquire(const std::string& path, bool blocking);
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// Where the lock files live: TUT_TEST_LOCK_DIR if set, else ${TMPDIR:-/tmp}/cuda-tutorial-test-locks-<uid>.
// Empty when TUT_TEST_LOCKS=0 (no coordination: for running one test by hand) or when the directory cannot be
// made (then the tests run uncoordinated, and say so once on stderr).
std::string lock_directory();

// How many GPU test processes run at once: TUT_GPU_TEST_SLOTS if set (at least 1), else 4.
int gpu_test_slots();

// Takes a free GPU slot, waiting for one if all are taken. Unheld when lock_directory() is empty.
FileLock acquire_gpu_slot();

// The GPUs the test processes spread over, where several are visible: TUT_SPREAD_GPUS, a comma-separated list
// of CUDA_VISIBLE_DEVICES values (tools/check sets it from nvidia-smi). Empty when it is unset or names fewer than
// two, and for a test that needs every GPU itself (TUT_TEST_ALL_GPUS=1: chapter 40's).
std::vector<std::string> spread_gpus();

// With two or more spread_gpus(): takes a free slot of one of them (slot 0 of every GPU first, then slot 1, ...:
// the processes fill the GPUs evenly), waiting for one if all are taken, and makes that GPU the only one this
// process sees (CUDA_VISIBLE_DEVICES; call it before the first CUDA call, which reads it). Each GPU then has
// gpu_test_slots() slots and a large-case lock of its own. Otherwise the same as acquire_gpu_slot().
FileLock acquire_gpu_slot_on_some_gpu();

// Takes the large-case lock (the chosen GPU's, where the tests spread), waiting while another process holds it.
// Unheld when lock_directory() is empty.
FileLock acquire_large_case_lock();

// What a large case must leave free for the small cases running beside it, per other slot: on the device a
// small case and a CUDA context, on the host two small cases' worth.
std::size_t large_case_margin_bytes(bool host);

// A case that needs more than kLargeCaseBytes of device or host memory: it holds the large-case lock and leaves
// large_case_margin_bytes() free for the other slots.
bool is_large_case(std::size_t device_bytes, std::size_t host_bytes);

// Why a case that needs `device_bytes` of device and `host_bytes` of host memory does not fit in what is free
// now, as one line "<what> skipped: needs 16.0 GiB of device memory, 7.6 GiB free on this GPU"; empty when it
// fits in 90% of each, less large_case_margin_bytes() for a large case. Where the case alone would fit and the
// margin does not, the line says so: "needs 2.0 GiB of device memory and 4.5 GiB kept for the 3 other GPU
// tests that may run beside it, 5.1 GiB free on this GPU" (TUT_GPU_TEST_SLOTS=1 leaves no margin).
// host_free = UINT64_MAX: unknown, not checked. (claim_memory in gpu_test.cuh asks this with the GPU's and the
// kernel's figures.)
std::string memory_shortfall(const std::string& what, std::size_t device_bytes, std::size_t host_bytes,
                             std::size_t device_free, std::uint64_t host_free);

}  // namespace tut::testing
