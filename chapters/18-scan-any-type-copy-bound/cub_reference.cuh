// Chapter 18's vendor reference: cub::DeviceScan on the type the stage scans (signed sums as their unsigned twin).
// Compiled on its own in cub_reference.cu, without the ptxas spill warnings that every chapter kernel is built with
// (CUB's 64-bit-offset scan kernels spill a few bytes by design; common/meson.build), so that a warning in this
// chapter's build is always one of its own kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace scan_copy_bound {
struct Sum;  // the operators (scan_copy_bound.cuh); this header and cub_reference.cu need only their names
struct Max;
}  // namespace scan_copy_bound

namespace copy_bound {

// With workspace null: returns the bytes CUB needs for n values. Else the inclusive scan of in[0, n) with Op (Sum:
// InclusiveSum, Max: InclusiveScan with cuda::maximum), enqueued on stream. Instantiated for every (S, Op) that
// ScanType gives for chapter 18's types.
template <class S, class Op>
std::size_t cub_scan(void* workspace, std::size_t bytes, const S* in, S* out, std::size_t n, cudaStream_t stream);

}  // namespace copy_bound
