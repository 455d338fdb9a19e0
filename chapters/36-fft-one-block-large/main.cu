// Chapter 36: N = 8192 and 16384 in one block (dynamic shared memory opted in past 48 KiB), one read and one write
// of global memory, against chapter 35's four-step, cuFFT and cudaMemcpy. The stage dispatches by length:
// chapter 35's stage up to 4096, the one-block kernel at 8192 and 16384, chapter 35's four-step above.
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fft_chapter.cuh"
#include "fft_one_block_large.cuh"
#include "plan_cache.hpp"
#include "stage_plan.cuh"

namespace {
namespace large = fft_one_block_large;

tut::fft::FftVariant variant(const std::string& name, const std::string& description, int min_log2n, int max_log2n,
                             std::function<std::size_t(int, long long)> workspace, tut::fft::FftLaunch launch,
                             bool on_demand, std::function<void()> setup) {
  tut::fft::FftVariant v;
  v.name = name;
  v.description = description;
  v.min_log2n = min_log2n;
  v.max_log2n = max_log2n;
  v.workspace_bytes = std::move(workspace);
  v.launch = std::move(launch);
  v.on_demand = on_demand;
  v.setup = std::move(setup);  // run by the workload's setup(), before any checked, timed or profiled run
  return v;
}

// A launch-shape candidate: N = 8192 and 16384 only, on demand.
template <class Config>
tut::fft::FftVariant candidate(const std::string& name, const std::string& description) {
  return variant(name, description, large::kFirstLog2n, large::kLastLog2n, Config::workspace_bytes, Config::launch,
                 true, large::setup_fft_one_block_large);
}

}  // namespace

// The stage first (planned for this GPU by the workload's setup(): stage_plan.cuh), then chapter 35's stage and
// the launch-shape candidates (on demand; N = 8192 and 16384 only).
std::vector<tut::fft::FftVariant> large_variants() {
  tut::fft::FftVariant stage = variant(
      "fft-one-block-large",
      "N=8192,16384: one block per signal, E = 32 values per thread (radix 32.32.8 / 32.32.16), 256 / 512 threads, "
      "padded exchanges in dynamic shared memory, one read and one write; other N: chapter 35's stage",
      large::kMinLog2n, large::kMaxLog2n, large::stage_workspace_bytes, large::fft_one_block_large, false,
      large::setup_fft_one_block_large);
  stage.plan = {"36 fft c2c", TUT_THIS_BUILD_ID(), large::stage_choice};
  // Chapter 35's stage, for the comparison at the same lengths.
  const tut::fft::FftVariant previous = variant(
      "fft-tuned", "chapter 35's stage (N = 8192, 16384: four-step, two kernels through global memory)",
      fft_tuned::kMinLog2n, fft_tuned::kMaxLog2n, fft_tuned::workspace_bytes, fft_tuned::fft_tuned, true, {});
  return {
      stage,
      previous,
      candidate<large::E16>("e16", "E = 16 values per thread (four radix-16 passes, last 2 / 4), 512 / 1024 threads"),
      candidate<large::E32S2>("e32-s2", "the stage's E = 32 with two signals per block at N = 8192 (512 threads)"),
      candidate<large::E16S2>("e16-s2", "E = 16 with two signals per block at N = 8192 (1024 threads)"),
      candidate<large::E32Staged>("e32-staged",
                                  "the stage's shape with 16-byte global loads and stores staged through the buffer"),
      candidate<large::E32Sincospif>("e32-sincospif",
                                     "the stage's shape with one sincospif per twiddle, as before the stage "
                                     "computed them per butterfly"),
  };
}

// The variants with their one-time set-up done on the current device (for tests that launch directly).
std::vector<tut::fft::FftVariant> large_variants_set_up() {
  large::setup_fft_one_block_large();
  return large_variants();
}

tut::ChapterSpec chapter_spec() {
  return tut::fft::make_fft_chapter(
      "36-fft-one-block-large", "batched 1-D FFT, N = 8192 and 16384 in one block: dynamic shared memory past 48 KiB",
      large_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
