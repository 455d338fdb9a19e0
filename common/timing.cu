#include <nvtx3/nvToolsExt.h>

#include <memory>
#include <vector>

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "timing.cuh"

namespace tut {

void flush_l2(cudaStream_t stream) {
  static DeviceBuffer<unsigned char> scratch;  // allocated once, freed at exit
  if (scratch.size() == 0) {
    int dev = 0, l2 = 0;
    TUT_CUDA_CHECK(cudaGetDevice(&dev));
    TUT_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    scratch = DeviceBuffer<unsigned char>(2 * static_cast<std::size_t>(l2 > 0 ? l2 : (1 << 20)));
  }
  TUT_CUDA_CHECK(cudaMemsetAsync(scratch.data(), 0x5A, scratch.bytes(), stream));
}

namespace {

struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    TUT_CUDA_CHECK(cudaEventCreate(&start));
    TUT_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;

  float time_once(const std::function<void(cudaStream_t)>& work, cudaStream_t stream, bool flush) {
    if (flush) flush_l2(stream);
    TUT_CUDA_CHECK(cudaEventRecord(start, stream));
    work(stream);
    TUT_CUDA_CHECK(cudaEventRecord(stop, stream));
    TUT_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.f;
    TUT_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
  }
};

}  // namespace

TimingStats time_gpu(const std::function<void(cudaStream_t)>& work, const TimingPlan& plan,
                     cudaStream_t stream, std::vector<double>* samples_out) {
  EventPair ev;
  for (int i = 0; i < plan.warmup; ++i) work(stream);
  TUT_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::unique_ptr<NvtxRange> timed;  // the range a profiler selects: every launch of the timed repetitions
  if (!plan.timed_range.empty()) timed = std::make_unique<NvtxRange>(plan.timed_range);
  std::vector<double> samples;
  // The first timed run also sizes the adaptive repetition count.
  samples.push_back(ev.time_once(work, stream, plan.flush_l2));
  int reps = plan.reps > 0 ? plan.reps
                           : adaptive_reps(samples[0], plan.budget_ms, plan.min_reps, plan.max_reps);
  for (int i = 1; i < reps; ++i) samples.push_back(ev.time_once(work, stream, plan.flush_l2));
  if (samples_out) samples_out->insert(samples_out->end(), samples.begin(), samples.end());
  return summarize(samples);
}

NvtxRange::NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
NvtxRange::~NvtxRange() { nvtxRangePop(); }

}  // namespace tut
