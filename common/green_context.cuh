// --sms N: run everything on N SMs of the GPU, in a green context (CUDA driver API, sm_60 and newer drivers
// from CUDA 12.4). docs/tuning-per-gpu.md, "Testing without the other card", tells why and how.
//
// How it works: the green context is made current on the calling thread (cuCtxFromGreenCtx, then
// cuCtxPushCurrent), as PyTorch's GreenContext.set_context() does. The runtime API uses the context current on
// its thread, so every kernel this process then launches runs on the green context's SMs: the stage's, CUB's
// and cuBLAS's and cuFFT's (their handles and plans made after it), and the copy kernel of a device-to-device
// cudaMemcpy (the runner's cudaMemcpy row at a small --sms shows whether the copy is restricted too). Memory is
// shared with the primary context: buffers made before or after are the same. The driver's entry points come
// through cudaGetDriverEntryPointByVersion, so the harness still does not link libcuda.
#pragma once

#include <string>

namespace tut {

// Makes a green context of `sms` SMs of `device` current on this thread for the scope of the object; gives the
// previous context back at its end. sms == 0: does nothing. Throws UsageError (exit 2, one line) where green
// contexts are not available (driver too old, a GPU or SM count the driver cannot split) or sms is more than the
// GPU has.
class ScopedGreenContext {
 public:
  ScopedGreenContext(int device, int sms);
  ~ScopedGreenContext();
  ScopedGreenContext(const ScopedGreenContext&) = delete;
  ScopedGreenContext& operator=(const ScopedGreenContext&) = delete;
  // The SMs the context holds (the driver may round the request up to its granularity); 0 when inactive.
  int sm_count() const { return sms_; }

 private:
  int sms_ = 0;
  int previous_sms_ = 0;
  bool pushed_ = false;
};

// The SMs that kernels of this thread run on now: a current green context's, else the whole device's. Stages
// that size grids or models by the SM count call this, not cudaDevAttrMultiProcessorCount (which a green
// context does not change).
int sm_count_in_use(int device = 0);

}  // namespace tut
