// Chapter 59: no kernel of the ladder wins at every shape. Over chapter 58's 14 shapes on an H200, chapter 58's
// persistent split-K kernel (one 128 x 256 tile per SM) is ahead at the large squares and wherever C has fewer tiles
// than SMs, and chapter 55's (two 128 x 128 blocks per SM, which cover each other's epilogues) at the middle squares,
// the K-light shape and where TMA cannot describe the rows. Neither kernel's cost is modelled well enough to tell them
// apart in between, so this stage measures: at set-up, on the problem's own operands, it times each candidate kernel (a
// few repetitions), keeps the faster, and caches the choice per GPU, driver, SMs in use, build and shape class, half an
// octave per dimension (common/plan_cache.hpp, as cuBLASLt's algorithm search or FFTW's wisdom do); a later run of the
// same class reads the cache, and --replan measures again. The plan line names the choice and the times it came from.
// The launch runs the planned kernel; a shape no plan saw runs the first candidate. No kernel is new here.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gemm/gemm_plan.cuh"  // shape_class_half_octaves, PlannedShape
#include "gemm_tc/tc_workload.cuh"
#include "plan_cache.hpp"
#include "plan_search.cuh"

namespace gemm_by_shape {

using tut::gemm_tc::bf16;
using tut::gemm_tc::TcOperands;
using tut::gemm_tc::TcVariant;

class PlannedTcGemm {
 public:
  // candidates: the kernels to choose from, the default (a shape no plan saw) first.
  explicit PlannedTcGemm(std::vector<TcVariant> candidates) : candidates_(std::move(candidates)) {
    if (candidates_.empty()) throw std::logic_error("chapter 59: a plan needs at least one candidate");
  }

  // Every candidate's set-up for (m, n, k): the measured search and the launch may run any of them. The lines of
  // the candidates' own plans (chapter 58's split) are dropped: this stage's one line names the kernel it runs, and
  // --variant bf16-gemm-split-k prints chapter 58's.
  void set_up(int m, int n, int k) {
    const std::size_t lines = tut::plan_lines().size();
    for (const TcVariant& c : candidates_)
      if (c.setup) c.setup(m, n, k);
    tut::plan_lines().resize(lines);
  }

  // The plan for the operands' shape on this GPU, after set_up() and outside any timed run (the search overwrites C).
  void plan(const TcOperands& op) {
    tut::PlanRequest r;
    r.key = tut::plan_key_here("59 bf16 gemm " + tut::gemm::shape_class_half_octaves(op.m, op.n, op.k),
                               TUT_THIS_BUILD_ID());
    for (const TcVariant& c : candidates_) r.candidates.push_back(c.name);
    r.model = [&]() -> std::optional<tut::Plan> {
      if (op.m == 0 || op.n == 0 || op.k == 0)
        return tut::Plan{candidates_.front().name, "model: no products to multiply, nothing to measure"};
      return std::nullopt;  // the kernels' costs are not modelled: measure
    };
    r.measure = [&](const std::vector<std::string>& names) {
      std::vector<double> ms;
      for (const std::string& name : names) {
        const TcVariant& c = candidate(name);
        ms.push_back(tut::search_ms(
            [&](cudaStream_t s) { c.launch(op.m, op.n, op.k, op.alpha, op.A, op.B, op.beta, op.C, s); }));
      }
      return ms;
    };
    planned_ = {op.m, op.n, op.k, tut::choose_plan(r).choice};
  }

  // C = alpha A B^T + beta C with the kernel the plan chose at (m, n, k); the first candidate where no plan saw it.
  void run(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
           cudaStream_t stream) const {
    const TcVariant& c = planned_.at(m, n, k) ? candidate(planned_.choice) : candidates_.front();
    c.launch(m, n, k, alpha, A, B, beta, C, stream);
  }

  // The kernel run() takes at (m, n, k).
  const std::string& choice_at(int m, int n, int k) const {
    return planned_.at(m, n, k) ? planned_.choice : candidates_.front().name;
  }

 private:
  const TcVariant& candidate(const std::string& name) const {
    for (const TcVariant& c : candidates_)
      if (c.name == name) return c;
    throw std::logic_error("chapter 59's plan has no candidate " + name);
  }

  std::vector<TcVariant> candidates_;
  tut::gemm::PlannedShape planned_;
};

// The planned stage as a variant of the chapter program; `planned` is shared with the tests, which read its choice.
inline TcVariant as_variant(const std::string& name, const std::string& description,
                            std::shared_ptr<PlannedTcGemm> planned) {
  TcVariant v{name, description,
              [planned](int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
                        cudaStream_t stream) { planned->run(m, n, k, alpha, A, B, beta, C, stream); },
              90, false, [planned](int m, int n, int k) { planned->set_up(m, n, k); }};
  v.plan = [planned](const TcOperands& op) { planned->plan(op); };
  return v;
}

}  // namespace gemm_by_shape
