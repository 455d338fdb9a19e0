// Support for the GPU test suites (doctest). Link with tut_gpu_test_main, which skips the whole
// executable with exit code 77 (meson's SKIP) on a machine without a usable GPU.
#pragma once

#include "doctest.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "runner.cuh"
#include "test_locks.hpp"

namespace tut::testing {

// True under the meson test setups that wrap the tests in compute-sanitizer (TUT_SANITIZER is set):
// the tools run kernels tens of times slower, so tests cap their sizes there and say so.
bool under_sanitizer();

// Largest element count a test should use in this run (all under plain runs; 2^21 under a sanitizer).
std::uint64_t max_test_elements();

// Seed for tests: TUT_TEST_SEED if set, else a fixed default, so failures reproduce.
std::uint64_t test_seed();

// The adversarial sizes every chapter is tested at: 0, 1, 2, 31, 32, 33, 1023, 1024, 1025,
// 4095, 4097, 1024*1024-1, 1024*1024+1, plus `extra`.
std::vector<std::uint64_t> adversarial_sizes(const std::vector<std::uint64_t>& extra = {});

// Host memory the kernel reports as available now (MemAvailable in /proc/meminfo; UINT64_MAX where it
// cannot be read).
std::uint64_t available_host_bytes();

// The right to run one case that needs `device_bytes` of device memory and `host_bytes` of host memory, from
// claim_memory(). False when the machine lacks the memory (the case must be skipped); while it lives, a large
// case (test_locks.hpp) holds the large-case lock, so no other large case runs beside it.
class MemoryLease {
 public:
  MemoryLease() = default;  // a lease on nothing (false)
  MemoryLease(bool granted, FileLock lock) : granted_(granted), lock_(std::move(lock)) {}
  explicit operator bool() const { return granted_; }

 private:
  bool granted_ = false;
  FileLock lock_;
};

// Claims memory for one case. A large case first waits for the large-case lock. Then, if the case fits in 90% of
// what is free now (less, for a large case, the margin the small cases beside it may take), grants it; otherwise
// prints, as a doctest MESSAGE and on stderr, one line "<what> skipped: needs ..., ... available" and returns a
// lease that is false: the caller skips that case. Keep the lease until the case's memory is freed.
MemoryLease claim_memory(const std::string& what, std::size_t device_bytes, std::size_t host_bytes);

// For each size (those above max_test_elements() are skipped with a message): prepares the
// chapter's workload with seeded random input, and for every variant without a known defect (the vendor
// reference only up to 2^24 elements),
// poisons the outputs, runs it, and CHECKs the output against the CPU reference and every buffer's guards and
// watched inputs (with_buffer_checks, device_guards.cuh).
void check_all_variants(const ChapterSpec& spec, const std::vector<std::uint64_t>& sizes,
                        const std::vector<std::pair<std::string, long long>>& extra = {});

// A copy of `spec` with only the named variants (in spec's order); a name it lacks is an error. For chapters
// with many variants of the same kernel, whose most expensive sizes run for one variant per kernel.
ChapterSpec only_variants(const ChapterSpec& spec, const std::vector<std::string>& names);

// Runs one variant at one size and returns the check, guards and watched inputs included (for tests of known
// defects and planted bugs).
CheckResult run_variant(const ChapterSpec& spec, const std::string& variant, std::uint64_t n,
                        const std::vector<std::pair<std::string, long long>>& extra = {});

// run_chapter() with an argument list, for tests of the command line on a GPU machine.
int run_chapter_with(const ChapterSpec& spec, const std::vector<std::string>& args);

}  // namespace tut::testing
