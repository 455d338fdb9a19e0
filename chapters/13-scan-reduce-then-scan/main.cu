// Chapter 13: ReduceThenScan. The first pass only sums each 1024-element part (CUB's block reduce),
// the part sums are scanned recursively, and the last pass scans each part and adds its base: the
// input is read twice, the output written once.
#include "scan_reference.cuh"
#include "scan_reduce_then_scan.cuh"
#include "../12-scan-inline-ptx/scan_inline_ptx.cuh"  // chapter 12's stage, on demand

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter(
      "13-scan-reduce-then-scan", "ReduceThenScan: sum the parts, scan the sums, scan the parts with their base",
      {{"scan-reduce-then-scan",
        "reduce each part (cub::BlockReduce), scan the part sums recursively, scan each part + base",
        scan_reduce_then_scan::workspace_bytes, scan_reduce_then_scan::inclusive_scan, ""},
       {"scan-inline-ptx", "chapter 12's stage, to compare in one run", scan_inline_ptx::workspace_bytes,
        scan_inline_ptx::inclusive_scan, "", /*on_demand=*/true}});
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
