// Shared pieces of the Hopper block tests (test_*.cu here) and of chapters 54-58's tests: the sm_90a skip, seeded
// BF16 matrices with poisoned padding, a CPU reference GEMM with its tolerance, the register split of a
// warp-specialised kernel as compiled, and a watchdog for kernels that wait on mbarrier phases.
#pragma once

#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "arch.cuh"
#include "cuda_check.cuh"
#include "gpu_test.cuh"

namespace tut::hopper::testing {

// Ends the test program with meson's SKIP status (77) and one line when its sm_90a kernels cannot run here
// (a GPU other than sm_90, or a build without -Dgpu_archs=90): the other GPU tests' scaffolding already skips
// without any GPU; this skips on the wrong one.
inline void skip_unless_sm90a() {
  if (const char* why = sm90a_unavailable_reason()) {
    std::printf("SKIP: %s\n", why);
    std::fflush(stdout);
    std::exit(77);
  }
}

// A rows x cols BF16 matrix with leading dimension ld: seeded uniform values in [lo, hi) rounded to BF16, and
// NaN in the ld - cols padding of every row (which a correct kernel never reads: TMA stops at cols).
struct Bf16Matrix {
  int rows = 0, cols = 0, ld = 0;
  std::vector<__nv_bfloat16> bits;  // rows * ld, for the device
  std::vector<float> values;        // the same numbers as float, rows * ld (NaN in the padding)
  float at(int r, int c) const { return values[static_cast<std::size_t>(r) * ld + c]; }
};

inline Bf16Matrix random_bf16_matrix(int rows, int cols, int ld, std::uint64_t seed, float lo = -1.0f,
                                     float hi = 1.0f) {
  Bf16Matrix m;
  m.rows = rows, m.cols = cols, m.ld = ld;
  m.bits.resize(static_cast<std::size_t>(rows) * ld);
  m.values.resize(m.bits.size());
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < ld; ++c) {
      const std::size_t i = static_cast<std::size_t>(r) * ld + c;
      m.bits[i] = __float2bfloat16(c < cols ? dist(rng) : NAN);
      m.values[i] = __bfloat162float(m.bits[i]);
    }
  return m;
}

// Checks c (m rows, leading dimension ldc) against A * B^T computed in double: every element finite and within
// 8 * FP32 epsilon * sqrt(K) * sum_k |a_k b_k| of it (the products of BF16 numbers are exact in FP32; what
// differs is the order and rounding of the sum), and the ldc - n gap of every row still holding poison_bits.
// Returns the number of bad elements and reports the first few with doctest's CHECK.
inline long long check_gemm(const std::vector<float>& c, int ldc, const Bf16Matrix& a, const Bf16Matrix& b,
                            std::uint32_t poison_bits) {
  const int m = a.rows, n = b.rows, k = a.cols;
  const double slack = 8.0 * 1.1920929e-7 * std::sqrt(static_cast<double>(std::max(k, 1)));
  long long bad = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < ldc; ++j) {
      const float got = c[static_cast<std::size_t>(i) * ldc + j];
      if (j >= n) {  // the gap between rows: never written
        std::uint32_t got_bits;
        std::memcpy(&got_bits, &got, 4);
        if (got_bits != poison_bits && ++bad <= 5) CHECK_MESSAGE(false, "gap (", i, ", ", j, ") was written");
        continue;
      }
      double ref = 0.0, magnitude = 0.0;
      for (int kk = 0; kk < k; ++kk) {
        const double p = static_cast<double>(a.at(i, kk)) * b.at(j, kk);
        ref += p;
        magnitude += std::fabs(p);
      }
      const double err = std::fabs(static_cast<double>(got) - ref);
      if (!(err <= slack * magnitude + 1e-30) && ++bad <= 5)
        CHECK_MESSAGE(false, "C(", i, ", ", j, ") = ", got, ", expected ", ref, " (M N K = ", m, " ", n, " ", k,
                      ")");
    }
  }
  return bad;
}

// A warp-specialised kernel (chapters 56-57) as compiled, against the RegisterSplit its Tile assumes
// (warpgroup.cuh): with setmaxnreg (moves_registers), the count of registers it is launched with is the one its
// __launch_bounds__ allows (the pool the consumers' setmaxnreg.inc draws from: with fewer, the increase would wait
// forever) and the split fits it; without, at most that. Nothing spills to local memory, and Tile::kBlocksPerSm
// blocks fit an SM. The kernel's set-up (its shared-memory opt-in) must have run.
template <class Tile, class Kernel>
void check_register_split(const std::string& variant, Kernel* kernel, bool moves_registers) {
  using R = typename Tile::Registers;
  CAPTURE(variant);
  cudaFuncAttributes attributes{};
  TUT_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  MESSAGE(variant << ": " << attributes.numRegs << " registers per thread at launch");
  if (moves_registers) {
    CHECK(attributes.numRegs == R::kLaunchRegisters);
    CHECK(R::kProducerThreads * R::kProducerRegisters + R::kConsumerThreads * R::kConsumerRegisters <=
          Tile::kThreads * attributes.numRegs);
  } else {
    CHECK(attributes.numRegs <= R::kLaunchRegisters);
  }
  CHECK(attributes.localSizeBytes == 0);
  CHECK(attributes.maxThreadsPerBlock >= Tile::kThreads);
  int blocks = 0;
  TUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, Tile::kThreads, Tile::kSharedBytes));
  CHECK(blocks == Tile::kBlocksPerSm);
}

// Ends the program with one line when a test case runs past its time: a wrong mbarrier phase stops a kernel for
// good (and the case's cudaDeviceSynchronize with it), and the test should fail in minutes, not at meson's timeout.
// Not under compute-sanitizer, whose tools run kernels 10-100x slower.
class Watchdog {
 public:
  Watchdog(const char* test, const char* what, int seconds) {
    if (tut::testing::under_sanitizer()) return;
    thread_ = std::thread([this, test, what, seconds] {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!done_changed_.wait_for(lock, std::chrono::seconds(seconds), [this] { return done_; })) {
        std::fprintf(stderr, "%s: \"%s\" did not finish in %d s (a kernel waiting for a phase that never comes?)\n",
                     test, what, seconds);
        std::fflush(stderr);
        std::_Exit(1);
      }
    });
  }
  ~Watchdog() {
    if (!thread_.joinable()) return;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    done_changed_.notify_one();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable done_changed_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace tut::hopper::testing
