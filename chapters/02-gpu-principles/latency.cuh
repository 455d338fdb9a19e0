// Chapter 02, experiment 2: hiding pipeline latency with warps ("Optimisation techniques for GPU
// programs", §1.3). Two dependent chains: experiment 1's FMA chain (latency: a few cycles) and a
// pointer chase through device memory (latency: hundreds of nanoseconds). Each thread's next step
// waits for its previous one, so an SM is only busy if enough other warps have work ready.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fma.cuh"
#include "principles.cuh"

namespace principles {

// Every thread follows the chase cycle for `steps` hops and stores the node it ends on. Thread t
// starts t * spacing hops along the cycle, so threads walk separate stretches of it and do not
// fetch each other's lines. Every load's address is the previous load's value: one load in flight
// per thread, whatever the compiler does.
__global__ void __launch_bounds__(1024)
chase_pointers(const std::uint32_t* __restrict__ next, std::uint32_t* __restrict__ out, std::uint32_t mask,
               std::uint64_t spacing, long long steps) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::uint32_t node = chase_jump(0, t * spacing, mask);
#pragma unroll 4
  for (long long s = 0; s < steps; ++s) node = next[node];
  out[t] = node;
}

}  // namespace principles
