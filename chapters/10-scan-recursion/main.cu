// Chapter 10: ScanThenFan whose part sums are scanned by ScanThenFan itself (recursion) instead of
// one thread; the block scan is chapter 09's zero-padded Kogge-Stone scan.
#include "scan_reference.cuh"
#include "scan_recursion.cuh"
#include "../09-scan-zero-padding/scan_zero_padding.cuh"  // chapter 09's stage, on demand

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter(
      "10-scan-recursion", "ScanThenFan with the part sums scanned recursively",
      {{"scan-recursion", "chapter 09's kernels; the part sums are scanned by a recursive ScanThenFan, not <<<1,1>>>",
        scan_recursion::workspace_bytes, scan_recursion::inclusive_scan, ""},
       {"scan-zero-padding", "chapter 09's stage, to compare in one run", scan_zero_padding::workspace_bytes,
        scan_zero_padding::inclusive_scan, "", /*on_demand=*/true}});
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
