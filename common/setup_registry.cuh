// The per-device record of one-time set-up (Workload::setup, docs/harness.md).
//
// A stage's set-up (cudaFuncSetAttribute opt-ins, occupancy queries that size a grid) belongs to one device:
// attributes are set in that device's context, and two GPUs may have different SM counts. PerDevice<Plan>
// holds what a set-up function computed, one slot per device id:
//   setup_...()  on the current device: plans.ensure(make) runs make() once per device, cheap on repeat;
//   the launch:  plans.require("stage", "setup_...") returns the current device's plan, or throws
//                std::logic_error("stage: setup_...() was not called on device N") rather than doing the
//                set-up itself inside a timed or profiled launch.
// A lookup is one cudaGetDevice (no synchronisation) and one atomic load, so a launch can afford it. ensure()
// takes a mutex, so that host threads driving different GPUs may set up at the same time.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "cuda_check.cuh"

namespace tut {

inline int current_device() {
  int device = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

template <class Plan>
class PerDevice {
 public:
  static constexpr int kMaxDevices = 64;

  // The plan of `device`, or nullptr where set-up has not run on it.
  const Plan* find(int device) const {
    if (device < 0 || device >= kMaxDevices) return nullptr;
    const Slot& slot = slots_[device];
    return slot.ready.load(std::memory_order_acquire) ? &slot.plan : nullptr;
  }

  // The current device's plan: make() runs the first time only (make returns the Plan, and may set
  // attributes on the current device).
  template <class Make>
  const Plan& ensure(Make make) {
    const int device = current_device();
    if (const Plan* plan = find(device)) return *plan;
    if (device >= kMaxDevices)
      throw std::logic_error("PerDevice: device " + std::to_string(device) + " is beyond the " +
                             std::to_string(kMaxDevices) + " devices it records");
    const std::lock_guard<std::mutex> lock(mutex_);
    Slot& slot = slots_[device];
    if (!slot.ready.load(std::memory_order_relaxed)) {
      slot.plan = make();
      slot.ready.store(true, std::memory_order_release);  // the plan is complete before anyone reads it
    }
    return slot.plan;
  }

  // The current device's plan for a launch; throws when `setup_function` has not run on this device.
  const Plan& require(const char* stage, const char* setup_function) const {
    const int device = current_device();
    if (const Plan* plan = find(device)) return *plan;
    throw std::logic_error(std::string(stage) + ": " + setup_function + "() was not called on device " +
                           std::to_string(device));
  }

 private:
  struct Slot {
    std::atomic<bool> ready{false};
    Plan plan{};
  };
  std::array<Slot, kMaxDevices> slots_{};
  std::mutex mutex_;
};

// For set-up that computes nothing but must have happened (an attribute set): PerDevice<SetupDone>.
struct SetupDone {};

// The same record for set-up named by a run-time value (a kernel's address) rather than by a type: the set of
// (device, key) pairs whose set-up has run. For set-up code, not launches: every call takes a mutex.
class SetupKeys {
 public:
  // Runs step() on the current device unless it already ran there for `key`.
  template <class Step>
  void ensure(const void* key, Step step) {
    const std::pair<int, const void*> entry{current_device(), key};
    const std::lock_guard<std::mutex> lock(mutex_);
    if (done_.count(entry) != 0) return;
    step();
    done_.insert(entry);
  }

  // Throws std::logic_error("stage: setup_function() was not called on device N") unless `key`'s set-up ran
  // on the current device.
  void require(const void* key, const char* stage, const char* setup_function) const {
    const int device = current_device();
    const std::lock_guard<std::mutex> lock(mutex_);
    if (done_.count({device, key}) != 0) return;
    throw std::logic_error(std::string(stage) + ": " + setup_function + "() was not called on device " +
                           std::to_string(device));
  }

 private:
  mutable std::mutex mutex_;
  std::set<std::pair<int, const void*>> done_;
};

}  // namespace tut
