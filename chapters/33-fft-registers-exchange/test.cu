// GPU tests for chapter 33: the FFT-chapter tests for the stage (every length 8 to 2^20, batches 1, 3, 133 and a
// large one, known transforms, the command line), the half exchange for N = 32..4096 where it differs from the
// stage, and the article's pre-arranged kernel for N = 8 and 16 on pre-arranged data.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include <algorithm>
#include <cstring>
#include <vector>

#include "device.cuh"
#include "device_buffer.cuh"
#include "fft_testing.cuh"

TUT_FFT_CHAPTER_TESTS(chapter_spec(), {registers_exchange_variants().front()})

using tut::fft::testing::variant_batches;  // 1, 3, 133 and about 2^18 / N (common/fft/fft_testing.cuh)

TEST_CASE("33: the half exchange matches the CPU double FFT for N = 32..4096") {
  tut::require_supported_gpu();
  const auto half = registers_exchange_variants().back();
  for (int log2n = 5; log2n <= 12; ++log2n) {
    for (long long batch : variant_batches(log2n)) tut::fft::testing::check_random(half, log2n, batch);
    tut::fft::testing::check_known_transforms(half, log2n);
  }
}

namespace {
// The article's layout: within each block of W = min(256, signals left) signals, element r of the block's
// signal t sits at r * W + t.
std::size_t prearranged_index(long long batch, int n, long long signal, int r) {
  const long long block = signal / fft_registers_exchange::kPerThreadBlock;
  const long long first = block * fft_registers_exchange::kPerThreadBlock;
  const long long width = std::min<long long>(fft_registers_exchange::kPerThreadBlock, batch - first);
  return static_cast<std::size_t>(first * n + r * width + (signal - first));
}
}  // namespace

TEST_CASE("33: the pre-arranged kernel transforms pre-arranged signals (N = 8, 16)") {
  tut::require_supported_gpu();
  const auto variants = all_variants();
  const auto& pre = variants.back();
  REQUIRE(pre.name == "prearranged");
  for (int log2n : {3, 4}) {
    const int n = 1 << log2n;
    for (long long batch : {1ll, 3ll, 255ll, 256ll, 257ll, 133ll * 256 + 77}) {
      if (tut::testing::under_sanitizer() && batch * n > (1 << 16)) continue;  // the sanitizer setups' cap
      const std::size_t count = static_cast<std::size_t>(batch) * n;
      const std::vector<float2> x = tut::fft::random_signals(count, tut::testing::test_seed() + 33 * batch + log2n);
      std::vector<float2> arranged(count);
      for (long long s = 0; s < batch; ++s)
        for (int r = 0; r < n; ++r) arranged[prearranged_index(batch, n, s, r)] = x[s * n + r];
      tut::DeviceBuffer<float2> in(arranged), out(count);
      out.poison();
      tut::fft::set_up(pre);
      pre.launch(in.data(), out.data(), log2n, batch, nullptr, 0);
      TUT_CHECK_LAUNCH();
      TUT_CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<float2> got_arranged = out.download();
      std::vector<float2> got(count);
      for (long long s = 0; s < batch; ++s)
        for (int r = 0; r < n; ++r) got[s * n + r] = got_arranged[prearranged_index(batch, n, s, r)];
      tut::fft::testing::check_output(pre, log2n, batch, x, got, "pre-arranged signals");
    }
  }
}
