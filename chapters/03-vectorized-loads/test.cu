// GPU tests for chapter 03: every copy against its input at sizes that leave every possible head and
// tail, at every offset, plus a copy between pointers of different alignment (the scalar fallback).
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gpu_test.cuh"

using tut::testing::adversarial_sizes;
using tut::testing::check_all_variants;

namespace {

// 0..5 (no vector at all, one int4 plus a tail, ...), warp and block edges, odd tails, 2^20 +- 1 and a
// size well past the L2 with a tail of 3.
std::vector<std::uint64_t> copy_sizes() {
  return adversarial_sizes({3, 4, 5, 7, 13, 4099, (1u << 20) + 3, (1u << 26) + 3});
}

}  // namespace

TEST_CASE("03: every copy matches its input at adversarial sizes and offsets 0..3") {
  for (long long offset : {0LL, 1LL, 2LL, 3LL}) {
    CAPTURE(offset);
    check_all_variants(chapter_spec(), copy_sizes(), {{"offset", offset}});
  }
}

TEST_CASE("03: every copy is correct past 2^31 elements (64-bit indexing)") {
  // Needs about 16 GiB of device memory; check_all_variants skips it with a message where that is missing.
  check_all_variants(chapter_spec(), {(1ull << 31) + 5}, {{"offset", 1}});
}

TEST_CASE("03: src and dst of different alignment fall back to 32-bit accesses and stay correct") {
  namespace vc = vectorized_copy;
  const std::size_t n = 4097;
  const std::vector<Element> input = tut::random_integers<Element>(n + 8, tut::testing::test_seed());
  tut::DeviceBuffer<Element> src(input), dst(n + 8);
  const vc::ResidentBlocks resident = vc::query_resident_blocks();
  for (std::size_t src_offset = 0; src_offset < 4; ++src_offset)
    for (std::size_t dst_offset = 0; dst_offset < 4; ++dst_offset)
      for (vc::Width w : {vc::Width::int2, vc::Width::int4})
        for (vc::Shape shape : {vc::Shape::slides, vc::Shape::tuned}) {
          CAPTURE(src_offset);
          CAPTURE(dst_offset);
          CAPTURE(static_cast<int>(w));
          const Element* s = src.data() + src_offset;
          Element* d = dst.data() + dst_offset;
          // int4 needs equal offsets mod 4 elements, int2 equal offsets mod 2.
          const bool vector_path = (src_offset % static_cast<int>(w)) == (dst_offset % static_cast<int>(w));
          CHECK(vc::can_vectorize(s, d, w) == vector_path);
          CHECK((vc::kernel_for(s, d, w) == vc::copy_int32_kernel) == !vector_path);
          dst.poison();
          vc::copy(s, d, static_cast<std::int64_t>(n), w, shape, resident, 0);
          TUT_CUDA_CHECK(cudaDeviceSynchronize());
          const std::vector<Element> got = dst.download();
          CHECK(tut::compare_exact(input.data() + src_offset, got.data() + dst_offset, n).ok);
        }
}

TEST_CASE("03: the launch shapes") {
  namespace vc = vectorized_copy;
  // The slides: 128 threads, ceil(items / 128) blocks up to 65535; one block even for a 3-element tail.
  CHECK(vc::slides_shape(3, vc::Width::int4).blocks == 1);
  CHECK(vc::slides_shape(1 << 20, vc::Width::int32).blocks == 8192);
  CHECK(vc::slides_shape(1 << 20, vc::Width::int4).blocks == 2048);
  CHECK(vc::slides_shape(1ll << 30, vc::Width::int32).blocks == 65535);
  CHECK(vc::slides_shape(1 << 20, vc::Width::int2).threads == 128);
  // Tuned: 256 threads, never more blocks than are resident at once.
  CHECK(vc::tuned_shape(1ll << 30, vc::Width::int4, 2112).blocks == 2112);
  CHECK(vc::tuned_shape(1000, vc::Width::int4, 2112).blocks == 1);
  CHECK(vc::tuned_shape(1000, vc::Width::int4, 2112).threads == 256);
}

TEST_CASE("03: the command line on a GPU") {
  const auto spec = chapter_spec();
  using tut::testing::run_chapter_with;
  CHECK(run_chapter_with(spec, {"--offset", "4"}) == 2);   // offsets are 0..3
  CHECK(run_chapter_with(spec, {"--offset", "-1"}) == 2);
  CHECK(run_chapter_with(spec, {"--size", "2^45"}) == 2);  // does not fit in device memory
  CHECK(run_chapter_with(spec, {"--size", "1M", "--offset", "3", "--reps", "3"}) == 0);
  CHECK(run_chapter_with(spec, {"--size", "2^20+3", "--reps", "2", "--format", "csv"}) == 0);
  CHECK(run_chapter_with(spec, {"--size", "1M", "--profile", "--variant", "int4"}) == 0);
}
