// Chapter 38: N = 131072 .. 2^22 in two passes through global memory (column FFTs with the twiddle, then row
// FFTs stored transposed), each pass reading and writing whole sectors, against chapter 37's stage, cuFFT and
// cudaMemcpy. The stage dispatches by length: chapter 36's stage up to 16384, chapter 37's clusters at 32768 and
// 65536 (two passes on a GPU without them), two passes from 131072.
#include <iomanip>
#include <ostream>
#include <string>
#include <vector>

#include "fft_chapter.cuh"
#include "fft_two_pass.cuh"
#include "plan_cache.hpp"
#include "report.hpp"
#include "stage_plan.cuh"
#include "two_pass_units.hpp"

namespace {
namespace two = fft_two_pass;

// A two-pass configuration as a variant: its lengths, its workspace, the chapter's set-up.
template <class Config>
tut::fft::FftVariant two_pass_variant(const std::string& name, const std::string& description) {
  // FftVariant's fields in order: name, description, lengths, workspace, set-up, launch, known defect, on demand,
  // plan (none: an on-demand variant runs its one configuration).
  return {name, description, Config::kMinLog2n, Config::kMaxLog2n, Config::workspace_bytes,
          two::setup_fft_two_pass, Config::launch, "", true, {}};
}

// After the FFT summary: the intermediate's size (allocated once, outside every timing) and both passes' blocks.
void two_pass_summary(std::ostream& os, const tut::Options& opt) {
  const auto it = opt.extra.find("length");
  const long long length = it == opt.extra.end() ? 1024 : it->second;
  const int log2n = tut::fft::checked_log2_length(length);
  const long long batch = static_cast<long long>(opt.size) / length;
  const std::size_t bytes = two::stage_workspace_bytes(log2n, batch);
  os << "workspace (the stage's intermediate between its passes, allocated before timing): " << std::fixed
     << std::setprecision(1) << static_cast<double>(bytes) / (1 << 20) << " MiB";
  if (bytes == 0) os << " (one pass at this length)";
  if (log2n == fft_cluster::kFirstLog2n || log2n == fft_cluster::kLastLog2n)
    os << " (for the plan's two-pass candidate; chapter 37's clusters use none)";
  os << "\n" << std::defaultfloat;
}

}  // namespace

// The stage first (planned for this GPU by the workload's setup(): stage_plan.cuh), the two-pass path at every
// length it has (on demand), chapter 37's stage, then the launch-shape candidates (on demand; N = 2^17 .. 2^20,
// w16 to 2^19).
std::vector<tut::fft::FftVariant> two_pass_variants() {
  const tut::fft::FftVariant stage{
      "fft-two-pass",
      "N>=131072: two passes through global memory, N1 x N2 = 2^floor(log2N/2) x the rest: column FFTs times the "
      "twiddle, then row FFTs stored transposed through shared memory; 8 or 16 columns/rows per block (64/128-byte "
      "runs), E = 16; N=32768,65536: chapter 37's clusters; N<=16384: chapter 36's stage",
      two::kMinLog2n, two::kMaxLog2n, two::stage_workspace_bytes, two::setup_fft_two_pass, two::fft_two_pass, "",
      false, {"38 fft c2c", TUT_THIS_BUILD_ID(), two::stage_choice}};
  const tut::fft::FftVariant forced = two_pass_variant<two::StageTwoPass>(
      "two-pass", "the stage's two passes at every length from 4096 (to compare with the one-pass paths)");
  // Chapter 37's stage, for the comparison at the same lengths (from 131072: chapter 35's four-step).
  const tut::fft::FftVariant previous{
      "fft-thread-block-cluster",
      "chapter 37's stage (N >= 131072: chapter 35's four-step, its rows stored 8 bytes at a time)",
      fft_cluster::kMinLog2n, fft_cluster::kMaxLog2n, fft_cluster::stage_workspace_bytes,
      fft_cluster::setup_fft_cluster, fft_cluster::fft_thread_block_cluster, "", true, {}};
  return {
      stage,
      forced,
      previous,
      two_pass_variant<two::W8>("w8", "8 columns/rows per block at every length (64-byte runs, smaller blocks)"),
      two_pass_variant<two::W16>("w16", "16 columns/rows per block at every length (128-byte runs; 136 KiB "
                                        "blocks of 1024 threads at length 1024)"),
  };
}

// The variants with their one-time set-up done on the current device (for tests that launch directly).
std::vector<tut::fft::FftVariant> two_pass_variants_set_up() {
  two::setup_fft_two_pass();
  return two_pass_variants();
}

// The kernel header's host functions the GPU test calls (two_pass_units.hpp says why they are wrapped here).
namespace two_pass_units {

void setup_fft_two_pass() { two::setup_fft_two_pass(); }
tut::fft::FftChoice stage_choice(int log2n) { return two::stage_choice(log2n); }
bool clusters_supported() { return fft_cluster::clusters_supported(); }
bool cluster_fits(int log2n) { return two::cluster_fits(log2n); }
int opt_in_shared_bytes() { return two::opt_in_shared_bytes(); }
std::size_t stage_workspace_bytes(int log2n, long long batch) { return two::stage_workspace_bytes(log2n, batch); }
std::size_t stage_two_pass_shared_bytes(int log2n) { return two::StageTwoPass::shared_bytes(log2n); }

tut::fft::FftVariant stage_two_pass_variant() {
  using Stage = two::StageTwoPass;
  return {"stage-two-pass", "the stage's two-pass configuration", two::kFirstLog2n, two::kLastLog2n,
          Stage::workspace_bytes, Stage::set_up, Stage::launch, "", true, {}};
}

tut::fft::FftVariant fresh_two_pass_variant() {
  // Its own type, so its own per-device record; its kernels are the stage's at 2^12 and 2^13 (no new device code).
  using Fresh = two::TwoPass<two::Shape<16>, 12, 13>;
  return {"fresh", "a configuration set up only here", 12, 13, Fresh::workspace_bytes, Fresh::set_up, Fresh::launch, "",
          true, {}};
}

}  // namespace two_pass_units

tut::ChapterSpec chapter_spec() {
  tut::ChapterSpec spec = tut::fft::make_fft_chapter(
      "38-fft-two-pass", "batched 1-D FFT, N = 131072 .. 2^22 in two passes, each shaped like a copy",
      two_pass_variants());
  spec.summary = [fft_summary = spec.summary](std::ostream& os, const tut::DeviceInfo& info, const tut::Options& opt,
                                              const std::vector<tut::Result>& rows) {
    if (fft_summary) fft_summary(os, info, opt, rows);
    two_pass_summary(os, opt);
  };
  return spec;
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
