// Compiled to PTX only (meson custom_target), never run: one kernel per warp scan, so that
// check_warp_scan_ptx.py can read what nvcc makes of chapter 11's __shfl_up_sync + `if (lane >= d)`
// loop and of this chapter's predicated inline PTX. extern "C" keeps the kernel names readable.
// Including the chapter headers also puts their full kernels into the same PTX file.
#include "../11-scan-warp-shuffle/scan_warp_shuffle.cuh"
#include "scan_inline_ptx.cuh"

extern "C" __global__ void probe_scan_warp_shuffle(const std::uint32_t* in, std::uint32_t* out) {
  out[threadIdx.x] = scan_warp_shuffle::scan_warp(in[threadIdx.x]);
}

extern "C" __global__ void probe_scan_warp_inline_ptx(const std::uint32_t* in, std::uint32_t* out) {
  out[threadIdx.x] = scan_inline_ptx::scan_warp(in[threadIdx.x]);
}
