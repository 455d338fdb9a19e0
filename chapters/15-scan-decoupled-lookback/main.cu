// Chapter 15: single-pass scan with decoupled look-back (Merrill and Garland, NVIDIA 2016), beyond the
// article. The stage itself, and the chained scan it improves on, against CUB and cudaMemcpy.
#include <vector>

#include "scan_reference.cuh"
#include "scan_decoupled_lookback.cuh"
#include "../14-scan-two-pass/scan_two_pass.cuh"  // chapter 14's stage, on demand

std::vector<tut::scan::ScanVariant> lookback_variants() {
  return {{"scan-decoupled-lookback",
           "one kernel, 1024-element tiles taken from an atomic counter; each tile publishes its aggregate, "
           "looks back over its predecessors' status words, then publishes its inclusive prefix",
           scan_decoupled_lookback::workspace_bytes, scan_decoupled_lookback::inclusive_scan, ""},
          {"chained-scan",
           "the same kernel, but each tile waits for its predecessor's inclusive prefix (no aggregates): "
           "tiles finish one after another",
           scan_decoupled_lookback::workspace_bytes, scan_decoupled_lookback::inclusive_scan_chained, ""}};
}

// The chapter's variants (its tests loop over them), then chapter 14's stage on demand: the first table's row
// for the previous stage, timed in this process.
std::vector<tut::scan::ScanVariant> with_previous_stage() {
  std::vector<tut::scan::ScanVariant> variants = lookback_variants();
  variants.push_back({"scan-two-pass", "chapter 14's stage, to compare in one run", scan_two_pass::workspace_bytes,
                      scan_two_pass::inclusive_scan, "", /*on_demand=*/true});
  return variants;
}

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter(
      "15-scan-decoupled-lookback",
      "single-pass scan: tile status words and a warp-parallel decoupled look-back", with_previous_stage());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
