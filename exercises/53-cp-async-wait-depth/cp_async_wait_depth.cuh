// Exercise 53 (chapter 53-bf16-gemm-cp-async-pipeline): the schedule of the multi-stage cp.async pipeline, which
// stage holds slice s and how deep the wait for it is.
//
// Chapter 53's header is included unchanged: its kernel takes the schedule as a template parameter. With
// kStages = 4 stages of shared memory and S = ceil(K / 32) slices of K, it runs
//   prologue:     for p = 0 ... kStages - 2: start the copies of slice p into stage_of(p); commit (one group per
//                 slice, committed even when there is no slice p, so that every iteration sees the same count)
//   iteration s:  cp.async.wait_group kWaitDepth      (at most kWaitDepth of this thread's groups still in flight)
//                 __syncthreads()                     (every thread's copies visible; every warp done with s - 1)
//                 start the copies of slice s + kStages - 1 into stage_of(s + kStages - 1); commit
//                 ldmatrix + mma.sync on stage_of(s)
// and the copies of the later slices land while the tensor cores work on slice s.
#pragma once

#include <cuda_runtime.h>

#include "../../chapters/53-bf16-gemm-cp-async-pipeline/gemm_multistage.cuh"  // chapter 53, its kernel takes the schedule

namespace cp_async_wait_depth {

using gemm_multistage::kStages;

struct Schedule {
  // TODO: how many of this thread's cp.async groups may still be in flight when iteration s reads slice s? Count
  //   the groups committed by then (the prologue's and one per earlier iteration) and find the largest N after
  //   which slice s's group has surely landed. As shipped: kStages - 1, which never waits for slice s.
  static constexpr int kWaitDepth = kStages - 1;

  // TODO: the stage (0 ... kStages - 1) that holds slice `slice`. The copy started at iteration s (slice
  //   s + kStages - 1) must overwrite a stage that no warp reads any more and that no copy is still filling. As
  //   shipped every slice goes to stage 0: the copies of slices 0, 1 and 2 all land on one another.
  __host__ __device__ __forceinline__ static int stage_of(int slice) {
    (void)slice;
    return 0;
  }
};

// The opt-in to the kernel's 64 KiB of dynamic shared memory, once per device (chapter 53's set-up, this kernel).
inline void setup() { gemm_multistage::setup_gemm_multistage<Schedule>(); }

// Chapter 53's launcher with this schedule (C = alpha A B^T + beta C; A M x K, B N x K, both row-major BF16, C FP32).
inline void gemm(int m, int n, int k, float alpha, const gemm_multistage::bf16* A, const gemm_multistage::bf16* B,
                 float beta, float* C, cudaStream_t stream) {
  gemm_multistage::gemm_with<Schedule>(m, n, k, alpha, A, B, beta, C, stream);
}

}  // namespace cp_async_wait_depth
