// What the SGEMM stages' plans per GPU share (chapters 27-29, docs/tuning-per-gpu.md): the shape class their keys
// name, the timing of one candidate on a problem's operands, and the record of the plan a stage made last, which
// its launch looks up (a launch never plans: a shape no plan saw runs the stage's model choice).
#pragma once

#include <cstdint>
#include <string>

#include "gemm/gemm_workload.cuh"
#include "plan_search.cuh"

namespace tut::gemm {

// "M 2^a N 2^b K 2^c", each the octave of one dimension: one plan serves the shapes of one class.
inline std::string shape_class(int m, int n, int k) {
  auto octave = [](int v) { return size_class(v > 0 ? static_cast<std::uint64_t>(v) : 0); };
  return "M " + octave(m) + " N " + octave(n) + " K " + octave(k);
}

// v's half octave, "2^a" or "2^a.5": 2^a <= v < 2^a sqrt 2, or 2^a sqrt 2 <= v < 2^(a+1) (exact, in integers).
inline std::string half_octave(int v) {
  const std::uint64_t u = v > 0 ? static_cast<std::uint64_t>(v) : 0;
  int a = 0;
  while ((u >> (a + 1)) != 0) ++a;
  const bool upper = u > 0 && u * u >= (std::uint64_t{1} << (2 * a + 1));  // v >= 2^a sqrt 2
  return "2^" + std::to_string(a) + (upper ? ".5" : "");
}

// As shape_class, to half an octave per dimension: a stage whose best kernel changes within an octave (chapter 59:
// 4096^3 and 6144^3, 512^3 and 1000^3) keeps one plan per half.
inline std::string shape_class_half_octaves(int m, int n, int k) {
  return "M " + half_octave(m) + " N " + half_octave(n) + " K " + half_octave(k);
}

// One candidate's median milliseconds on the problem's operands (it overwrites C: the runner and the tests reset C
// before every checked run).
inline double search_ms(const GemmLaunch& launch, const GemmOperands& op) {
  return tut::search_ms([&](cudaStream_t s) { launch(op.m, op.n, op.k, op.alpha, op.A, op.B, op.beta, op.C, s); });
}

// The shape a stage planned last and what its plan chose there: the launch runs that choice where at(m, n, k),
// the model's choice elsewhere.
struct PlannedShape {
  int m = -1, n = -1, k = -1;
  std::string choice;
  bool at(int mm, int nn, int kk) const { return mm == m && nn == n && kk == k; }
};

}  // namespace tut::gemm
