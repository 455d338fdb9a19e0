// GPU tests for chapter 35: the FFT-chapter tests for the stage as its plan for this GPU runs it (every length 8
// to 2^20, batches 1, 3, 133 and a large one, which leave the last block of S signals partly empty; known
// transforms; the command line), every candidate its plan may choose, a stale plan file ignored, every tuning
// candidate where it differs from the stage (N = 32..4096), and the 8-byte path of N = 8 and 16 on buffers that
// are not 16-byte aligned.
#include <vector>

#include "cuda_check.cuh"
#include "device.cuh"
#include "device_buffer.cuh"
#include "fft_chapter.cuh"
#include "fft_testing.cuh"
#include "launch_testing.cuh"

// main.cu, compiled once into the units library: the test launches the kernels only through these variants
// (their setup and forget_setup reach main.cu's twiddle table) and compiles none of them itself.
std::vector<tut::fft::FftVariant> tuned_variants();  // the stage, then the tuning candidates
tut::ChapterSpec chapter_spec();

TUT_FFT_CHAPTER_TESTS(chapter_spec(), {tuned_variants().front()})

using tut::fft::testing::variant_batches;  // 1, 3, 133 and about 2^18 / N (common/fft/fft_testing.cuh)

// The candidates differ from the stage only for N = 32..4096 (the block regime); there each is checked at the
// batches above, plus the known transforms.
TEST_CASE("35: every tuning candidate matches the CPU double FFT for N = 32..4096") {
  tut::require_supported_gpu();
  const auto variants = tuned_variants();
  // Under compute-sanitizer: three lengths (two passes, three passes, the largest block) to keep it quick.
  const std::vector<int> lengths =
      tut::testing::under_sanitizer() ? std::vector<int>{5, 10, 12} : std::vector<int>{5, 6, 7, 8, 9, 10, 11, 12};
  for (std::size_t i = 1; i < variants.size(); ++i)
    for (int log2n : lengths) {
      for (long long batch : variant_batches(log2n))
        tut::fft::testing::check_random(variants[i], log2n, batch);
      tut::fft::testing::check_known_transforms(variants[i], log2n);
    }
}

TEST_CASE("35: the stage's plan: every candidate it may choose matches the CPU double FFT (N = 2048, 4096)") {
  tut::fft::testing::check_plan_candidates(tuned_variants().front());
}

TEST_CASE("35: a plan file naming no candidate of the stage, or cut short, is ignored with one line; it plans again") {
  tut::fft::testing::check_stale_plan_ignored(chapter_spec(), tuned_variants().front(), {11});
}

// Runs `v` at 2^log2n on buffers offset by one complex value (8-byte aligned, never 16) and checks the output.
void check_offset_buffers(const tut::fft::FftVariant& v, int log2n, long long batch) {
  const int n = 1 << log2n;
  const std::size_t count = static_cast<std::size_t>(batch) * n;
  const std::vector<float2> x = tut::fft::random_signals(count, tut::testing::test_seed() + 35 * batch + log2n);
  tut::DeviceBuffer<float2> in(count + 1), out(count + 1);
  TUT_CUDA_CHECK(cudaMemcpy(in.data() + 1, x.data(), count * sizeof(float2), cudaMemcpyHostToDevice));
  out.poison();
  tut::fft::set_up(v);
  v.launch(in.data() + 1, out.data() + 1, log2n, batch, nullptr, 0);
  TUT_CHECK_LAUNCH();
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float2> got(count);
  TUT_CUDA_CHECK(cudaMemcpy(got.data(), out.data() + 1, count * sizeof(float2), cudaMemcpyDeviceToHost));
  tut::fft::testing::check_output(v, log2n, batch, x, got, "buffers offset by one complex value");
}

TEST_CASE("35: N = 8 and 16 on buffers that are not 16-byte aligned (the 8-byte path)") {
  tut::require_supported_gpu();
  for (int log2n : {3, 4})
    for (long long batch : {1ll, 257ll, 1000ll})  // at most 16000 elements: fine under a sanitizer too
      check_offset_buffers(tuned_variants().front(), log2n, batch);
}

// per-thread-64 at N = 32 and 64 (128 and 64 signals per block) and the staged shapes (their direct twin on such
// buffers) at N = 32..128, at batches that leave the last block partly empty.
TEST_CASE("35: the 16-byte candidates on buffers that are not 16-byte aligned (their 8-byte paths)") {
  tut::require_supported_gpu();
  for (const auto& v : tuned_variants()) {
    if (v.name != "per-thread-64" && v.name.rfind("staged-", 0) != 0) continue;
    for (int log2n : {5, 6, 7})
      for (long long batch : {1ll, 65ll, 129ll, 257ll})  // at most 33000 elements
        check_offset_buffers(v, log2n, batch);
  }
}

TEST_CASE("35: a launch that needs the twiddle table throws until its setup has filled it on this device") {
  tut::require_supported_gpu();
  tut::fft::testing::check_launch_needs_setup(tuned_variants()[1], 5);
  tut::fft::testing::check_launch_needs_setup(tuned_variants()[1], 13);  // the four-step kernels read it too
}
