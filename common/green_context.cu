#include <cuda.h>  // the driver API's types only: its functions come from cudaGetDriverEntryPointByVersion
#include <cuda_runtime.h>

#include <map>
#include <string>
#include <utility>

#include "cli.hpp"
#include "cuda_check.cuh"
#include "green_context.cuh"

namespace tut {
namespace {

// A driver function by name, at the ABI of the header compiled against; nullptr where the driver lacks it.
template <class F>
F driver_entry(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status{};
  const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &fn, CUDA_VERSION, cudaEnableDefault, &status);
  if (e != cudaSuccess || status != cudaDriverEntryPointSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<F>(fn);
}

struct DriverApi {
  decltype(&cuDeviceGet) device_get = nullptr;
  decltype(&cuDeviceGetDevResource) get_resource = nullptr;
  decltype(&cuDevSmResourceSplitByCount) split = nullptr;
  decltype(&cuDevResourceGenerateDesc) generate_desc = nullptr;
  decltype(&cuGreenCtxCreate) create = nullptr;
  decltype(&cuCtxFromGreenCtx) to_context = nullptr;
  decltype(&cuCtxPushCurrent) push = nullptr;
  decltype(&cuCtxPopCurrent) pop = nullptr;
  decltype(&cuCtxGetCurrent) current = nullptr;
  bool complete() const {
    return device_get && get_resource && split && generate_desc && create && to_context && push && pop && current;
  }
};

const DriverApi& driver_api() {
  static const DriverApi api = [] {
    DriverApi a;
    a.device_get = driver_entry<decltype(a.device_get)>("cuDeviceGet");
    a.get_resource = driver_entry<decltype(a.get_resource)>("cuDeviceGetDevResource");
    a.split = driver_entry<decltype(a.split)>("cuDevSmResourceSplitByCount");
    a.generate_desc = driver_entry<decltype(a.generate_desc)>("cuDevResourceGenerateDesc");
    a.create = driver_entry<decltype(a.create)>("cuGreenCtxCreate");
    a.to_context = driver_entry<decltype(a.to_context)>("cuCtxFromGreenCtx");
    a.push = driver_entry<decltype(a.push)>("cuCtxPushCurrent");
    a.pop = driver_entry<decltype(a.pop)>("cuCtxPopCurrent");
    a.current = driver_entry<decltype(a.current)>("cuCtxGetCurrent");
    return a;
  }();
  return api;
}

struct Green {
  CUcontext context = nullptr;
  int sms = 0;
};

// One green context per (device, requested SMs) for the process's life: made once, so that the modules and
// function attributes a stage set up in it stay valid across the runner's calls.
std::map<std::pair<int, int>, Green>& greens() {
  static std::map<std::pair<int, int>, Green> g;
  return g;
}

// The SM count of the green context current on this thread (0: none is).
thread_local int current_green_sms = 0;

[[noreturn]] void unsupported(int sms, const std::string& why) {
  throw UsageError("--sms " + std::to_string(sms) + ": " + why);
}

Green make_green(int device, int sms) {
  const DriverApi& api = driver_api();
  if (!api.complete())
    unsupported(sms, "this driver has no green contexts (they need a CUDA 12.4 or newer driver); run without --sms");
  TUT_CUDA_CHECK(cudaFree(nullptr));  // the primary context exists before the green one retains it
  auto call = [&](CUresult r, const char* what) {
    if (r != CUDA_SUCCESS) unsupported(sms, std::string(what) + " failed (CUresult " + std::to_string(r) + ")");
  };
  CUdevice dev{};
  call(api.device_get(&dev, device), "cuDeviceGet");
  CUdevResource whole{};
  call(api.get_resource(dev, &whole, CU_DEV_RESOURCE_TYPE_SM), "cuDeviceGetDevResource(SM)");
  if (static_cast<unsigned>(sms) > whole.sm.smCount)
    unsupported(sms, "this GPU has " + std::to_string(whole.sm.smCount) + " SMs");
  // One group of at least `sms` SMs. Ignoring co-scheduling lowers the granularity (on sm_90 from 8 SMs, a GPC's
  // share, to 2), at the cost of large thread-block clusters; the driver may still round up, so the count it gives
  // is the one reported and used.
  CUdevResource group{}, rest{};
  unsigned groups = 1;
  call(api.split(&group, &groups, &whole, &rest, CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING,
                 static_cast<unsigned>(sms)),
       "cuDevSmResourceSplitByCount");
  if (groups != 1) unsupported(sms, "the driver cannot make a group of that many SMs");
  CUdevResourceDesc desc{};
  call(api.generate_desc(&desc, &group, 1), "cuDevResourceGenerateDesc");
  CUgreenCtx green{};
  call(api.create(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM), "cuGreenCtxCreate");
  Green g;
  call(api.to_context(&g.context, green), "cuCtxFromGreenCtx");
  g.sms = static_cast<int>(group.sm.smCount);
  return g;
}

}  // namespace

ScopedGreenContext::ScopedGreenContext(int device, int sms) {
  if (sms <= 0) return;
  auto& cache = greens();
  auto it = cache.find({device, sms});
  if (it == cache.end()) it = cache.emplace(std::make_pair(device, sms), make_green(device, sms)).first;
  if (driver_api().push(it->second.context) != CUDA_SUCCESS) unsupported(sms, "cuCtxPushCurrent failed");
  pushed_ = true;
  previous_sms_ = current_green_sms;
  sms_ = it->second.sms;
  current_green_sms = sms_;
}

ScopedGreenContext::~ScopedGreenContext() {
  if (!pushed_) return;
  CUcontext popped = nullptr;
  (void)driver_api().pop(&popped);  // no check: a destructor must not throw
  current_green_sms = previous_sms_;
}

int sm_count_in_use(int device) {
  if (current_green_sms > 0) return current_green_sms;
  int sms = 0;
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

}  // namespace tut
