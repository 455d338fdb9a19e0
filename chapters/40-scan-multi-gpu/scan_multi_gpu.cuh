// Chapter 40: the inclusive scan of one array split over several GPUs, one shard per GPU.
//
// A GPU cannot write any element of its shard before it knows the sum of every shard before it, and that sum
// needs a read of those shards. So the scan runs in three steps (reduce-then-scan at the scale of GPUs,
// chapter 13's idea one level up):
//   1. every GPU but the last reduces its shard to one word (cub::DeviceReduce::Sum);
//   2. the P words are exchanged with one NCCL collective (ncclAllGather of one word per GPU), so every GPU
//      holds every shard's total; the host reads them back and each GPU's carry is the sum of the totals
//      before it (uint32 arithmetic: wraps like the sums);
//   3. every GPU scans its shard with chapter 17's single-pass kernel, passing the carry through its carry_in
//      (the kernel is included, not copied); or, the copy-bound variant (ShardScan), with chapter 18's int32-sum
//      stage and its CarryIn.
// On one GPU only step 3 runs, with carry 0: the one-GPU time is the best single-GPU scan of the tutorial.
// The split is even unless asked otherwise (Split::last_weight): the last GPU, which does not reduce, may take
// more.
//
// The exchange is an interface (TotalsExchange): NcclAllGather is the lesson's; DeviceGather is a
// collective-free stand-in with the same result, for shards that share one GPU (NCCL refuses two ranks on one
// device), so the shard and carry logic is tested at any P on a single GPU.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cub/device/device_reduce.cuh>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "shard_plan.hpp"  // Split: which elements each shard (or rank) holds
#include "scan_lookback_landing_zone.cuh"  // chapter 17: the single-pass scan with carry_in
#include "../18-scan-any-type-copy-bound/scan_copy_bound.cuh"  // chapter 18: its int32-sum stage, with CarryIn

namespace scan_multi_gpu {

namespace single_pass = scan_lookback_landing_zone;
namespace copy_bound = scan_copy_bound;

// ---- NCCL errors ---------------------------------------------------------------------------------------
// A failing NCCL call, named: the program prints what() on one line and exits 1.
struct NcclError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void check_nccl(ncclResult_t result, const char* expr, const char* file, int line) {
  if (result == ncclSuccess) return;
  throw NcclError(std::string("NCCL error ") + ncclGetErrorString(result) + " in '" + expr + "' at " + file + ":" +
                  std::to_string(line));
}
#define TUT_NCCL_CHECK(expr) ::scan_multi_gpu::check_nccl((expr), #expr, __FILE__, __LINE__)

// "2.28.9" for the NCCL library this program loaded.
inline std::string nccl_version_text() {
  int code = 0;
  TUT_NCCL_CHECK(ncclGetVersion(&code));
  // Codes are X*10000 + Y*100 + Z since 2.9 (X*1000 + Y*100 + Z before).
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? code / 100 % 100 : code / 100 % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

// ---- The split: Split, in shard_plan.hpp (plain C++: the rank form's host tests use it) -------------------

// ---- Step 1: a shard's total (CUB's reduce, in uint32 so that the sum wraps) -----------------------------
// 32-bit item counts below 2^31 (CUB's fastest path, as in scan_reference.cu), 64-bit beyond.
inline std::size_t reduce_workspace_bytes(std::size_t count) {
  std::size_t bytes = 0;
  const std::uint32_t* in = nullptr;
  std::uint32_t* out = nullptr;
  if (count < (std::size_t{1} << 31))
    TUT_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, in, out, static_cast<std::int32_t>(count)));
  else
    TUT_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, in, out, static_cast<std::int64_t>(count)));
  return bytes;
}

