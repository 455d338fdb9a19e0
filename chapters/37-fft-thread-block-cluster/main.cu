// Chapter 37: N = 32768 and 65536 with one signal per thread-block cluster (the four-step's transpose through
// distributed shared memory), one read and one write of global memory, against chapter 36's stage, cuFFT and
// cudaMemcpy. The stage dispatches by length: chapter 36's stage up to 16384, the cluster kernel at 32768 and
// 65536, chapter 35's four-step above.
#include <cstdio>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "fft_chapter.cuh"
#include "fft_thread_block_cluster.cuh"
#include "plan_cache.hpp"
#include "report.hpp"
#include "stage_plan.cuh"

using fft_cluster::ClusterResidency;
std::vector<ClusterResidency> cluster_residencies();

namespace {
namespace cluster = fft_cluster;

// A launch-shape candidate: N = 32768 and/or 65536 only, on demand.
template <class Config>
tut::fft::FftVariant candidate(const std::string& name, const std::string& description) {
  // FftVariant's fields in order: name, description, lengths, workspace, set-up, launch, known defect, on demand,
  // plan (none: an on-demand variant runs its one configuration).
  return {name, description, Config::kMinLog2n, Config::kMaxLog2n, Config::workspace_bytes,
          cluster::setup_fft_cluster, Config::launch, "", true, {}};
}

// After the table: how many clusters of each configuration the GPU holds at once (cluster_residencies()), and
// what that is in blocks per SM.
void residency_summary(std::ostream& os, const tut::DeviceInfo& info, const tut::Options&,
                       const std::vector<tut::Result>&) {
  std::vector<std::vector<std::string>> rows;
  for (const ClusterResidency& r : cluster_residencies()) {
    if (!r.residency.ready) continue;
    const double per_sm =
        info.sm_count > 0 ? static_cast<double>(r.residency.active_clusters) * r.blocks_per_cluster / info.sm_count
                          : 0.0;
    char per_sm_text[32];
    std::snprintf(per_sm_text, sizeof per_sm_text, "%.2f", per_sm);
    rows.push_back({r.name, std::to_string(1 << r.log2n), std::to_string(r.blocks_per_cluster),
                    std::to_string(r.threads_per_block), std::to_string(r.shared_bytes_per_block / 1024),
                    r.residency.fits ? std::to_string(r.residency.active_clusters) : "four-step",
                    r.residency.fits ? per_sm_text : "-"});
  }
  if (rows.empty()) return;
  os << "\nClusters resident at once (cudaOccupancyMaxActiveClusters), " << info.sm_count << " SMs:\n";
  tut::write_text_table(os, {"configuration", "N", "blocks/cluster", "threads/block", "KiB/block", "clusters",
                             "blocks per SM"},
                        rows);
}

}  // namespace

// Every configuration at every length it is built for: its shape and what set-up found on the current device
// (cudaOccupancyMaxActiveClusters; not ready before setup_fft_cluster()). The summary prints it; the test checks it.
std::vector<ClusterResidency> cluster_residencies() {
  std::vector<ClusterResidency> out;
  cluster::for_each_configuration([&](const char* name, auto config) {
    using Config = decltype(config);
    for (int log2n = Config::kMinLog2n; log2n <= Config::kMaxLog2n; ++log2n) {
      const bool big = log2n == cluster::kLastLog2n;
      ClusterResidency r;
      r.name = name;
      r.log2n = log2n;
      r.residency = Config::residency(log2n);
      r.blocks_per_cluster = big ? Config::template Plan<65536>::C : Config::template Plan<32768>::C;
      r.threads_per_block = big ? Config::template Plan<65536>::kThreads : Config::template Plan<32768>::kThreads;
      r.shared_bytes_per_block =
          big ? Config::template Plan<65536>::kSharedBytes : Config::template Plan<32768>::kSharedBytes;
      out.push_back(r);
    }
  });
  return out;
}

// The stage first (planned for this GPU by the workload's setup(): stage_plan.cuh), then chapter 36's stage and
// the launch-shape candidates (on demand; N = 32768 and 65536 only).
std::vector<tut::fft::FftVariant> cluster_variants() {
  const tut::fft::FftVariant stage{
      "fft-thread-block-cluster",
      "N=32768,65536: one signal per cluster of 8 blocks (256 / 512 threads, E = 16), four-step 128x256 / 256x256: "
      "column FFTs, transpose through distributed shared memory, row FFTs; one read and one write; other N: "
      "chapter 36's stage",
      cluster::kMinLog2n, cluster::kMaxLog2n, cluster::stage_workspace_bytes, cluster::setup_fft_cluster,
      cluster::fft_thread_block_cluster, "", false, {"37 fft c2c", TUT_THIS_BUILD_ID(), cluster::stage_choice}};
  // Chapter 36's stage, for the comparison at the same lengths (its set-up: the shared-memory opt-in).
  const tut::fft::FftVariant previous{
      "fft-one-block-large", "chapter 36's stage (N = 32768, 65536: chapter 35's four-step through global memory)",
      fft_one_block_large::kMinLog2n, fft_one_block_large::kMaxLog2n, fft_one_block_large::stage_workspace_bytes,
      fft_one_block_large::setup_fft_one_block_large, fft_one_block_large::fft_one_block_large, "", true, {}};
  return {
      stage,
      previous,
      candidate<cluster::C4>("c4", "4 blocks per cluster of N/4 values (64 KiB), E = 16, 512 threads"),
      candidate<cluster::C8E32>("c8-e32", "the stage's 8 blocks with E = 32 values per thread (128 threads)"),
      candidate<cluster::C8Split>("c8-split",
                                  "8 blocks, E = 16, the row phase in its own buffer: the second cluster barrier "
                                  "split (arrive after the gather, wait before exit)"),
      candidate<cluster::C8Sincospif>("c8-sincospif",
                                      "the stage's clusters with one sincospif per twiddle, as before the stage "
                                      "computed them per butterfly and by powers"),
  };
}

// The variants with their one-time set-up done on the current device (for tests that launch directly).
std::vector<tut::fft::FftVariant> cluster_variants_set_up() {
  cluster::setup_fft_cluster();
  return cluster_variants();
}

tut::ChapterSpec chapter_spec() {
  tut::ChapterSpec spec = tut::fft::make_fft_chapter(
      "37-fft-thread-block-cluster",
      "batched 1-D FFT, N = 32768 and 65536 in one thread-block cluster: the transpose through distributed shared "
      "memory",
      cluster_variants());
  // The FFT chapters' summary (the check's errors), then the residency table.
  spec.summary = [fft_summary = spec.summary](std::ostream& os, const tut::DeviceInfo& info, const tut::Options& opt,
                                              const std::vector<tut::Result>& rows) {
    if (fft_summary) fft_summary(os, info, opt, rows);
    residency_summary(os, info, opt, rows);
  };
  return spec;
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
