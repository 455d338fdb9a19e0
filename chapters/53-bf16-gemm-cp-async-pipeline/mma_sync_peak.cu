// The bound of chapter 53's instruction on this GPU: how many BF16 FLOP/s mma.sync.m16n8k16 (FP32 accumulate)
// gives when nothing else runs: no loads, no shared memory, no epilogue. Every warp multiplies register
// fragments that never change, in kChains independent accumulator chains (so that one chain's latency is hidden
// by the others), on every SM. On sm_80-89 this is the tensor peak; on sm_90 it is what the GPU gives an
// instruction that is not wgmma, and so the ceiling of chapters 51-53 there, below the peak cuBLAS's wgmma
// kernels share (common/gemm_tc/tc_workload.cuh: bf16_tensor_peak_tflops).
//
// Self-checked: A and B hold BF16 ones, so every accumulator ends at exactly 16 x iterations; a thread whose
// sum differs (a dropped or reordered mma, a fused-away loop) makes the program fail.
//
//   53-mma-sync-peak [--budget-ms MS] [--check]
// --check: a short run for the test suite; without a GPU it exits 77 (a skip) instead of 2.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "device.cuh"
#include "device_buffer.cuh"
#include "gemm_tc/mma_sync.cuh"
#include "gemm_tc/tc_workload.cuh"
#include "timing.cuh"

namespace {

constexpr int kThreads = 256;                          // 8 warps per block
constexpr double kFlopsPerMma = 2.0 * 16 * 8 * 16;     // one m16n8k16 multiply-add per warp
constexpr std::uint32_t kBf16OnePair = 0x3F803F80u;    // two BF16 1.0 values

template <int kChains>
__global__ void __launch_bounds__(kThreads) mma_sync_peak_kernel(int iterations, float* __restrict__ sums) {
  const std::uint32_t a[4] = {kBf16OnePair, kBf16OnePair, kBf16OnePair, kBf16OnePair};
  float acc[kChains][4] = {};
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) tut::gemm_tc::mma_bf16_16816(acc[c], a, kBf16OnePair, kBf16OnePair);
  }
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  sums[static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x] = sum;
}

struct Config {
  int chains;
  int blocks_per_sm;
};

struct Measured {
  Config config;
  double tflops_median, tflops_min, tflops_max;
};

template <int kChains>
void launch(int blocks, int iterations, float* sums, cudaStream_t stream) {
  mma_sync_peak_kernel<kChains><<<blocks, kThreads, 0, stream>>>(iterations, sums);
  TUT_CHECK_LAUNCH();
}

Measured measure(const Config& config, const tut::DeviceInfo& info, int iterations, double budget_ms) {
  const int blocks = info.sm_count * config.blocks_per_sm;
  tut::DeviceBuffer<float> sums(static_cast<std::size_t>(blocks) * kThreads);
  auto run = [&](cudaStream_t stream) {
    if (config.chains == 4) launch<4>(blocks, iterations, sums.data(), stream);
    else launch<8>(blocks, iterations, sums.data(), stream);
  };
  tut::TimingPlan plan;
  plan.budget_ms = budget_ms;
  const tut::TimingStats t = tut::time_gpu(run, plan);
  // The check: every thread's chains hold 4 x kChains accumulators of 16 x iterations each, exactly (< 2^24).
  std::vector<float> got(sums.size());
  TUT_CUDA_CHECK(cudaMemcpy(got.data(), sums.data(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  const float expected = 4.0f * config.chains * 16.0f * static_cast<float>(iterations);
  const auto bad = std::find_if(got.begin(), got.end(), [&](float s) { return s != expected; });
  if (bad != got.end())
    throw std::runtime_error("thread " + std::to_string(bad - got.begin()) + " summed " + std::to_string(*bad) +
                             ", expected " + std::to_string(expected) + ": the kernel did not run every mma");
  const double flops = kFlopsPerMma * config.chains * iterations * (static_cast<double>(blocks) * kThreads / 32);
  auto tflops = [&](double ms) { return ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0; };
  return {config, tflops(t.median_ms), tflops(t.max_ms), tflops(t.min_ms)};
}

}  // namespace

int main(int argc, char** argv) {
  bool check = false;
  double budget_ms = 300;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--check") check = true;
    else if (arg == "--budget-ms" && i + 1 < argc) budget_ms = std::atof(argv[++i]);
    else {
      std::cerr << argv[0] << ": error: unknown argument '" << arg << "' (usage: " << argv[0]
                << " [--budget-ms MS] [--check])\n";
      return 2;
    }
  }
  if (!(budget_ms > 0)) {
    std::cerr << argv[0] << ": error: --budget-ms must be a positive number of milliseconds\n";
    return 2;
  }
  return tut::run_standalone(argv[0], check, [&]() -> int {
    tut::require_supported_gpu();
    const tut::DeviceInfo info = tut::query_device();
    if (info.cc_major < 8) {
      std::cerr << argv[0] << ": error: " << info.name << " (sm_" << info.cc_major << info.cc_minor
                << ") has no BF16 mma.sync (sm_80 or newer)\n";
      return check ? 77 : 2;
    }
    const int iterations = check ? 256 : 4096;  // 16 x 4096 = 65536 per accumulator: exact in FP32
    const double peak = tut::gemm_tc::bf16_tensor_peak_tflops(info);
    std::cout << info.name << " (" << info.sm_count << " SMs, " << info.sm_clock_khz / 1000
              << " MHz boost), mma.sync.m16n8k16 BF16 x BF16 + FP32 from registers, " << iterations
              << " iterations per warp, TFLOP/s median (min-max):\n";
    Measured best{};
    for (int chains : {4, 8})
      for (int blocks_per_sm : {1, 2, 4}) {
        const Measured m = measure({chains, blocks_per_sm}, info, iterations, check ? 20 : budget_ms);
        std::cout << "  " << chains << " chains per warp, " << 8 * blocks_per_sm << " warps per SM: " << std::fixed
                  << std::setprecision(1) << m.tflops_median << " (" << m.tflops_min << "-" << m.tflops_max << ")\n";
        if (m.tflops_median > best.tflops_median) best = m;
      }
    std::cout << "mma.sync peak: " << std::fixed << std::setprecision(1) << best.tflops_median << " TFLOP/s ("
              << best.config.chains << " chains, " << 8 * best.config.blocks_per_sm << " warps per SM)";
    if (peak > 0) std::cout << ", " << 100.0 * best.tflops_median / peak << "% of the dense BF16 tensor peak " << peak
                            << " TFLOP/s";
    std::cout << "\n";
    return 0;
  });
}
