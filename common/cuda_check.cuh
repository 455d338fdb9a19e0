// Every CUDA runtime call and every launch goes through these checks.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tut {

// A CUDA runtime error, with the failing expression and where it was.
struct CudaError : std::runtime_error {
  cudaError_t code;
  CudaError(cudaError_t c, const std::string& msg) : std::runtime_error(msg), code(c) {}
};

// cudaMalloc could not satisfy a request: the problem does not fit in device memory.
struct DeviceOutOfMemory : CudaError {
  using CudaError::CudaError;
};

// No usable GPU (none present, driver too old, or compute capability below 7.5).
struct NoUsableGpu : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline std::string cuda_error_text(cudaError_t e, const char* expr, const char* file, int line) {
  return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ") in '" + expr + "' at " +
         file + ":" + std::to_string(line);
}

inline void check_cuda(cudaError_t e, const char* expr, const char* file, int line) {
  if (e == cudaSuccess) return;
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // clear the sticky-free allocation error so the context stays usable
    throw DeviceOutOfMemory(e, cuda_error_text(e, expr, file, line));
  }
  throw CudaError(e, cuda_error_text(e, expr, file, line));
}

}  // namespace tut

// Wrap every runtime call: TUT_CUDA_CHECK(cudaMemcpy(...));
#define TUT_CUDA_CHECK(expr) ::tut::check_cuda((expr), #expr, __FILE__, __LINE__)

// After every <<<...>>> launch: catches bad configurations (too many threads, too much shared memory).
// Errors raised while the kernel runs surface at the next synchronising call, which is checked too.
#define TUT_CHECK_LAUNCH() ::tut::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
