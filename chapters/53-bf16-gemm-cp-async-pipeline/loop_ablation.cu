// What holds chapter 53's stage under its mma.sync bound: its main loop timed with one ingredient taken out at a
// time. Every kernel here is the stage's loop (gemm_multistage.cuh's tile, warps, stages, schedule and swizzle,
// and common/gemm_tc's copy_tile, ldmatrix_x4 and mma_bf16_16816, called, not copied) with compile-time switches:
//
//   copies    stage:   copy_tile per slice, as the stage (bounds, alignment and zero-fill branches per chunk)
//             once:    the 4 stages copied once before the loop, every slice re-reads them (WRONG result by design)
//             hoisted: each thread's 4 chunk addresses computed once, advanced by 32 elements a slice: 4 cp.async
//                      and a few adds per slice; only for tiles wholly inside the matrix with aligned rows (the
//                      host refuses other shapes), so the result is checked
//   sync      cp.async.wait_group + __syncthreads per slice, or neither (WRONG result without copies' order)
//   frags     stage: 6 ldmatrix.x4 per k16 step from the slice's stage; once: the fragments of stage 0's first
//             k16 step loaded before the loop and reused by every step (WRONG result by design)
//
// The first row is the stage itself (gemm_multistage::gemm). Rows whose result is right are checked on 512
// sampled entries against an FP64 CPU dot product; the others say "wrong by design". TFLOP/s count 2 M N K.
//
//   53-loop-ablation [--m M --n N --k K] [--budget-ms MS] [--only NAME] [--once] [--check]
// --once: one launch of each selected configuration, untimed (for ncu); --check: 512^3, short (the test).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "device.cuh"
#include "device_buffer.cuh"
#include "gemm_multistage.cuh"
#include "timing.cuh"

namespace {

using namespace gemm_multistage;
using tut::gemm_tc::bf16;

enum class Copies { kStage, kOnce, kHoisted };
enum class Frags { kStage, kOnce };

template <Copies kCopies, bool kSync, Frags kFrags>
__global__ void __launch_bounds__(kThreads, 2) ablation_kernel(int m, int n, int k, const bf16* __restrict__ A,
                                                               const bf16* __restrict__ B, float* __restrict__ C) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace tut::gemm_tc;
  using namespace tut::async_copy;
  extern __shared__ __align__(128) unsigned char shared_bytes[];
  bf16* const a_stages = reinterpret_cast<bf16*>(shared_bytes);
  bf16* const b_stages = a_stages + kStages * kATileElements;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int warp_m = (warp / kWarpsN) * kWarpM, warp_n = (warp % kWarpsN) * kWarpN;
  const int m0 = static_cast<int>(blockIdx.y) * kBlockM, n0 = static_cast<int>(blockIdx.x) * kBlockN;
  const int slices = (k + kBlockK - 1) / kBlockK;

