// Chapter 38's lengths and shared-memory budget (fft_two_pass.cuh takes them from here). Plain C++, so that the
// GPU test can read them without including the kernel header, which would compile every kernel again in it.
#pragma once

namespace fft_two_pass {

constexpr int kMinLog2n = 3, kMaxLog2n = 22;       // the stage
constexpr int kFirstLog2n = 12, kLastLog2n = 22;   // the lengths the two-pass kernels handle
constexpr int kStageFromLog2n = 17;                // the stage's first two-pass length (on a GPU with clusters)
constexpr int kSharedBudget = 227 * 1024;          // sm_90's opt-in shared memory per block
constexpr int kSharedPerSM = 228 * 1024;           // and per SM, of which 1 KiB is reserved per block
constexpr int kTwoBlocksShared = kSharedPerSM / 2 - 1024;

}  // namespace fft_two_pass
