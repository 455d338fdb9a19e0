// The runner's Workload over one GEMM problem, shared by the FP32 SGEMM ladder (GemmProblem, chapters 20-29) and
// the tensor-core ladder (gemm_tc::TcProblem, chapters 50-59):
//   RunRecord                       the last run's shape and each variant's errors, for the summary
//   write_error_table(os, rec, ..)  the summary's error table (against cuBLAS and, where computed, the CPU)
//   ProblemWorkload<P, V, In>       set-up per variant, C poisoned before each run, the variant's launch or
//                                   cuBLAS, the check against both references, the bytes and flops of a run
//                                   (In: the element type of A and B; C is FP32, read too where beta != 0)
#pragma once

#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "gemm/gemm_check.hpp"
#include "gemm/gemm_workload.cuh"
#include "runner.cuh"

namespace tut::gemm {

struct ErrorRow {
  std::string variant;
  GemmErrors errors;
};
struct RunRecord {
  GemmDims dims{0, 0, 0};
  bool cpu_reference = false;
  std::vector<ErrorRow> rows;
};

// "Errors: ..." and one row per checked variant. cpu_words names the CPU reference ("the CPU FP64 reference").
void write_error_table(std::ostream& os, const RunRecord& rec, const std::string& cpu_words);

// A tuned SGEMM stage's plan on the problem's own operands (GemmVariant::plan); other ladders' variants have none.
template <class Variant, class Problem>
void plan_on(const Variant&, Problem&) {}
inline void plan_on(const GemmVariant& v, GemmProblem& p) {
  if (v.plan) v.plan(p.operands());
}

template <class Problem, class Variant, class InputElement>
class ProblemWorkload final : public Workload {
 public:
  ProblemWorkload(std::vector<Variant> variants, std::shared_ptr<RunRecord> record, float alpha, float beta,
                  std::string ladder)
      : variants_(std::move(variants)), record_(std::move(record)), alpha_(alpha), beta_(beta),
        ladder_(std::move(ladder)) {}

  std::size_t device_bytes(const Options& opt) const override {
    const GemmDims d = gemm_dims(opt);
    GemmProblem::validate(d.m, d.n, d.k);
    return Problem::device_bytes(static_cast<int>(d.m), static_cast<int>(d.n), static_cast<int>(d.k));
  }

  void prepare(const Options& opt, bool with_reference) override {
    const GemmDims d = gemm_dims(opt);
    GemmProblem::validate(d.m, d.n, d.k);
    problem_ = std::make_unique<Problem>(static_cast<int>(d.m), static_cast<int>(d.n), static_cast<int>(d.k), alpha_,
                                         beta_, opt.seed);
    if (with_reference) problem_->compute_references(true);
    *record_ = RunRecord{};
    record_->dims = d;
    record_->cpu_reference = problem_->has_cpu_reference();
  }

  void setup(const std::string& variant) override {
    for (const auto& v : variants_) {
      if (v.name != variant) continue;
      if (v.setup) v.setup(problem_->m(), problem_->n(), problem_->k());
      plan_on(v, *problem_);
    }
  }

  void poison(cudaStream_t stream) override { problem_->reset_c(stream); }

  void run(const std::string& variant, cudaStream_t stream) override {
    if (variant == "cublas") {
      problem_->run_cublas(stream);
      return;
    }
    for (const auto& v : variants_)
      if (v.name == variant) {
        problem_->run(v.launch, stream);
        return;
      }
    throw std::invalid_argument("unknown " + ladder_ + " variant " + variant);
  }

  CheckResult check(const std::string& variant) override {
    GemmErrors e = problem_->check(variant == "cublas");
    record_->rows.push_back({variant, e});
    return e.check;
  }

  Work work(const std::string&) const override {
    const double m = problem_->m(), n = problem_->n(), k = problem_->k();
    const double c_passes = problem_->beta() != 0.0f ? 2.0 : 1.0;  // C read (beta != 0) and written
    return {sizeof(InputElement) * (m * k + n * k) + sizeof(float) * c_passes * m * n, 2.0 * m * n * k};
  }

 private:
  std::vector<Variant> variants_;
  std::shared_ptr<RunRecord> record_;
  float alpha_, beta_;
  std::string ladder_;
  std::unique_ptr<Problem> problem_;
};

}  // namespace tut::gemm
