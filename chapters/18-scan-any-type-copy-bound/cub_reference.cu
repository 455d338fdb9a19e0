// cub::DeviceScan for chapter 18 (cub_reference.cuh).
#include "cub_reference.cuh"

#include <cub/device/device_scan.cuh>
#include <cuda/functional>

#include <cstdint>
#include <type_traits>

#include "cuda_check.cuh"

namespace copy_bound {

template <class S, class Op>
std::size_t cub_scan(void* workspace, std::size_t bytes, const S* in, S* out, std::size_t n, cudaStream_t stream) {
  const auto call = [&](auto count) {
    if constexpr (std::is_same_v<Op, scan_copy_bound::Sum>)
      return cub::DeviceScan::InclusiveSum(workspace, bytes, in, out, count, stream);
    else
      return cub::DeviceScan::InclusiveScan(workspace, bytes, in, out, cuda::maximum<>{}, count, stream);
  };
  if (n < (std::size_t{1} << 31)) TUT_CUDA_CHECK(call(static_cast<std::int32_t>(n)));
  else TUT_CUDA_CHECK(call(static_cast<std::int64_t>(n)));
  return bytes;
}

// ScanType<T, Op> for T in int32, uint32, int64, float, double and Op in Sum, Max.
#define COPY_BOUND_CUB_SCAN(S, OP)                                                                          \
  template std::size_t cub_scan<S, scan_copy_bound::OP>(void*, std::size_t, const S*, S*, std::size_t, \
                                                        cudaStream_t);
COPY_BOUND_CUB_SCAN(std::uint32_t, Sum)
COPY_BOUND_CUB_SCAN(std::uint64_t, Sum)
COPY_BOUND_CUB_SCAN(float, Sum)
COPY_BOUND_CUB_SCAN(double, Sum)
COPY_BOUND_CUB_SCAN(std::int32_t, Max)
COPY_BOUND_CUB_SCAN(std::uint32_t, Max)
COPY_BOUND_CUB_SCAN(std::int64_t, Max)
COPY_BOUND_CUB_SCAN(float, Max)
COPY_BOUND_CUB_SCAN(double, Max)
#undef COPY_BOUND_CUB_SCAN

}  // namespace copy_bound
