// GPU tests for chapter 37: the FFT-chapter tests for the stage (every length 8 to 2^20 through the dispatcher:
// chapter 36's stage up to 16384, the cluster kernel at 32768 and 65536, chapter 35's four-step above; batches 1,
// 3, 133; known transforms; the command line), every launch-shape candidate at N = 32768 and 65536 with a larger
// batch too, the residency set-up found, and the lengths the cluster kernel must refuse.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include <vector>

#include "device.cuh"
#include "device_buffer.cuh"
#include "fft_testing.cuh"

// cluster_variants_set_up() runs the one-time set-up (opt-ins, occupancy) before the tests launch directly.
TUT_FFT_CHAPTER_TESTS(chapter_spec(), {cluster_variants_set_up().front()})

namespace {
// Batches at the cluster lengths: the shared 1, 3, 133, and one of about 2^24 elements (513 and 257 signals:
// more clusters than a GPU holds at once, so clusters start as others finish), capped under a sanitizer.
std::vector<long long> cluster_batches(int log2n) {
  std::vector<long long> b = tut::fft::testing::test_batches(log2n);
  if (!tut::testing::under_sanitizer()) b.push_back((1ll << (24 - log2n)) + 1);
  return b;
}
}  // namespace

TEST_CASE("37: the stage and every candidate match the CPU double FFT at N = 32768 and 65536, batches 1 .. 513") {
  tut::require_supported_gpu();
  const auto variants = cluster_variants_set_up();
  for (const auto& v : variants)
    for (int log2n = fft_cluster::kFirstLog2n; log2n <= fft_cluster::kLastLog2n; ++log2n) {
      if (!tut::fft::supports(v, log2n)) continue;
      for (long long batch : cluster_batches(log2n)) tut::fft::testing::check_random(v, log2n, batch);
      tut::fft::testing::check_known_transforms(v, log2n);
    }
}

TEST_CASE("37: on a GPU with clusters every configuration runs as clusters, at least one resident") {
  tut::require_supported_gpu();
  fft_cluster::setup_fft_cluster();
  if (!fft_cluster::clusters_supported()) {
    MESSAGE("no thread-block clusters on this GPU: the four-step fallback is what the other cases test");
    return;
  }
  fft_cluster::for_each_configuration([](const char* name, auto config) {
    using Config = decltype(config);
    for (int log2n = Config::kMinLog2n; log2n <= Config::kMaxLog2n; ++log2n) {
      const fft_cluster::Residency& r = Config::residency(log2n);
      INFO(name << " at N = 2^" << log2n);
      CHECK(r.ready);
      CHECK(r.fits);  // every configuration's block fits in sm_90's 227 KiB
      CHECK(r.active_clusters >= 1);
    }
  });
}

TEST_CASE("37: each cluster kernel refuses the lengths it was not built for, the stage those outside 8 .. 2^20") {
  tut::require_supported_gpu();
  fft_cluster::setup_fft_cluster();
  tut::DeviceBuffer<float2> in(1 << 17), out(1 << 17);
  for (int log2n : {3, 14, 16, 17})
    CHECK_THROWS_AS(fft_cluster::StageShort::launch(in.data(), out.data(), log2n, 1, nullptr, 0), std::invalid_argument);
  for (int log2n : {3, 14, 15, 17})
    CHECK_THROWS_AS(fft_cluster::StageLong::launch(in.data(), out.data(), log2n, 1, nullptr, 0), std::invalid_argument);
  for (int log2n : {2, 21})
    CHECK_THROWS_AS(fft_cluster::fft_thread_block_cluster(in.data(), out.data(), log2n, 1, nullptr, 0),
                    std::invalid_argument);
}