// Enqueues total = in[0] + ... + in[count - 1] (0 for an empty shard) on `stream` of the current device.
inline void reduce_shard(const std::int32_t* in, std::size_t count, std::uint32_t* total, void* workspace,
                         std::size_t workspace_bytes, cudaStream_t stream) {
  if (count == 0) {
    TUT_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof *total, stream));
    return;
  }
  const auto* in32 = reinterpret_cast<const std::uint32_t*>(in);  // int32 and uint32 may alias
  if (count < (std::size_t{1} << 31))
    TUT_CUDA_CHECK(cub::DeviceReduce::Sum(workspace, workspace_bytes, in32, total, static_cast<std::int32_t>(count),
                                          stream));
  else
    TUT_CUDA_CHECK(cub::DeviceReduce::Sum(workspace, workspace_bytes, in32, total, static_cast<std::int64_t>(count),
                                          stream));
}

// ---- Step 3's scan of one shard: chapter 17's (the lesson's) or chapter 18's -----------------------------------
enum class ShardScan {
  kLandingZone,  // chapter 17's stage (carry_in)
  kCopyBound,    // chapter 18's stage for int32 sums (CarryIn), run on uint32 so that the sums wrap
};
using CopyBoundTuning = copy_bound::StageTuning<copy_bound::ScanType<std::int32_t, copy_bound::Sum>, copy_bound::Sum>;

// Both scans' one-time set-up on the current device (idempotent): every shard's GPU, before any run.
inline void setup_shard_scans() {
  single_pass::setup_inclusive_scan();
  copy_bound::setup_scan<CopyBoundTuning, /*WithCarry=*/true>();  // step 3 always passes a carry (0 on one GPU)
}

inline std::size_t scan_workspace_bytes(std::size_t count) {
  const std::size_t landing_zone = single_pass::workspace_bytes(count);
  const std::size_t copy_bound_bytes = copy_bound::workspace_bytes_for<CopyBoundTuning>(count);
  return landing_zone > copy_bound_bytes ? landing_zone : copy_bound_bytes;
}

// Enqueues out = carry + the inclusive scan of in (wrapping) with `which` on `stream` of the current device.
inline void scan_with_carry(ShardScan which, const std::int32_t* in, std::int32_t* out, std::size_t count,
                            void* workspace, cudaStream_t stream, std::int32_t carry) {
  if (which == ShardScan::kLandingZone) {
    single_pass::inclusive_scan(in, out, count, workspace, stream, carry);
    return;
  }
  using U = CopyBoundTuning::Value;  // int32 and uint32 may alias
  copy_bound::inclusive_scan_with<CopyBoundTuning>(reinterpret_cast<const U*>(in), reinterpret_cast<U*>(out), count,
                                                   workspace, stream, nullptr,
                                                   copy_bound::CarryIn<U>{static_cast<U>(carry), true});
}

// ---- One shard: where it lives and what it uses ----------------------------------------------------------
struct Shard {
  int device = 0;
  cudaStream_t stream = nullptr;     // every step of this shard runs in order on it
  const std::int32_t* in = nullptr;  // this shard's elements, on `device`
  std::int32_t* out = nullptr;
  std::size_t count = 0;
  void* workspace = nullptr;  // shared by the reduce and the scan: they run one after the other on `stream`
  std::size_t workspace_bytes = 0;
  std::uint32_t* total = nullptr;        // device, 1 word: this shard's sum (what it sends)
  std::uint32_t* totals = nullptr;       // device, P words: every shard's sum (what it receives)
  std::uint32_t* totals_host = nullptr;  // pinned host, P words: `totals` read back for the carry
  // Where this shard sits among all P (the rank form holds one shard of P in each process): its index and P.
  // -1 and 0: a vector of shards is all of them, in order (the one-process form).
  int index = -1;
  int shard_count = 0;
};

// Shard p of `shards` among all of them, and their number P: the vector's own when its shards say nothing.
inline int global_index(const std::vector<Shard>& shards, std::size_t p) {
  return shards[p].index >= 0 ? shards[p].index : static_cast<int>(p);
}
inline int shard_count_of(const std::vector<Shard>& shards) {
  return !shards.empty() && shards[0].shard_count > 0 ? shards[0].shard_count : static_cast<int>(shards.size());
}

// Workspace bytes a shard of `count` elements needs (the larger of the reduce's and either scan's).
inline std::size_t shard_workspace_bytes(std::size_t count) {
  const std::size_t scan = scan_workspace_bytes(count);
  const std::size_t reduce = reduce_workspace_bytes(count);
  return scan > reduce ? scan : reduce;
}

