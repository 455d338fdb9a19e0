// Exercise 36: the padded exchange index of chapter 36's one-block FFT (N = 8192 and 16384 in dynamic shared
// memory). Between two passes every thread writes the E outputs of its radix-E butterfly to the shared buffer
// and the next pass reads them back; the write index decides both the order of the FFT and the bank conflicts.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>

#include "cuda_check.cuh"

namespace large_exchange {

// Slot `slot` of the unpadded buffer, with one slot of padding after every E (chapter 35's padded<E>).
template <int E>
__host__ __device__ constexpr int padded(int slot) {
  return slot + slot / E;
}

// Where thread t writes output r (r < E) of its radix-E butterfly j = t in the exchange after a pass whose
// sub-transforms have length ns (a power of two, ns = 1 after the first pass), in the PADDED buffer.
//   Stockham: output r of butterfly j goes to (j / ns) * ns * E + j mod ns + r * ns (unpadded).
template <int E>
__host__ __device__ int exchange_write_slot(int t, int r, int ns) {
  // TODO: the Stockham output position of (t, r) after passes of length ns, then through padded<E>.
  // As shipped every value lands on slot r, so the kernel below reads back garbage order.
  (void)t;
  (void)ns;
  return padded<E>(r);
}

// One exchange of one signal of N values per block, T = N / E threads: thread t writes its values
// v[r] = in[t * E + r] through exchange_write_slot, barrier, then reads slot padded<E>(i * T + t) into
// out[i * T + t] (consecutive threads, consecutive slots). So out[k] is the value that was written to the
// unpadded position k.
template <int N, int E>
__global__ void __launch_bounds__(N / E) exchange_kernel(const int* __restrict__ in, int* __restrict__ out, int ns) {
  constexpr int T = N / E;
  extern __shared__ int buf[];
  const int t = threadIdx.x;
  const int* src = in + static_cast<long long>(blockIdx.x) * N;
  int* dst = out + static_cast<long long>(blockIdx.x) * N;
  int v[E];
#pragma unroll
  for (int r = 0; r < E; ++r) v[r] = src[t * E + r];
#pragma unroll
  for (int r = 0; r < E; ++r) buf[exchange_write_slot<E>(t, r, ns)] = v[r];
  __syncthreads();
#pragma unroll
  for (int i = 0; i < E; ++i) dst[i * T + t] = buf[padded<E>(i * T + t)];
}

template <int N, int E>
constexpr int shared_bytes() {
  return (N + N / E) * static_cast<int>(sizeof(int));
}

// One-time set-up: the opt-in to more than 48 KiB of dynamic shared memory (N = 16384: 68 KiB with E = 16).
template <int N, int E>
void setup() {
  TUT_CUDA_CHECK(cudaFuncSetAttribute(exchange_kernel<N, E>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      shared_bytes<N, E>()));
}

template <int N, int E>
void exchange(const int* in, int* out, int signals, int ns, cudaStream_t stream) {
  if (ns < 1 || ns > N / E || (ns & (ns - 1)) != 0) throw std::invalid_argument("ns must be a power of two <= N/E");
  exchange_kernel<N, E><<<signals, N / E, shared_bytes<N, E>(), stream>>>(in, out, ns);
  TUT_CHECK_LAUNCH();
}

}  // namespace large_exchange
