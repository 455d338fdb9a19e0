// Chapter 05: the ScanThenFan baseline. Each 1024-element part is scanned by one thread straight from
// global memory, the part sums by one thread, and a third kernel adds each part's base.
#include "scan_reference.cuh"
#include "scan_baseline.cuh"

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter(
      "05-scan-baseline", "ScanThenFan baseline: one thread per part, straight from global memory",
      {{"scan-baseline", "thread 0 of each block scans its part in global memory; <<<1,1>>> scans part sums",
        scan_baseline::workspace_bytes, scan_baseline::inclusive_scan, ""}});
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
