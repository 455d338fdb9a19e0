// Chapter 35: chapter 34 tuned for sm_90: padded shared-memory buffers (no bank conflicts in the exchanges),
// 16-byte accesses for N = 8 and 16, and the launch shape chosen by measurement among the on-demand candidates
// below. Against cuFFT and cudaMemcpy; chapter 34's stage on demand.
#include <vector>

#include "../34-fft-high-radix/fft_high_radix.cuh"
#include "fft_chapter.cuh"
#include "fft_tuned.cuh"
#include "plan_cache.hpp"
#include "stage_plan.cuh"

namespace {
template <class S, fft_tuned::Twiddles kTw = fft_tuned::Twiddles::kTable>
tut::fft::FftVariant candidate(const std::string& name, const std::string& description, bool on_demand) {
  tut::fft::FftVariant v;
  v.name = name;
  v.description = description;
  v.min_log2n = fft_tuned::kMinLog2n;
  v.max_log2n = fft_tuned::kMaxLog2n;
  v.workspace_bytes = fft_tuned::workspace_bytes;
  if (kTw == fft_tuned::Twiddles::kTable) {
    v.setup = tut::fft::setup_twiddle_table;  // once per device, before any run (the launch only checks)
    v.forget_setup = tut::fft::discard_twiddle_table;  // this file's table (the test of the launch's refusal)
  }
  v.launch = fft_tuned::fft<S, kTw>;
  v.on_demand = on_demand;
  return v;
}

// One thread per signal up to N = 64 (fft_per_thread_kernel, 4096 / N signals per block at N = 32 and 64), the
// stage's two-pass shape with twiddles per butterfly beyond: a plan candidate at N = 32 and 64.
tut::fft::FftVariant per_thread_to_64() {
  tut::fft::FftVariant v = candidate<fft_tuned::StageShape, fft_tuned::Twiddles::kPowers>(
      "per-thread-64",
      "N=8..64: one thread per signal (N=32: 128, N=64: 64 signals per block), 16-byte loads, padded transposes; "
      "two-pass-t256-powers beyond",
      true);
  v.launch = fft_tuned::fft_per_thread_to_64<fft_tuned::StageShape, fft_tuned::Twiddles::kPowers>;
  return v;
}

// The stage: candidate()'s fields, launched through fft_tuned::fft_tuned, which picks the shape by length; the
// workload's setup() plans it for this GPU among stage_choice()'s candidates (stage_plan.cuh).
tut::fft::FftVariant stage() {
  tut::fft::FftVariant v = candidate<fft_tuned::StageShape, fft_tuned::kStageTwiddles>(
      "fft-tuned",
      "N=32..1024: chapter 34's two-pass plan (E = 8..64 values per thread), N=2048,4096: radix-16 passes; blocks of "
      "up to 256 threads (several signals for N<4096), padded exchanges, twiddles per butterfly (sincospif at powers "
      "of two, products for the rest); N=8,16: 256 signals per "
      "block, 16-byte loads; N>=8192: four-step",
      false);
  v.launch = fft_tuned::fft_tuned;
  v.plan = {"35 fft c2c", TUT_THIS_BUILD_ID(), fft_tuned::stage_choice};
  return v;
}
}  // namespace

