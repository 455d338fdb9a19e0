// Chapter 59: no kernel of the ladder wins at every shape. Over chapter 58's 14 shapes on an H200, chapter 58's
// persistent split-K kernel (one 128 x 256 tile per SM) is ahead at the large squares and wherever C has fewer tiles
// than SMs, and chapter 55's (two 128 x 128 blocks per SM, which cover each other's epilogues) at the middle squares,
// the K-light shape and where TMA cannot describe the rows. Neither kernel's cost is modelled well enough to tell them
// apart in between, so this stage measures: at set-up, on the problem's own operands, it times each candidate kernel (a
// few repetitions), keeps the faster, and caches the choice per GPU, driver, SMs in use, build and shape class, half an
// octave per dimension (common/plan_cache.hpp, as cuBLASLt's algorithm search or FFTW's wisdom do); a later run of the
// same class reads the cache, and --replan measures again. The plan line names the choice and the times it came from.
// The launch runs the planned kernel; a shape no plan saw runs the first candidate.
//
// Where K is no multiple of 8, no candidate can use TMA (a row must start on 16 bytes), and each would run chapter
// 54's kernel, which copies edge chunks element by element. This stage instead copies A and B, inside every run,
// into buffers whose rows are padded with zeros to K rounded up to 8 (pad_rows_kernel: one more read and write of
// A and B), and runs the candidates there; the zero columns add zero products. That copy is the one kernel new here.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "setup_registry.cuh"  // current_device
#include "gemm/gemm_plan.cuh"  // shape_class_half_octaves, PlannedShape
#include "gemm_tc/tc_workload.cuh"
#include "plan_cache.hpp"
#include "plan_search.cuh"

namespace gemm_by_shape {

using tut::gemm_tc::bf16;
using tut::gemm_tc::TcOperands;
using tut::gemm_tc::TcVariant;

// ---- K padded to a multiple of 8 -------------------------------------------------------------------------------
// TMA describes a row only when it starts on 16 bytes: K a multiple of 8 BF16 values (chapter 55's tma_describes).
inline constexpr int kPadKTo = 8;
inline bool needs_padded_k(int k) { return k > 0 && k % kPadKTo != 0; }
inline int padded_k(int k) { return (k + kPadKTo - 1) / kPadKTo * kPadKTo; }

// dst (rows x k8, k8 = padded_k(k)) = src (rows x k) with k8 - k zero columns after each row. Each thread writes one
// 16-byte chunk of 8 values; it reads them one by one, since a source row starts on 2 bytes only. Grid-stride, 64-bit
// indices: rows x k8 may pass 2^31 values.
__global__ void pad_rows_kernel(const bf16* __restrict__ src, bf16* __restrict__ dst, long long rows, int k, int k8) {
  const long long chunks_per_row = k8 / kPadKTo, chunks = rows * chunks_per_row;
  for (long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; c < chunks;
       c += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long row = c / chunks_per_row;
    const int col = static_cast<int>(c % chunks_per_row) * kPadKTo;
    alignas(16) bf16 chunk[kPadKTo];
#pragma unroll
    for (int j = 0; j < kPadKTo; ++j) chunk[j] = col + j < k ? src[row * k + col + j] : __ushort_as_bfloat16(0);
    *reinterpret_cast<uint4*>(dst + row * k8 + col) = *reinterpret_cast<const uint4*>(chunk);
  }
}

// The padded copies of A and B for one shape, on the current device: sized at set-up, never in a launch.
class PaddedOperands {
 public:
  // For (m, n, k): buffers of m x k8 and n x k8 values where K needs padding; none otherwise.
  void reserve(int m, int n, int k) {
    shape_ = {m, n, k};
    if (!needs_padded_k(k)) return;
    const int device = tut::current_device();
    const std::size_t a = static_cast<std::size_t>(m) * padded_k(k), b = static_cast<std::size_t>(n) * padded_k(k);
    if (a > a_.size() || a_.device() != device) a_ = std::move(tut::DeviceBuffer<bf16>(a).label("A padded to K8"));
    if (b > b_.size() || b_.device() != device) b_ = std::move(tut::DeviceBuffer<bf16>(b).label("B padded to K8"));
  }

