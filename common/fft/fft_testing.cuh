// The tests every FFT chapter runs (chapters 30-38). A chapter's test.cu is `#include "main.cu"` (or, where main.cu
// is compiled once into a library the test links, declarations of the two functions: docs/harness.md) plus
// TUT_FFT_CHAPTER_TESTS(chapter_spec(), the_variants()).
//
// What they cover, for every variant (on-demand ones too) at every length it supports from 8 up to its
// maximum (lengths 2^17 .. 2^20 with batches 1 and 3 only, longer ones with one signal, to keep the CPU
// reference quick):
//   - random signals at batch counts 1, 3, 133 (none of which fills a grid) and a larger batch of about 2^22
//     elements, each signal's relative L2 error against the CPU double FFT held to fft_tolerance() with cuFFT's
//     worst error measured on the same input; output and workspace poisoned first; the input left intact;
//   - known transforms with exact answers: an impulse, a single tone, a constant (signals of one batch differ,
//     so a mix-up between signals shows);
//   - the chapter program's command line: a bad --length exits 2; --variant all at N = 256 runs and passes
//     its checks (not under a sanitizer, since the program also runs cuFFT);
//   - planted size bugs: batch + 1 and batch - 1 signals on buffers of batch (check_planted_batch_bugs);
//   - a tuned stage (one with a plan) runs as its plan for this GPU chooses (planned afresh for each case).
// Under a compute-sanitizer setup (TUT_SANITIZER set) lengths stop at 2^13, batches at 133 signals and 2^16
// elements, and cuFFT is not run (the tolerance is the floor alone), so that the tools check our kernels only.
#pragma once

#include <vector>

#include "fft_chapter.cuh"
#include "gpu_test.cuh"

namespace tut::fft::testing {

// The lengths (log2) a test covers for `v`, capped under a sanitizer.
std::vector<int> test_log2_lengths(const FftVariant& v);

// The batch counts tested at one length: 1, 3, 133 and about 2^22 / N (fewer for long N and under a sanitizer).
std::vector<long long> test_batches(int log2n);

// The batch counts for an on-demand variant a chapter checks beside its stage: 1, 3, 133 (a partial last block)
// and about 2^18 / N (odd), fewer than the stage's ~2^22 elements to keep the suite quick; under a sanitizer
// 1, 3 and 133 if within its 2^16 elements.
std::vector<long long> variant_batches(int log2n);

// Runs `v` on seeded random signals and CHECKs every signal against the CPU double FFT, every element written
// and finite, and the input untouched.
void check_random(const FftVariant& v, int log2n, long long batch);

// For a test that runs `v` its own way (another layout, an offset buffer): CHECKs `got`, the batch signals of
// 2^log2n it read back from a poisoned output, against the CPU double FFT of `input`: every element written,
// every signal within fft_tolerance(log2n, 0). `what` names the case in the message.
void check_output(const FftVariant& v, int log2n, long long batch, const std::vector<float2>& input,
                  const std::vector<float2>& got, const char* what);

// Impulses, single tones and constants with their exact transforms.
void check_known_transforms(const FftVariant& v, int log2n);

// Both of the above for every variant at every test length and batch.
void check_variants(const std::vector<FftVariant>& variants);
void check_variants_known(const std::vector<FftVariant>& variants);

// Planted size bugs in the real kernels: each variant launched with batch + 1 on buffers of batch signals (the
// output's guard must name the signal written past its end) and with batch - 1 (the last signal keeps the
// poison), at lengths up to 2^13 (one signal fits in the 64 KiB guard) and batches 1, 3, 133.
void check_planted_batch_bugs(const std::vector<FftVariant>& variants);

// A tuned stage's plan (FftVariant::plan, fft_plan.cuh). check_variants runs the stage as planned (never
// cached). This checks every candidate the plan may choose, at each length the stage is tested at where it has
// more than one (a length with one runs the stage's own launch), against the CPU double FFT at variant_batches
// (up to 2^24 elements) and the known transforms.
void check_plan_candidates(const FftVariant& stage);

// In a temporary TUT_PLAN_DIR, at the first of `lengths` (those test_log2_lengths keeps) where the stage has more
// than one candidate: a plan file naming a candidate the stage does not have, then one cut short, are each
// ignored with one line; the stage plans again (measuring: the model is left out, so that the file is read),
// caches a real candidate and reads it back the next time; that candidate runs right; and the chapter program
// (`spec`) with the bad file plans again and passes its check.
void check_stale_plan_ignored(const ChapterSpec& spec, const FftVariant& stage, const std::vector<int>& lengths);

// The chapter program rejects bad --length values with exit status 2.
void check_command_line(const ChapterSpec& spec);

}  // namespace tut::fft::testing

#define TUT_FFT_CHAPTER_TESTS(SPEC, VARIANTS)                                                                 \
  TEST_CASE("every variant matches the CPU double FFT at every supported length and batch") {                \
    tut::fft::testing::check_variants(VARIANTS);                                                             \
  }                                                                                                           \
  TEST_CASE("every variant gets the known transforms: impulse, single tone, constant") {                     \
    tut::fft::testing::check_variants_known(VARIANTS);                                                       \
  }                                                                                                           \
  TEST_CASE("the chapter program refuses bad lengths with exit 2") { tut::fft::testing::check_command_line(SPEC); } \
  TEST_CASE("planted bugs: batch + 1 signals hit the output's guard, batch - 1 leave the last unwritten") {     \
    tut::fft::testing::check_planted_batch_bugs(VARIANTS);                                                    \
  }
