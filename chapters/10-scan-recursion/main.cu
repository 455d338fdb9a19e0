// Chapter 10: ScanThenFan whose part sums are scanned by ScanThenFan itself (recursion) instead of
// one thread; the block scan is chapter 09's zero-padded Kogge-Stone scan.
#include "scan_reference.cuh"
#include "scan_recursion.cuh"

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter(
      "10-scan-recursion", "ScanThenFan with the part sums scanned recursively",
      {{"scan-recursion", "chapter 09's kernels; the part sums are scanned by a recursive ScanThenFan, not <<<1,1>>>",
        scan_recursion::workspace_bytes, scan_recursion::inclusive_scan, ""}});
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
