// Support for the GPU test suites (doctest). Link with tut_gpu_test_main, which skips the whole
// executable with exit code 77 (meson's SKIP) on a machine without a usable GPU.
#pragma once

#include "doctest.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "cli.hpp"
#include "runner.cuh"

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

// True when a case needing `device_bytes` of device memory and `host_bytes` of host memory fits in what
// this machine has free now (90% of each). Otherwise prints, as a doctest MESSAGE and on stderr, one line
// "<what> skipped: needs ... , ... available" and returns false: the caller skips that case. The GPU suites
// run one test at a time (is_parallel: false), so "free now" is what the case will get.
bool memory_allows(const std::string& what, std::size_t device_bytes, std::size_t host_bytes);

// For each size (those above max_test_elements() are skipped with a message): prepares the
// chapter's workload with seeded random input, and for every variant without a known defect (the vendor
// reference only up to 2^24 elements),
// poisons the outputs, runs it, and CHECKs the output against the CPU reference.
void check_all_variants(const ChapterSpec& spec, const std::vector<std::uint64_t>& sizes,
                        const std::vector<std::pair<std::string, long long>>& extra = {});

// A copy of `spec` with only the named variants (in spec's order); a name it lacks is an error. For chapters
// with many variants of the same kernel, whose most expensive sizes run for one variant per kernel.
ChapterSpec only_variants(const ChapterSpec& spec, const std::vector<std::string>& names);

// Runs one variant at one size and returns the check (for tests of known defects).
CheckResult run_variant(const ChapterSpec& spec, const std::string& variant, std::uint64_t n,
                        const std::vector<std::pair<std::string, long long>>& extra = {});

// run_chapter() with an argument list, for tests of the command line on a GPU machine.
int run_chapter_with(const ChapterSpec& spec, const std::vector<std::string>& args);

}  // namespace tut::testing
