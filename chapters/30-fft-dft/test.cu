// GPU tests for chapter 30: the FFT-chapter tests (every length 8 to 2^14, batches 1, 3, 133 and a large one,
// known transforms, the command line).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "fft_testing.cuh"

TUT_FFT_CHAPTER_TESTS(chapter_spec(), dft_variants())
