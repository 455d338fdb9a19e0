// What every scan chapter shares: the CPU reference, CUB's InclusiveSum as the vendor reference, and
// the workload that runs a chapter's scan variants on seeded int32 input. The chapters' own kernels
// live in their folders; this file holds only the scaffolding around them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "runner.cuh"

namespace tut::scan {

// Inclusive scan on the host with two's-complement wrap-around (computed in uint32, so overflow is
// defined behaviour), in parallel over all host cores.
void cpu_inclusive_scan(const std::int32_t* in, std::int32_t* out, std::size_t n);

// CUB's DeviceScan::InclusiveSum with 64-bit item counts. workspace_bytes() sizes its temp storage.
std::size_t cub_workspace_bytes(std::size_t n);
void cub_inclusive_sum(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                       std::size_t workspace_bytes, cudaStream_t stream);

// Up to this size the tests compare every output element with the CPU's whole inclusive scan. Past it (2^30 +
// 1025, 2^31 + 1025: the sizes that test 64-bit indexing) that reference would cost seconds and gigabytes of host
// memory per case, so the output is checked by the scan's definition and at checkpoints (below).
constexpr std::size_t kFullReferenceUpTo = std::size_t{1} << 28;
// The CPU's scan is known exactly at every multiple of this (and at n - 1).
constexpr std::size_t kCheckpointEvery = std::size_t{1} << 22;

// The CPU's inclusive scan of random_integers<int32_t>(n, seed) at every kCheckpointEvery-th element and the
// last: (index, value) pairs.
std::vector<std::pair<std::size_t, std::int32_t>> scan_checkpoints(std::size_t n, std::uint64_t seed);

// Checks d_out as the inclusive scan of d_in, which fill_random_integers_on_device(d_in, n, seed) made. An
// inclusive scan y of x is the one array with y[0] = x[0] and y[i] - y[i-1] = x[i] (mod 2^32), so the GPU checks
// that rule at every i (x recomputed from the generator: a kernel that wrote into its input fails too), and the
// host compares the checkpoints. Every element is checked exactly; a bad element counts at most twice (its own
// difference and the next one's), not once per element as in compare_exact.
CheckResult check_scan_by_definition(const std::int32_t* d_in, const std::int32_t* d_out, std::size_t n,
                                     std::uint64_t seed,
                                     const std::vector<std::pair<std::size_t, std::int32_t>>& checkpoints);

// One scan implementation: how much scratch it needs for n elements, its one-time set-up, and how to run it.
// The scan enqueues its kernels on `stream` and must not allocate, synchronise or set up.
struct ScanVariant {
  std::string name;
  std::string description;
  std::function<std::size_t(std::size_t n)> workspace_bytes;
  std::function<void(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                     cudaStream_t stream)>
      scan;
  std::string known_defect;  // for 'article' variants that reproduce a documented defect
  bool on_demand = false;    // run only when named (--variant NAME or all); see VariantSpec
  // One-time set-up on the current device (the stage's setup_...(): idempotent, cheap on repeat), which the
  // workload's setup() calls before any run; empty for a scan that needs none.
  std::function<void()> setup = nullptr;
  // A tuned stage's plan per GPU (docs/tuning-per-gpu.md), which the workload's setup() calls after `setup` with
  // its own buffers: a measured search may run the candidates on them (out and the workspace are overwritten; the
  // runner poisons both before the checked run). Empty for a scan without a plan.
  std::function<void(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace)> plan = nullptr;
};

// The chapter description for a scan stage: the given variants plus CUB ("cub", the ratio
// reference) and cudaMemcpy of the same bytes. Default size 2^28 int32 (1 GiB).
ChapterSpec make_scan_chapter(const std::string& id, const std::string& title,
                              std::vector<ScanVariant> variants);

}  // namespace tut::scan