  auto load_slice = [&](int s) {  // the stage's copies (gemm_multistage_kernel's load_slice)
    const int stage = Schedule::stage_of(s);
    copy_tile<kBlockM, kBlockK, kThreads, true>(a_stages + stage * kATileElements, Swizzle{}, A, m, k, k, m0,
                                                s * kBlockK, true);
    copy_tile<kBlockN, kBlockK, kThreads, true>(b_stages + stage * kBTileElements, Swizzle{}, B, n, k, k, n0,
                                                s * kBlockK, true);
  };
  // Hoisted copies: the same chunks to the same swizzled places, addresses computed once.
  constexpr int kChunksPerRow = kBlockK / kChunkElements, kPerThread = kBlockM * kChunksPerRow / kThreads;
  static_assert(kBlockM == kBlockN, "A and B tiles have the same chunks");
  const bf16* a_src[kPerThread];
  const bf16* b_src[kPerThread];
  int dst[kPerThread];
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const int c = static_cast<int>(threadIdx.x) + i * kThreads, r = c / kChunksPerRow, ch = c % kChunksPerRow;
    a_src[i] = A + static_cast<std::size_t>(m0 + r) * k + ch * kChunkElements;
    b_src[i] = B + static_cast<std::size_t>(n0 + r) * k + ch * kChunkElements;
    dst[i] = Swizzle{}(r, ch);
  }
  auto load_slice_hoisted = [&](int s) {
    const int stage = Schedule::stage_of(s);
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      cp_async_16(reinterpret_cast<uint4*>(a_stages + stage * kATileElements + dst[i]),
                  reinterpret_cast<const uint4*>(a_src[i] + s * kBlockK));
      cp_async_16(reinterpret_cast<uint4*>(b_stages + stage * kBTileElements + dst[i]),
                  reinterpret_cast<const uint4*>(b_src[i] + s * kBlockK));
    }
  };
  auto load = [&](int s) {
    if constexpr (kCopies == Copies::kHoisted) load_slice_hoisted(s);
    else load_slice(s);
  };

  if constexpr (kCopies == Copies::kOnce) {  // all 4 stages once; the loop re-reads them
#pragma unroll
    for (int s = 0; s < kStages; ++s)
      if (s < slices) load_slice(s);
    cp_async_commit();
    cp_async_wait_all();
    __syncthreads();
  } else {
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
      if (s < slices) load(s);
      cp_async_commit();
    }
  }

  // Fragments once: stage 0's first k16 step, after its copies landed (wrong products by design).
  std::uint32_t a_once[kTilesM][4], b_once[kTilesN / 2][4];
  if constexpr (kFrags == Frags::kOnce) {
    if constexpr (kCopies != Copies::kOnce) {
      cp_async_wait<kStages - 2>();
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < kTilesM; ++i)
      ldmatrix_x4(a_once[i], a_stages + Swizzle{}(warp_m + i * kMmaM + a_ldmatrix_row(lane), a_ldmatrix_chunk(lane)));
#pragma unroll
    for (int p = 0; p < kTilesN / 2; ++p)
      ldmatrix_x4(b_once[p], b_stages + Swizzle{}(warp_n + p * 2 * kMmaN + b_ldmatrix_row(lane), b_ldmatrix_chunk(lane)));
  }

  float acc[kTilesM][kTilesN][4] = {};
  for (int s = 0; s < slices; ++s) {
    if constexpr (kSync) {
      cp_async_wait<Schedule::kWaitDepth>();
      __syncthreads();
    }
    if constexpr (kCopies != Copies::kOnce) {
      if (s + kStages - 1 < slices) load(s + kStages - 1);
    }
    if constexpr (kSync || kCopies != Copies::kOnce) cp_async_commit();

    const bf16* a_tile = a_stages + Schedule::stage_of(s) * kATileElements;
    const bf16* b_tile = b_stages + Schedule::stage_of(s) * kBTileElements;
#pragma unroll
    for (int kk = 0; kk < kBlockK; kk += kMmaK) {
      if constexpr (kFrags == Frags::kStage) {
        std::uint32_t a[kTilesM][4], b[kTilesN / 2][4];
#pragma unroll
        for (int i = 0; i < kTilesM; ++i)
          ldmatrix_x4(a[i], a_tile + Swizzle{}(warp_m + i * kMmaM + a_ldmatrix_row(lane), kk / 8 + a_ldmatrix_chunk(lane)));
#pragma unroll
        for (int p = 0; p < kTilesN / 2; ++p)
          ldmatrix_x4(b[p], b_tile + Swizzle{}(warp_n + p * 2 * kMmaN + b_ldmatrix_row(lane), kk / 8 + b_ldmatrix_chunk(lane)));
#pragma unroll
        for (int i = 0; i < kTilesM; ++i)
#pragma unroll
          for (int j = 0; j < kTilesN; ++j) mma_bf16_16816(acc[i][j], a[i], b[j / 2][(j % 2) * 2], b[j / 2][(j % 2) * 2 + 1]);
      } else {
#pragma unroll
        for (int i = 0; i < kTilesM; ++i)
#pragma unroll
          for (int j = 0; j < kTilesN; ++j)
            mma_bf16_16816(acc[i][j], a_once[i], b_once[j / 2][(j % 2) * 2], b_once[j / 2][(j % 2) * 2 + 1]);
      }
    }
  }
  cp_async_wait_all();
#pragma unroll
  for (int i = 0; i < kTilesM; ++i)
#pragma unroll
    for (int j = 0; j < kTilesN; ++j)
      store_c_fragment(acc[i][j], C, m, n, m0 + warp_m + i * kMmaM, n0 + warp_n + j * kMmaN, 1.0f, 0.0f, true);
