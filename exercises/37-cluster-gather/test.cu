// Test of exercise 37: chapter 37's cluster FFT with the DSMEM gather under test, against the CPU FFT in double
// (common/fft) at N = 32768 and 65536, random signals at batches 1, 3 and more (clusters of 8 blocks, one signal
// each), and known transforms. Needs thread-block clusters (compute capability 9.0+): on an older GPU the whole test
// is skipped with a message (exit 77, meson's SKIP). The same source tests the exercise and the solution.
#include <cluster_gather.cuh>

#include <cstdio>
#include <cstdlib>

#include "exercise_testing.cuh"
#include "fft_testing.cuh"

namespace {

// Skips the test program (meson's SKIP) on a GPU without thread-block clusters: nothing here can run there.
void require_clusters() {
  if (cluster_gather::clusters_here()) return;
  std::printf("SKIP: exercise 37 needs thread-block clusters (compute capability 9.0 or newer, and 64 KiB of shared "
              "memory per block); this GPU has none, so nothing was tested\n");
  std::fflush(stdout);
  std::exit(77);
}

tut::fft::FftVariant cluster_variant() {
  require_clusters();
  tut::fft::FftVariant v;
  v.name = "cluster-gather";
  v.min_log2n = cluster_gather::kMinLog2n;
  v.max_log2n = cluster_gather::kMaxLog2n;
  v.setup = [] { cluster_gather::setup(); };
  v.launch = cluster_gather::forward;
  return v;
}

}  // namespace

TEST_CASE("37: the cluster FFT with your gather matches the CPU FFT at N = 32768 and 65536") {
  tut::fft::testing::check_variants({cluster_variant()});
}

TEST_CASE("37: impulses, a single tone and constants give their exact transforms") {
  tut::fft::testing::check_variants_known({cluster_variant()});
}

TEST_CASE("measure" * doctest::skip()) {
  exercise_testing::print_device();
  require_clusters();
  const int log2n = 16;
  const long long batch = 256;
  const std::size_t count = static_cast<std::size_t>(batch) << log2n;
  cluster_gather::setup();
  fft_cluster::setup_fft_cluster();
  tut::DeviceBuffer<float2> in(tut::fft::random_signals(count, 1)), out(count);
  std::printf("cluster FFT, N = 65536, %lld signals (GB/s count one read and one write)\n", batch);
  const double bytes = 2.0 * count * sizeof(float2), flops = 5.0 * static_cast<double>(count) * log2n;
  exercise_testing::print_row("chapter 37's stage", exercise_testing::median_ms("37-cluster-gather", "stage",
                                                                                [&](cudaStream_t s) {
                                fft_cluster::fft_thread_block_cluster(in.data(), out.data(), log2n, batch, nullptr, s);
                              }), bytes, flops);
  exercise_testing::print_row("chapter 37's kernel with your gather",
                              exercise_testing::median_ms("37-cluster-gather", "gather", [&](cudaStream_t s) {
                                cluster_gather::forward(in.data(), out.data(), log2n, batch, nullptr, s);
                              }), bytes, flops);
}