  // Copies A and B into the padded buffers on `stream` and returns them; throws where set-up did not see (m, n, k).
  std::pair<const bf16*, const bf16*> pad(int m, int n, int k, const bf16* A, const bf16* B, cudaStream_t stream) {
    if (shape_ != std::array<int, 3>{m, n, k} || a_.device() != tut::current_device())
      throw std::logic_error("chapter 59: K = " + std::to_string(k) + " needs padded copies of A and B, and set-up "
                             "did not size them for " + std::to_string(m) + " x " + std::to_string(n) + " x " +
                             std::to_string(k) + " on this device");
    const int k8 = padded_k(k);
    constexpr int kThreads = 256;
    for (const auto& [src, dst, rows] : {std::make_tuple(A, a_.data(), m), std::make_tuple(B, b_.data(), n)}) {
      const long long chunks = static_cast<long long>(rows) * (k8 / kPadKTo);
      const long long blocks = std::min<long long>((chunks + kThreads - 1) / kThreads, 1LL << 20);
      pad_rows_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(src, dst, rows, k, k8);
      TUT_CHECK_LAUNCH();
    }
    return {a_.data(), b_.data()};
  }

 private:
  std::array<int, 3> shape_{-1, -1, -1};
  tut::DeviceBuffer<bf16> a_, b_;
};

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
    // The candidates run on the padded operands' shape: their set-up too (chapter 58 sizes its split there).
    if (needs_padded_k(k))
      for (const TcVariant& c : candidates_)
        if (c.setup) c.setup(m, n, padded_k(k));
    tut::plan_lines().resize(lines);
    padded_->reserve(m, n, k);
  }

  // The plan for the operands' shape on this GPU, after set_up() and outside any timed run (the search overwrites C).
  void plan(const TcOperands& op) {
    tut::PlanRequest r;
    r.key = tut::plan_key_here("59 bf16 gemm " + tut::gemm::shape_class_half_octaves(op.m, op.n, op.k) +
                                   (needs_padded_k(op.k) ? " K padded" : ""),
                               TUT_THIS_BUILD_ID());
    for (const TcVariant& c : candidates_) r.candidates.push_back(c.name);
    r.model = [&]() -> std::optional<tut::Plan> {
      if (op.m == 0 || op.n == 0 || op.k == 0)
        return tut::Plan{candidates_.front().name, "model: no products to multiply, nothing to measure"};
      return std::nullopt;  // the kernels' costs are not modelled: measure
    };
    // In alternating rounds: the candidates are within a few percent of each other, less than the clock's drift.
    r.measure = [&](const std::vector<std::string>& names) {
      std::vector<std::function<void(cudaStream_t)>> runs;
      for (const std::string& name : names) {
        const TcVariant& c = candidate(name);
        runs.push_back([&, c](cudaStream_t s) { launch(c, op.m, op.n, op.k, op.alpha, op.A, op.B, op.beta, op.C, s); });
      }
      return tut::search_ms_in_rounds(runs);
    };
    planned_ = {op.m, op.n, op.k, tut::choose_plan(r).choice};
  }

  // C = alpha A B^T + beta C with the kernel the plan chose at (m, n, k); the first candidate where no plan saw it.
  void run(int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta, float* C,
           cudaStream_t stream) const {
    const TcVariant& c = planned_.at(m, n, k) ? candidate(planned_.choice) : candidates_.front();
    launch(c, m, n, k, alpha, A, B, beta, C, stream);
  }

  // The kernel run() takes at (m, n, k).
  const std::string& choice_at(int m, int n, int k) const {
    return planned_.at(m, n, k) ? planned_.choice : candidates_.front().name;
  }

 private:
  // One candidate's run: on padded copies of A and B where K needs them, else on A and B.
  void launch(const TcVariant& c, int m, int n, int k, float alpha, const bf16* A, const bf16* B, float beta,
              float* C, cudaStream_t stream) const {
    if (!needs_padded_k(k) || m == 0 || n == 0) return c.launch(m, n, k, alpha, A, B, beta, C, stream);
    const auto [a, b] = padded_->pad(m, n, k, A, B, stream);
    c.launch(m, n, padded_k(k), alpha, a, b, beta, C, stream);
  }

  const TcVariant& candidate(const std::string& name) const {
    for (const TcVariant& c : candidates_)
      if (c.name == name) return c;
    throw std::logic_error("chapter 59's plan has no candidate " + name);
  }

  std::vector<TcVariant> candidates_;
  tut::gemm::PlannedShape planned_;
  std::shared_ptr<PaddedOperands> padded_ = std::make_shared<PaddedOperands>();  // run() is const; the copies are not
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
