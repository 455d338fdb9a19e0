// Chapter 17's lab: the persistent look-back scans that lost to one tile per block (0.17-0.56x CUB on the
// H200), kept runnable so that the evidence in this folder's README can be reproduced. Not a stage: a plain
// run measures every design here, CUB and cudaMemcpy.
#include <string>
#include <vector>

#include "persistent_lookback.cuh"
#include "scan_reference.cuh"

namespace lab = scan_lookback_lab;

template <class Tuning>
tut::scan::ScanVariant prefetch_variant(const std::string& name, const std::string& description) {
  return {name, description, lab::workspace_bytes_for<Tuning>, lab::inclusive_scan_prefetch<Tuning>, "",
          /*on_demand=*/false, lab::setup_inclusive_scan_prefetch<Tuning>};
}

// Below sm_90 (or with misaligned buffers) these run chapter 16's register kernel with the same tiles.
template <class Tuning>
tut::scan::ScanVariant bulk_copy_variant(const std::string& name, const std::string& description) {
  return {name, description, lab::workspace_bytes_for<Tuning>, lab::inclusive_scan_bulk_copy<Tuning>, "",
          /*on_demand=*/false, lab::setup_inclusive_scan_bulk_copy<Tuning>};
}

std::vector<tut::scan::ScanVariant> lab_variants() {
  using lab::BulkCopyTuning;
  using lab::Tuning;
  return {
      prefetch_variant<Tuning<256, 16>>(
          "lookback-persistent-prefetch-t256-i16",
          "persistent grid; each thread loads the next tile into registers before scanning the current one"),
      prefetch_variant<Tuning<256, 12>>("lookback-persistent-prefetch-t256-i12",
                                        "the same with 256 threads x 12 int32 (2 x 12 items in registers)"),
      bulk_copy_variant<BulkCopyTuning<256, 16, 4>>(
          "lookback-bulkcopy-t256-i16-s4",
          "sm_90+: persistent grid, cp.async.bulk (TMA) into a ring of 4 tiles of 16 KiB in shared memory"),
      bulk_copy_variant<BulkCopyTuning<256, 24, 3>>("lookback-bulkcopy-t256-i24-s3",
                                                    "sm_90+: bulk copies, ring of 3 tiles of 24 KiB (256 x 24)"),
      bulk_copy_variant<BulkCopyTuning<256, 32, 3>>("lookback-bulkcopy-t256-i32-s3",
                                                    "sm_90+: bulk copies, ring of 3 tiles of 32 KiB (256 x 32)"),
      bulk_copy_variant<BulkCopyTuning<128, 24, 4>>("lookback-bulkcopy-t128-i24-s4",
                                                    "sm_90+: bulk copies, ring of 4 tiles of 12 KiB (128 x 24)"),
      bulk_copy_variant<BulkCopyTuning<512, 16, 3>>("lookback-bulkcopy-t512-i16-s3",
                                                    "sm_90+: bulk copies, ring of 3 tiles of 32 KiB (512 x 16)"),
  };
}

tut::ChapterSpec lab_spec() {
  return tut::scan::make_scan_chapter("17-scan-lookback-lab",
                                      "lab: persistent look-back scans (register prefetch, bulk-copy ring)",
                                      lab_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, lab_spec()); }
#endif
