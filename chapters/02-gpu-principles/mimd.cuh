// Chapter 02, experiment 5a: MIMD by warp ("Optimisation techniques for GPU programs", §1.1).
// Threads of one warp share an instruction stream; different warps do not. A branch on the warp
// index sends whole warps down different code at no cost, while a branch that splits a warp makes
// it run both sides, one after the other, with part of its lanes switched off.
#pragma once

#include <cstddef>

#include "principles.cuh"

namespace principles {

constexpr int kMimdBlock = 256;
constexpr int kMimdChains = 4;

enum class PathChoice {
  kSameCode,  // every thread runs the article's chain
  kByWarp,    // even warps the article's chain, odd warps the mirrored one: uniform within a warp
  kByLane,    // even lanes the article's chain, odd lanes the mirrored one: every warp diverges
};

// Whether thread t runs MirroredStep; the CPU reference asks the same question.
PRINCIPLES_HD constexpr bool takes_mirrored_path(PathChoice choice, std::size_t t) {
  return choice == PathChoice::kByWarp ? (t / 32) % 2 == 1 : choice == PathChoice::kByLane ? t % 2 == 1 : false;
}

// Each thread runs kMimdChains chains of one of two different FMA sequences for `steps` steps. Both
// sides are loops of the same length, so a warp whose lanes disagree takes twice as long.
template <PathChoice kChoice>
__global__ void __launch_bounds__(kMimdBlock)
two_paths(const float* __restrict__ init, float* __restrict__ out, std::size_t stride, long long steps) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float a[kMimdChains], b[kMimdChains];
  load_chains(init, stride, t, a, b);
  if (takes_mirrored_path(kChoice, t)) run_chains(a, b, steps, MirroredStep{});
  else run_chains(a, b, steps, ArticleStep{});
  store_chains(out, stride, t, a, b);
}

}  // namespace principles
