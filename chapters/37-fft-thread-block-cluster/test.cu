// GPU tests for chapter 37: the FFT-chapter tests for the stage as its plan for this GPU runs it (every length 8
// to 2^20 through the dispatcher: chapter 36's stage up to 16384, the cluster kernel at 32768 and 65536, chapter
// 35's four-step above; batches 1, 3, 133; known transforms; the command line), every candidate its plan may
// choose, a stale plan file ignored, every launch-shape candidate at N = 32768 and 65536 with a larger batch too,
// the residency set-up found, and the lengths the cluster kernel must refuse.
#include <stdexcept>
#include <string>
#include <vector>

#include "cluster_residency.hpp"
#include "cuda_check.cuh"
#include "device.cuh"
#include "device_buffer.cuh"
#include "fft_testing.cuh"

// From main.cu, compiled once into the chapter's library: the test reaches the kernels through these and
// compiles none of them itself.
tut::ChapterSpec chapter_spec();
std::vector<tut::fft::FftVariant> cluster_variants_set_up();  // the stage, chapter 36's stage, the candidates
std::vector<fft_cluster::ClusterResidency> cluster_residencies();

// cluster_variants_set_up() runs the one-time set-up (opt-ins, occupancy) before the tests launch directly.
TUT_FFT_CHAPTER_TESTS(chapter_spec(), {cluster_variants_set_up().front()})

namespace {
constexpr int kFirstLog2n = 15, kLastLog2n = 16;  // the lengths the cluster kernel handles (32768, 65536)

bool gpu_has_clusters() {
  int device = 0, yes = 0;
  TUT_CUDA_CHECK(cudaGetDevice(&device));
  TUT_CUDA_CHECK(cudaDeviceGetAttribute(&yes, cudaDevAttrClusterLaunch, device));
  return yes != 0;
}

const tut::fft::FftVariant& variant_named(const std::vector<tut::fft::FftVariant>& variants, const char* name) {
  for (const auto& v : variants)
    if (v.name == name) return v;
  throw std::logic_error(std::string("37: no variant named ") + name);
}

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
    for (int log2n = kFirstLog2n; log2n <= kLastLog2n; ++log2n) {
      if (!tut::fft::supports(v, log2n)) continue;
      for (long long batch : cluster_batches(log2n)) tut::fft::testing::check_random(v, log2n, batch);
      tut::fft::testing::check_known_transforms(v, log2n);
    }
}

TEST_CASE("37: the stage's plan: every candidate it may choose matches the CPU double FFT (N = 2048 .. 65536)") {
  tut::fft::testing::check_plan_candidates(cluster_variants_set_up().front());
}

TEST_CASE("37: a plan file naming no candidate of the stage, or cut short, is ignored with one line; it plans again") {
  // 32768 where clusters hold the stage's; else chapter 36's one-block length.
  tut::fft::testing::check_stale_plan_ignored(chapter_spec(), cluster_variants_set_up().front(), {15, 13});
}

TEST_CASE("37: on a GPU with clusters every configuration runs as clusters, at least one resident") {
  tut::require_supported_gpu();
  cluster_variants_set_up();  // main.cu's set-up (a call of the header's would compile every kernel here again)
  if (!gpu_has_clusters()) {
    MESSAGE("no thread-block clusters on this GPU: the four-step fallback is what the other cases test");
    return;
  }
  const auto rows = cluster_residencies();
  CHECK(rows.size() == 8);  // the stage at 32768 and at 65536, c4, c8-e32, c8-split and c8-sincospif at both
  for (const auto& r : rows) {
    INFO(r.name << " at N = 2^" << r.log2n);
    CHECK(r.residency.ready);
    CHECK(r.residency.fits);  // every configuration's block fits in sm_90's 227 KiB
    CHECK(r.residency.active_clusters >= 1);
  }
}

TEST_CASE("37: each cluster kernel refuses the lengths it was not built for, the stage those outside 8 .. 2^20") {
  tut::require_supported_gpu();
  const auto variants = cluster_variants_set_up();
  tut::DeviceBuffer<float2> in(1 << 17), out(1 << 17);
  // The candidates are the cluster launch of other shapes: c4 is built for 32768 only, c8-split for both lengths.
  for (int log2n : {3, 14, 16, 17})
    CHECK_THROWS_AS(variant_named(variants, "c4").launch(in.data(), out.data(), log2n, 1, nullptr, 0),
                    std::invalid_argument);
  for (int log2n : {3, 14, 17})
    CHECK_THROWS_AS(variant_named(variants, "c8-split").launch(in.data(), out.data(), log2n, 1, nullptr, 0),
                    std::invalid_argument);
  for (int log2n : {2, 21})
    CHECK_THROWS_AS(variants.front().launch(in.data(), out.data(), log2n, 1, nullptr, 0), std::invalid_argument);
}
