// Chapter 15: single-pass scan with decoupled look-back (Merrill and Garland, NVIDIA 2016), beyond the
// article. The stage itself, and the chained scan it improves on, against CUB and cudaMemcpy.
#include <vector>

#include "scan_reference.cuh"
#include "scan_decoupled_lookback.cuh"

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

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter(
      "15-scan-decoupled-lookback",
      "single-pass scan: tile status words and a warp-parallel decoupled look-back", lookback_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
