// What every scan chapter shares: the CPU reference, CUB's InclusiveSum as the vendor reference, and
// the workload that runs a chapter's scan variants on seeded int32 input. The chapters' own kernels
// live in their folders; this file holds only the scaffolding around them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
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

// One scan implementation: how much scratch it needs for n elements, and how to run it.
// The scan enqueues its kernels on `stream` and must not allocate or synchronise.
struct ScanVariant {
  std::string name;
  std::string description;
  std::function<std::size_t(std::size_t n)> workspace_bytes;
  std::function<void(const std::int32_t* d_in, std::int32_t* d_out, std::size_t n, void* d_workspace,
                     cudaStream_t stream)>
      scan;
  std::string known_defect;  // for 'article' variants that reproduce a documented defect
  bool on_demand = false;    // run only when named (--variant NAME or all); see VariantSpec
};

// The chapter description for a scan stage: the given variants plus CUB ("cub", the ratio
// reference) and cudaMemcpy of the same bytes. Default size 2^28 int32 (1 GiB).
ChapterSpec make_scan_chapter(const std::string& id, const std::string& title,
                              std::vector<ScanVariant> variants);

}  // namespace tut::scan