#else
  (void)m, (void)n, (void)k, (void)A, (void)B, (void)C;
#endif
}

using Launch = void (*)(int, int, int, const bf16*, const bf16*, float*, cudaStream_t);

template <Copies kCopies, bool kSync, Frags kFrags>
void launch(int m, int n, int k, const bf16* A, const bf16* B, float* C, cudaStream_t stream) {
  static bool opted_in = false;  // one device per run
  if (!opted_in) {
    TUT_CUDA_CHECK(cudaFuncSetAttribute(ablation_kernel<kCopies, kSync, kFrags>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
    opted_in = true;
  }
  ablation_kernel<kCopies, kSync, kFrags><<<tut::gemm::tile_grid(m, n, kBlockM, kBlockN), kThreads, kSharedBytes, stream>>>(
      m, n, k, A, B, C);
  TUT_CHECK_LAUNCH();
}

void stage(int m, int n, int k, const bf16* A, const bf16* B, float* C, cudaStream_t stream) {
  gemm_multistage::gemm(m, n, k, 1.0f, A, B, 0.0f, C, stream);
}

struct Config {
  const char* name;
  const char* what;
  bool checked;  // false: wrong result by design
  bool races;    // true: its copies overwrite stages other warps still read (no barrier): skipped under a sanitizer
  Launch launch;
};

const std::vector<Config>& configs() {
  static const std::vector<Config> list = {
      {"stage", "the stage itself (gemm_multistage::gemm)", true, false, stage},
      {"full", "this program's copy of the loop, every ingredient in", true, false, launch<Copies::kStage, true, Frags::kStage>},
      {"no-copies", "no copies in the loop (4 stages copied once, re-read), wait + barrier kept", false, false,
       launch<Copies::kOnce, true, Frags::kStage>},
      {"no-copies-no-sync", "no copies, no wait, no barrier: ldmatrix + mma.sync only", false, false,
       launch<Copies::kOnce, false, Frags::kStage>},
      {"no-ldmatrix", "copies + wait + barrier kept, fragments loaded once (no ldmatrix in the loop)", false, false,
       launch<Copies::kStage, true, Frags::kOnce>},
      {"mma-only", "only the warp's 16 mma.sync a k16 step on fragments in registers", false, false,
       launch<Copies::kOnce, false, Frags::kOnce>},
      {"copies-no-sync", "copies + ldmatrix + mma.sync, no wait, no barrier (races)", false, true,
       launch<Copies::kStage, false, Frags::kStage>},
      {"hoisted-copies", "the stage with each thread's copy addresses computed once (interior tiles only)", true, false,
       launch<Copies::kHoisted, true, Frags::kStage>},
  };
  return list;
}

float bf16_value(std::uint16_t bits) {
  const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  int m = 4096, n = 4096, k = 4096;
  double budget_ms = 300;
  bool once = false, check = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    try {
      if (arg == "--m") m = std::stoi(value());
      else if (arg == "--n") n = std::stoi(value());
      else if (arg == "--k") k = std::stoi(value());
      else if (arg == "--budget-ms") budget_ms = std::stod(value());
      else if (arg == "--only") only = value();
      else if (arg == "--once") once = true;
      else if (arg == "--check") check = true;
      else throw std::invalid_argument("unknown argument '" + arg + "'");
    } catch (const std::exception& e) {
      std::cerr << argv[0] << ": error: " << e.what() << " (usage: " << argv[0]
                << " [--m M --n N --k K] [--budget-ms MS] [--only NAME] [--once] [--check])\n";
      return 2;
    }
  }
  if (check) m = n = k = 512, budget_ms = 20;
  if (m <= 0 || n <= 0 || k <= 0 || m % kBlockM || n % kBlockN || k % kBlockK || !(budget_ms > 0)) {
    std::cerr << argv[0] << ": error: M and N must be positive multiples of 128, K of 32 (the hoisted copies have "
              << "no edge code), and --budget-ms positive\n";
    return 2;
  }
  return tut::run_standalone(argv[0], check, [&]() -> int {
    tut::require_supported_gpu();
    const tut::DeviceInfo info = tut::query_device();
    if (info.cc_major < 8) {
      std::cerr << argv[0] << ": error: " << info.name << " has no cp.async or BF16 mma.sync (sm_80 or newer)\n";
      return check ? 77 : 2;
    }
    // Inputs: BF16 values in [-1, 1) from a fixed LCG.
    std::vector<std::uint16_t> ha(static_cast<std::size_t>(m) * k), hb(static_cast<std::size_t>(n) * k);
    std::uint32_t state = 12345u;
    auto next = [&]() {
      state = state * 1664525u + 1013904223u;
      const float v = static_cast<float>(state >> 8) / 8388608.0f - 1.0f;
      std::uint32_t u;
      std::memcpy(&u, &v, sizeof u);
      return static_cast<std::uint16_t>(u >> 16);  // truncation: exact BF16
    };
    for (auto& v : ha) v = next();
    for (auto& v : hb) v = next();
    tut::DeviceBuffer<bf16> A(ha.size()), B(hb.size());
    TUT_CUDA_CHECK(cudaMemcpy(A.data(), ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
    TUT_CUDA_CHECK(cudaMemcpy(B.data(), hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
    tut::DeviceBuffer<float> C(static_cast<std::size_t>(m) * n);
    gemm_multistage::setup_gemm_multistage();

    const double flops = 2.0 * m * n * static_cast<double>(k);
    std::cout << info.name << " (" << info.sm_count << " SMs), " << m << " x " << n << " x " << k
              << ", chapter 53's loop with one ingredient out at a time; TFLOP/s median (min-max):\n";
    std::cout << "config,median_us,tflops,tflops_min,tflops_max,reps,check,what\n";
    bool all_ok = true;
    // Under compute-sanitizer (the tests' setups set TUT_SANITIZER) a race by design is not a finding: that row is
    // left out, and says so.
    const bool under_sanitizer = std::getenv("TUT_SANITIZER") != nullptr;
    for (const Config& config : configs()) {
      if (!only.empty() && only != "all" && only != config.name) continue;
      if (config.races && under_sanitizer) {
        std::cout << config.name << ",skipped under a sanitizer: it races by design\n";
        continue;
      }
      auto run = [&](cudaStream_t stream) { config.launch(m, n, k, A.data(), B.data(), C.data(), stream); };
      if (once) {
        run(0);
        TUT_CUDA_CHECK(cudaDeviceSynchronize());
        std::cout << config.name << ",once\n";
        continue;
      }
      TUT_CUDA_CHECK(cudaMemset(C.data(), 0, C.size() * sizeof(float)));
      tut::TimingPlan plan;
      plan.budget_ms = budget_ms;
      const tut::TimingStats t = tut::time_gpu(run, plan);
      std::string verdict = "wrong by design";
      if (config.checked) {
        std::vector<float> got(C.size());
        C.download(got.data(), got.size());
        int bad = 0;
        std::uint32_t pick = 777u;
        for (int s = 0; s < 512; ++s) {
          pick = pick * 1664525u + 1013904223u;
          const int r = static_cast<int>((pick >> 4) % static_cast<std::uint32_t>(m));
          pick = pick * 1664525u + 1013904223u;
          const int c = static_cast<int>((pick >> 4) % static_cast<std::uint32_t>(n));
          double ref = 0, mag = 0;
          for (int e = 0; e < k; ++e) {
            const double p = static_cast<double>(bf16_value(ha[static_cast<std::size_t>(r) * k + e])) *
                             bf16_value(hb[static_cast<std::size_t>(c) * k + e]);
            ref += p;
            mag += std::fabs(p);
          }
          const double err = std::fabs(got[static_cast<std::size_t>(r) * n + c] - ref);
          if (!(err <= 5e-4 * mag + 1e-6)) ++bad;  // FP32 sums of K products: K eps = 2.4e-4 at 4096
        }
        verdict = bad ? "FAILED (" + std::to_string(bad) + " of 512 sampled entries)" : "ok (512 sampled entries)";
        if (bad) all_ok = false;
      }
      auto tflops = [&](double ms) { return ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0; };
      std::cout << config.name << "," << std::fixed << std::setprecision(1) << 1000.0 * t.median_ms << ","
                << tflops(t.median_ms) << "," << tflops(t.max_ms) << "," << tflops(t.min_ms) << "," << t.reps << ","
                << verdict << ",\"" << config.what << "\"\n";
    }
    return all_ok ? 0 : 1;
  });
}
