// Chapter 12: chapter 11's scan with the warp scan written in inline PTX: each step's add is guarded
// by the predicate shfl.sync.up returns, so the warp scan has no lane compare and no branch.
#include "scan_reference.cuh"
#include "scan_inline_ptx.cuh"
#include "../11-scan-warp-shuffle/scan_warp_shuffle.cuh"  // chapter 11's stage, on demand

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter(
      "12-scan-inline-ptx", "ScanThenFan with an inline-PTX warp scan (predicated adds)",
      {{"scan-inline-ptx", "warp scan in PTX: shfl.sync.up.b32 r|p, then @p add; no lane test, no branch",
        scan_inline_ptx::workspace_bytes, scan_inline_ptx::inclusive_scan, ""},
       {"scan-warp-shuffle", "chapter 11's stage, to compare in one run", scan_warp_shuffle::workspace_bytes,
        scan_warp_shuffle::inclusive_scan, "", /*on_demand=*/true}});
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
