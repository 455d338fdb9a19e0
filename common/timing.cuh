// Timing with CUDA events: warm-up, adaptive repetitions, optional L2 flush, median/min/max.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

#include "stats.hpp"

namespace tut {

struct TimingPlan {
  int warmup = 2;
  int reps = 0;             // 0: adaptive, as many as fit budget_ms within [min_reps, max_reps]
  double budget_ms = 1000;
  int min_reps = 5;
  int max_reps = 1000;
  bool flush_l2 = false;    // overwrite the L2 before every repetition (for inputs that fit in it)
  // Non-empty: the timed repetitions (not the warm-up) run inside an NVTX range of this name, nested in
  // whatever range the caller holds. The runner names it "timed", so that
  // `ncu --nvtx --nvtx-include "<chapter>/<variant>/timed/"` selects exactly the launches of the timed run.
  std::string timed_range;
};

// Runs `work(stream)` plan.warmup times untimed, then times each repetition between two events (inside the
// NVTX range plan.timed_range, if named). samples (if given): each repetition's milliseconds, appended.
TimingStats time_gpu(const std::function<void(cudaStream_t)>& work, const TimingPlan& plan,
                     cudaStream_t stream = 0, std::vector<double>* samples = nullptr);

// Writes a buffer twice the L2 size so that the next kernel starts with a cold cache.
void flush_l2(cudaStream_t stream = 0);

// A scoped NVTX push/pop range. The runner nests "<variant>" inside "<chapter>" and "timed" inside
// "<variant>", which `ncu --nvtx --nvtx-include "<chapter>/<variant>/timed/"` selects.
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name);
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace tut
