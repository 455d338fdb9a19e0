// The twiddle table of chapters 34 and 35: W_4096^m = exp(-2 pi i m / 4096), m < 4096, rounded once from
// double precision. Every in-block twiddle W_(Ns R)^(r k) of a length N <= 4096 is the entry m = r k 4096 / (Ns R).
// 32 KB: it stays in L1 and L2, so a read costs an L1 hit where sincospif costs some 20 instructions.
//
// Filling it is one-time set-up, like a cuFFT plan's: setup_twiddle_table() runs from the variant's `setup`
// (FftVariant, called by the workload's setup() before any checked, timed or profiled run), once per device.
// A launch only checks, with twiddle_table_filled(), that its device holds a filled table: it never fills,
// allocates or synchronises, and it throws rather than read an unfilled table.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.cuh"

namespace tut::fft {

constexpr int kTwiddleTableLength = 4096;

// Internal linkage for all below: without relocatable device code every .cu file is its own device module with
// its own copy of a __device__ variable, so the table, the record of which devices have it filled and the
// functions that use them belong to each file.
namespace {

__device__ float2 g_twiddle_table[kTwiddleTableLength];

__global__ void fill_twiddle_table_kernel() {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m < kTwiddleTableLength) {
    double s, c;
    sincospi(-2.0 * m / kTwiddleTableLength, &s, &c);
    g_twiddle_table[m] = make_float2(static_cast<float>(c), static_cast<float>(s));
  }
}

// ready[d]: device d holds a filled table (one entry per device id, grown as devices appear).
inline std::vector<bool>& twiddle_table_ready() {
  static std::vector<bool> ready;
  return ready;
}

inline int current_device() {
  int device = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

// exp(-2 pi i m / n) for m < n <= 4096, n a power of two, read from the table.
__device__ __forceinline__ float2 table_twiddle(int m, int n) {
  return __ldg(&g_twiddle_table[m * (kTwiddleTableLength / n)]);
}

// Fills the table on the current device unless it already is: a launch, then a synchronisation so that every
// stream sees the table. Set-up only: never from a launch.
inline void setup_twiddle_table() {
  const int device = current_device();
  std::vector<bool>& ready = twiddle_table_ready();
  if (device < static_cast<int>(ready.size()) && ready[device]) return;
  fill_twiddle_table_kernel<<<kTwiddleTableLength / 256, 256, 0, 0>>>();
  TUT_CHECK_LAUNCH();
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  if (device >= static_cast<int>(ready.size())) ready.resize(device + 1, false);
  ready[device] = true;
}

// Whether the current device holds a filled table. No synchronisation: a host-side record and cudaGetDevice.
inline bool twiddle_table_filled() {
  const int device = current_device();
  const std::vector<bool>& ready = twiddle_table_ready();
  return device < static_cast<int>(ready.size()) && ready[device];
}

// What a launch does when twiddle_table_filled() is false (the variant's setup never ran on this device):
// throws std::logic_error naming `variant`, rather than read an unfilled table.
[[noreturn]] inline void throw_twiddle_table_missing(const std::string& variant) {
  throw std::logic_error(variant + ": the twiddle table of device " + std::to_string(current_device()) +
                         " is not filled; call the variant's setup (FftVariant::setup) on this device first");
}

// Forgets that the current device's table is filled, as if the plan were destroyed: the next launch that
// needs it throws until setup_twiddle_table() runs again. A variant's FftVariant::forget_setup, set next to its
// setup in the same file: the tests of that error (launch_testing.cuh) call it there, since the table and its
// record are that file's.
inline void discard_twiddle_table() {
  const int device = current_device();
  std::vector<bool>& ready = twiddle_table_ready();
  if (device < static_cast<int>(ready.size())) ready[device] = false;
}

}  // namespace
}  // namespace tut::fft
