// GPU tests for chapter 34: the FFT-chapter tests for both twiddle sources (every length 8 to 2^20, batches 1,
// 3, 133 and a large one, known transforms, the command line).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "fft_testing.cuh"

TUT_FFT_CHAPTER_TESTS(chapter_spec(), high_radix_variants())
