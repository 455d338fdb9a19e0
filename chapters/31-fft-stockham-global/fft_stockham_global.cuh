// Stage 31: the radix-2 Stockham autosort FFT, one kernel launch per pass. Each of the log2 N passes reads the
// whole batch from global memory, does one radix-2 butterfly per pair of elements, and writes the whole batch
// back, ping-ponging between the output and a workspace of the same size. O(N log N) work instead of the
// DFT's O(N^2), but log2 N round trips through DRAM instead of one.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "stockham_radix2.cuh"

namespace fft_stockham_global {

// The pass kernel, tut::fft::stockham_radix2_pass, and its launch loop live in common/fft/stockham_radix2.cuh,
// because chapter 32 reuses them unchanged for long signals: butterfly j of a signal reads x[j] and x[j + N/2]
// (coalesced), multiplies the second by W_(2 ns)^(j mod ns) from sincospif on the exact phase, and writes the
// sum and difference to positions d and d + ns, d = (j / ns) 2 ns + j mod ns: each pass merges pairs of
// length-ns transforms into length-2ns ones and sorts them as it goes, so no bit reversal is needed.

// One batch's worth of float2: the second buffer of the ping-pong.
inline std::size_t workspace_bytes(int log2n, long long batch) {
  return tut::fft::radix2_passes_workspace_bytes(log2n, batch);
}

// log2 N launches of the pass, ping-ponging between `out` and the workspace so that the last one lands in `out`.
inline void forward(const float2* in, float2* out, int log2n, long long batch, void* workspace,
                    cudaStream_t stream) {
  tut::fft::radix2_passes(in, out, log2n, batch, workspace, stream);
}

}  // namespace fft_stockham_global
