// GPU tests for chapter 32: the FFT-chapter tests (every length 8 to 2^24: the shared-memory kernel up to 4096,
// the global fallback above; batches 1, 3, 133 and a large one up to 2^16; known transforms; the command line).
#include "fft_chapter.cuh"

// main.cu's, from the chapter's library (its meson.build: main.cu compiles once).
std::vector<tut::fft::FftVariant> shared_memory_variants();
tut::ChapterSpec chapter_spec();

#include "fft_testing.cuh"

TUT_FFT_CHAPTER_TESTS(chapter_spec(), shared_memory_variants())