// ---- Step 2: the exchange -------------------------------------------------------------------------------
// Enqueues, on every shard's stream after what is already there, the copy of every shard's `total` into every
// shard's `totals` (totals[q] = shard q's total).
class TotalsExchange {
 public:
  virtual ~TotalsExchange() = default;
  virtual void enqueue(const std::vector<Shard>& shards) = 0;
};

// One communicator per GPU, created together by one process (ncclCommInitAll). NCCL_NVLS_ENABLE=0 keeps
// NVLink multicast (NVLS) out unless the user set the variable: one word per GPU gains nothing from it.
class NcclCommunicators {
 public:
  explicit NcclCommunicators(const std::vector<int>& devices) : comms_(devices.size(), nullptr) {
    setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
    TUT_NCCL_CHECK(ncclCommInitAll(comms_.data(), static_cast<int>(devices.size()), devices.data()));
  }
  ~NcclCommunicators() {
    for (ncclComm_t c : comms_)
      if (c) ncclCommDestroy(c);  // no check: a destructor must not throw
  }
  NcclCommunicators(const NcclCommunicators&) = delete;
  NcclCommunicators& operator=(const NcclCommunicators&) = delete;
  ncclComm_t operator[](std::size_t rank) const { return comms_[rank]; }
  std::size_t size() const { return comms_.size(); }

 private:
  std::vector<ncclComm_t> comms_;
};

// The lesson's exchange: one ncclAllGather of one uint32 per GPU. One process drives every rank, so the calls
// are grouped (ncclGroupStart/End): NCCL launches them together instead of waiting in the first for the others.
class NcclAllGather final : public TotalsExchange {
 public:
  explicit NcclAllGather(const NcclCommunicators& comms) : comms_(comms) {}
  void enqueue(const std::vector<Shard>& shards) override {
    if (shards.size() != comms_.size()) throw std::logic_error("NcclAllGather: one communicator per shard");
    TUT_NCCL_CHECK(ncclGroupStart());
    for (std::size_t p = 0; p < shards.size(); ++p)
      TUT_NCCL_CHECK(ncclAllGather(shards[p].total, shards[p].totals, 1, ncclUint32, comms_[p], shards[p].stream));
    TUT_NCCL_CHECK(ncclGroupEnd());
  }

 private:
  const NcclCommunicators& comms_;
};

// The rank form's exchange: this process's one rank of a communicator made by ncclCommInitRank (rank_form.cuh)
// with the other processes. One call per process, so no group.
class NcclRankAllGather final : public TotalsExchange {
 public:
  explicit NcclRankAllGather(ncclComm_t comm) : comm_(comm) {}
  void enqueue(const std::vector<Shard>& shards) override {
    if (shards.size() != 1) throw std::logic_error("NcclRankAllGather: one shard per rank");
    TUT_CUDA_CHECK(cudaSetDevice(shards[0].device));
    TUT_NCCL_CHECK(ncclAllGather(shards[0].total, shards[0].totals, 1, ncclUint32, comm_, shards[0].stream));
  }

 private:
  ncclComm_t comm_;
};

// Collective-free stand-in: P x P one-word copies, each ordered after the reduce of the shard it reads (an
// event). Works for shards on one device (where NCCL cannot run two ranks) and, through unified addressing,
// across devices; used to test the shard and carry logic at any P on one GPU.
class DeviceGather final : public TotalsExchange {
 public:
  ~DeviceGather() override {
    for (cudaEvent_t e : reduced_) cudaEventDestroy(e);
  }
  void enqueue(const std::vector<Shard>& shards) override {
    while (reduced_.size() < shards.size()) {  // events are created on the shard's device
      TUT_CUDA_CHECK(cudaSetDevice(shards[reduced_.size()].device));
      cudaEvent_t e = nullptr;
      TUT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      reduced_.push_back(e);
    }
    for (std::size_t p = 0; p < shards.size(); ++p) {
      TUT_CUDA_CHECK(cudaSetDevice(shards[p].device));
      TUT_CUDA_CHECK(cudaEventRecord(reduced_[p], shards[p].stream));
    }
    for (std::size_t q = 0; q < shards.size(); ++q) {
      TUT_CUDA_CHECK(cudaSetDevice(shards[q].device));
      for (std::size_t p = 0; p < shards.size(); ++p) {
        TUT_CUDA_CHECK(cudaStreamWaitEvent(shards[q].stream, reduced_[p], 0));
        TUT_CUDA_CHECK(cudaMemcpyAsync(shards[q].totals + p, shards[p].total, sizeof(std::uint32_t),
                                       cudaMemcpyDefault, shards[q].stream));
      }
    }
  }

