// Chapter 02: the arithmetic behind the five experiments, shared by the kernels, the CPU references
// and the host tests (plain C++: it compiles without nvcc).
//
// Source: "Optimisation techniques for GPU programs" (Modern Electronics Technique, 2013), §1, which
// measured its rules on a GeForce GTX 280. Its figures are kept here, named, so that every program
// prints them next to ours.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define PRINCIPLES_HD __host__ __device__
#else
#define PRINCIPLES_HD
#endif

namespace principles {

// ---- The article's GPU and figures ------------------------------------------------------------
namespace gtx280 {
constexpr int kCores = 240;                 // 30 SMs x 8 scalar processors (§1.2)
constexpr double kShaderClockGhz = 1.295;   // (§1.2)
constexpr double kPeakGflops = 933.0;       // the peak the article quotes (§1.2): 240 x 1.295 GHz x 3,
                                            // counting a MUL co-issued with every MAD
constexpr double kMadPeakGflops = kCores * 2 * kShaderClockGhz;  // what a loop of MADs alone can reach
constexpr double kMeasuredGflops = 622.0;   // the article's unrolled MAD loop (§1.2)
constexpr int kThreadsPerSmForPeak = 256;   // the article's measurement (§1.3)
constexpr int kGuideThreadsPerSm = 192;     // what the programming guide of the time said (§1.3)
constexpr int kMaxThreadsPerSm = 1024;      // GT200: 32 warps per SM
constexpr int kBandwidthBlock = 128;        // threads per block of the bandwidth test (§1.5)
constexpr double kBandwidth32Gbps = 121.6;  // coalesced 32-bit accesses (§1.5)
constexpr double kBandwidth64Gbps = 124.8;  // coalesced 64-bit accesses (§1.5)
// Not in the article: NVIDIA's GTX 280 specification, 512-bit GDDR3 at 1107 MHz (2 transfers/clock).
constexpr double kPeakDramGbps = 141.7;
}  // namespace gtx280

// ---- Peak FP32 throughput of today's GPU ------------------------------------------------------
// FP32 lanes per SM by compute capability (NVIDIA's architecture whitepapers). One lane retires
// one FFMA (2 flop) per clock.
struct Fp32Lanes {
  int lanes;
  bool known;  // false: a compute capability newer than this table; 128 is assumed
};

constexpr Fp32Lanes fp32_lanes_per_sm(int major, int minor) {
  if (major == 7) return {64, minor == 0 || minor == 2 || minor == 5};  // Volta, Turing
  if (major == 8 && minor == 0) return {64, true};                      // A100: 64, not 128
  if (major == 8) return {128, minor == 6 || minor == 7 || minor == 9}; // GA10x, Orin, Ada
  if (major == 9 && minor == 0) return {128, true};                     // H100, H200, GH200
  if (major == 10 || major == 11 || major == 12) return {128, true};    // Blackwell
  return {major >= 8 ? 128 : 64, false};
}

// GFLOP/s = SMs x lanes x 2 flop x clock (kHz, as cudaDevAttrClockRate reports it).
constexpr double peak_fp32_gflops(int sms, int lanes, double clock_khz) {
  return sms * static_cast<double>(lanes) * 2.0 * clock_khz * 1e-6;
}

// ---- Experiments 1-3 and 5: the article's FMA chain -------------------------------------------
// One step of the chain the article used (§1.2): a = b*a + b; b = a*b + a. Two FMAs, the second
// waits for the first, and the next step waits for both: a chain has no parallelism of its own.
// fmaf rounds once on the GPU and on the CPU, so the CPU reference agrees to the bit.
struct ArticleStep {
  PRINCIPLES_HD void operator()(float& a, float& b) const {
    a = fmaf(b, a, b);
    b = fmaf(a, b, a);
  }
};

// A second chain with different code, for the MIMD experiment: a = a*b + a; b = b*a + b.
// Starting in (-1, 0), both chains shrink towards 0 without reaching it, so they never overflow.
struct MirroredStep {
  PRINCIPLES_HD void operator()(float& a, float& b) const {
    a = fmaf(a, b, a);
    b = fmaf(b, a, b);
  }
};

// Range of the seeded starting values of a and b.
constexpr float kChainLow = -0.9f;
constexpr float kChainHigh = -0.1f;

// ---- Experiment 2: the pointer chase ----------------------------------------------------------
// The chase array holds next[i] = (A*i + C) mod n for a power-of-two n. With A = 1 (mod 4) and C odd
// this map is one cycle through all n nodes (Hull-Dobell), its jumps look random to the memory
// system, and the CPU can find the node k hops ahead in O(log k) to check the GPU.
constexpr std::uint32_t kChaseMul = 1664525u;
constexpr std::uint32_t kChaseAdd = 1013904223u;
static_assert(kChaseMul % 4 == 1 && kChaseAdd % 2 == 1, "the chase map must be a single cycle");

PRINCIPLES_HD inline std::uint32_t chase_next(std::uint32_t node, std::uint32_t mask) {
  return (kChaseMul * node + kChaseAdd) & mask;  // mask = n - 1; uint32 arithmetic wraps mod 2^32
}

// The node `hops` steps after `node`: the affine map x -> A x + C composed with itself `hops` times
// by repeated squaring (mod 2^32, then mod n, which divides 2^32).
PRINCIPLES_HD inline std::uint32_t chase_jump(std::uint32_t node, std::uint64_t hops, std::uint32_t mask) {
  std::uint32_t mul = 1, add = 0;                          // the map for the hops taken so far
  std::uint32_t step_mul = kChaseMul, step_add = kChaseAdd;  // the map for 2^k hops
  while (hops) {
    if (hops & 1) {
      add = step_mul * add + step_add;
      mul = step_mul * mul;
    }
    step_add = step_mul * step_add + step_add;
    step_mul = step_mul * step_mul;
    hops >>= 1;
  }
  return (mul * node + add) & mask;
}

// ---- Experiment 4: the strided gather ----------------------------------------------------------
// out[i] = in[strided_source(i)]: neighbouring threads read elements `stride` apart. The first
// (n / stride) * stride elements are read as the transpose of a (stride x n/stride) matrix, so every
// element is still read exactly once; the few left over are copied in place.
PRINCIPLES_HD inline std::uint64_t strided_source(std::uint64_t i, std::uint64_t n, std::uint64_t stride) {
  const std::uint64_t per_column = n / stride;
  if (i >= per_column * stride) return i;
  return (i % per_column) * stride + i / per_column;
}

// ---- Experiment 5: the register exchange (the article's FFT, §3.2) -----------------------------
// A block of 128 threads holds a tile of 2048 floats, 16 per thread in registers (one component of
// the article's 2048 complex values). Thread t, register r holds tile element r * 128 + t. One
// exchange transposes the tile: read as a 16 x 128 matrix, written back as its 128 x 16 transpose.
constexpr int kExchangeThreads = 128;
constexpr int kExchangeValues = 16;
constexpr int kExchangeTile = kExchangeThreads * kExchangeValues;

// Tile element that lands at position g after one exchange.
PRINCIPLES_HD constexpr int exchange_source(int g) {
  return (g % kExchangeValues) * kExchangeThreads + g / kExchangeValues;
}

// So new value r of thread t is old value t % 16 of thread r * 8 + t / 16. In shared memory, value v
// of the thread in buffer column c sits at v * row_length + c. Where thread t reads the j-th value of
// a turn (for the full buffer: the only turn, j = r; for the halved buffer, turn k: j = r - 8k, and
// the columns are threads 64k ... 64k + 63):
constexpr int kExchangeSourceStep = kExchangeThreads / kExchangeValues;  // 8

PRINCIPLES_HD constexpr int exchange_read_offset(int t, int j, int row_length) {
  return (t % kExchangeValues) * row_length + j * kExchangeSourceStep + t / kExchangeValues;
}

}  // namespace principles