// The stage first, then the tuning candidates (each covers every N; they differ for N = 32..4096 only).
std::vector<tut::fft::FftVariant> tuned_variants() {
  using fft_tuned::Shape;
  using fft_tuned::Twiddles;
  return {
      stage(),
      candidate<Shape<16, 256>>("e16-t256", "16 values per thread (radix-16 passes, 2-3 per N), 256-thread blocks, "
                                            "twiddle table (the first candidate for the stage)", true),
      candidate<Shape<16, 128>>("e16-t128", "e16-t256 with blocks of 128 threads (N=4096: 256)", true),
      candidate<Shape<32, 256>>("e32-t256",
                                "32 values per thread (radix-32 passes, 2-3 per N), blocks of up to 256 threads", true),
      candidate<Shape<8, 256>>("e8-t256", "8 values per thread (radix-8 passes, 2-4 per N), blocks of 256 threads",
                               true),
      candidate<Shape<0, 128>>("two-pass-t128",
                               "chapter 34's two passes (E = 8..64 values per thread), blocks of 128 threads", true),
      candidate<Shape<0, 256>>("twiddle-table", "the stage's shape up to N=1024 with the twiddle table", true),
      candidate<Shape<16, 256, 3>>("e16-t256-3blocks",
                                   "e16-t256 with __launch_bounds__(256, 3): at most 85 registers", true),
      candidate<Shape<16, 256>, Twiddles::kSincospif>("e16-t256-sincospif",
                                                      "e16-t256 with a sincospif per twiddle (the stage's N=2048, "
                                                      "4096 before twiddles per butterfly)",
                                                      true),
      candidate<fft_tuned::StageShape, Twiddles::kSincospif>(
          "two-pass-t256-sincospif",
          "the stage's shape up to N=1024 at every N, a sincospif per twiddle (the stage up to N=1024 before "
          "twiddles per butterfly)",
          true),
      candidate<Shape<16, 256>, Twiddles::kPowers>(
          "e16-t256-powers", "e16-t256 with twiddles per butterfly (the stage at N=2048, 4096 where its plan keeps it)",
          true),
      candidate<fft_tuned::StageShape, Twiddles::kPowers>(
          "two-pass-t256-powers",
          "the stage's shape up to N=1024 at every N, twiddles per butterfly (the stage's plan measures it against "
          "e16-t256-powers at N=32..4096)",
          true),
      candidate<Shape<0, 256, 0, true>, Twiddles::kPowers>(
          "staged-t256-powers",
          "two-pass-t256-powers with the block's signals loaded and stored as one contiguous run of 16-byte accesses "
          "through shared memory",
          true),
      candidate<fft_tuned::StagedShape, Twiddles::kPowers>(
          "staged-t256-4blocks",
          "staged-t256-powers with __launch_bounds__(256, 4): at most 64 registers (a plan candidate at N=32..1024)",
          true),
      candidate<fft_tuned::StagedStreamingShape, Twiddles::kPowers>(
          "staged-t256-streaming",
          "staged-t256-4blocks with the streaming cache hint on its 16-byte accesses (a plan candidate at N=32..1024)",
          true),
      candidate<Shape<0, 512, 0, true>, Twiddles::kPowers>(
          "staged-t512-powers", "staged-t256-powers with blocks of up to 512 threads", true),
      candidate<fft_tuned::StageShapeThreeBlocks, Twiddles::kPowers>(
          "two-pass-t256-3blocks",
          "two-pass-t256-powers with __launch_bounds__(256, 3): at most 85 registers (a plan candidate at N=32..1024)",
          true),
      per_thread_to_64(),
  };
}

// Chapter 34's stage, to compare in one run (on demand; chapter 34's tests check it, so neither test here has it).
// It reads the twiddle table of this file (common/fft/twiddle_table.cuh): its setup fills that one.
tut::fft::FftVariant previous_stage() {
  namespace k = fft_high_radix;
  tut::fft::FftVariant v;
  v.name = "fft-high-radix";
  v.description = "chapter 34's stage, to compare in one run (two passes up to N=4096, twiddle table)";
  v.min_log2n = k::kMinLog2n;
  v.max_log2n = k::kMaxLog2n;
  v.workspace_bytes = k::workspace_bytes;
  v.setup = tut::fft::setup_twiddle_table;
  v.forget_setup = tut::fft::discard_twiddle_table;
  v.launch = k::fft_high_radix;
  v.on_demand = true;
  return v;
}

tut::ChapterSpec chapter_spec() {
  std::vector<tut::fft::FftVariant> variants = tuned_variants();
  variants.push_back(previous_stage());
  return tut::fft::make_fft_chapter(
      "35-fft-tuned", "batched 1-D FFT tuned: signals per block, padded exchanges, 16-byte loads, launch shapes",
      variants);
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