 private:
  std::vector<cudaEvent_t> reduced_;  // one per shard; reused run after run
};

// ---- The three steps ----------------------------------------------------------------------------------------
// Step 1 on every shard but the last of all P (nothing comes after it, so its total is never needed; its
// `total` word is whatever the caller left there: zero it once at setup).
inline void enqueue_shard_totals(const std::vector<Shard>& shards) {
  for (std::size_t p = 0; p < shards.size(); ++p) {
    if (global_index(shards, p) + 1 >= shard_count_of(shards)) continue;
    const Shard& s = shards[p];
    TUT_CUDA_CHECK(cudaSetDevice(s.device));
    reduce_shard(s.in, s.count, s.total, s.workspace, s.workspace_bytes, s.stream);
  }
}

// Step 2's second half: each shard's received totals back to the host (P words), for the carry.
inline void enqueue_totals_download(const std::vector<Shard>& shards) {
  for (const Shard& s : shards) {
    TUT_CUDA_CHECK(cudaSetDevice(s.device));
    TUT_CUDA_CHECK(cudaMemcpyAsync(s.totals_host, s.totals, shard_count_of(shards) * sizeof(std::uint32_t),
                                   cudaMemcpyDeviceToHost, s.stream));
  }
}

// The carry of shard p: the sum of the totals of the shards before it (wrapping).
inline std::int32_t carry_of(const Shard& s, int p) {
  std::uint32_t carry = 0;
  for (int q = 0; q < p; ++q) carry += s.totals_host[q];
  return static_cast<std::int32_t>(carry);
}

// Step 3: as soon as shard p's totals are on the host, its scan with its carry. The kernel takes the carry
// by value, so the host waits for each shard's totals before it launches that shard's scan.
// before_scan(p), if given, runs just before shard p's scan is enqueued (the program records an event there).
template <class BeforeScan>
inline void scan_shards_with_carries(const std::vector<Shard>& shards, BeforeScan before_scan,
                                     ShardScan which = ShardScan::kLandingZone) {
  for (std::size_t p = 0; p < shards.size(); ++p) {
    const Shard& s = shards[p];
    TUT_CUDA_CHECK(cudaSetDevice(s.device));
    TUT_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    before_scan(p);
    scan_with_carry(which, s.in, s.out, s.count, s.workspace, s.stream, carry_of(s, global_index(shards, p)));
  }
}

// The whole scan over the shards (in order: shard 0 holds the first elements), each shard's with `which`.
// Returns with every shard's scan enqueued on its stream; the caller synchronises. One shard of one: the
// single-pass scan alone, carry 0. In the rank form `shards` is this process's one shard of P, and `exchange`
// its rank's all-gather: the same three steps.
inline void inclusive_scan(const std::vector<Shard>& shards, TotalsExchange& exchange,
                           ShardScan which = ShardScan::kLandingZone) {
  if (shard_count_of(shards) == 1) {
    const Shard& s = shards[0];
    TUT_CUDA_CHECK(cudaSetDevice(s.device));
    scan_with_carry(which, s.in, s.out, s.count, s.workspace, s.stream, 0);
    return;
  }
  enqueue_shard_totals(shards);
  exchange.enqueue(shards);
  enqueue_totals_download(shards);
  scan_shards_with_carries(shards, [](std::size_t) {}, which);
}

}  // namespace scan_multi_gpu
