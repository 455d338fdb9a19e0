// Chapter 06: ScanThenFan with each part staged in shared memory before thread 0 scans it.
#include "scan_reference.cuh"
#include "scan_shared_memory.cuh"
#include "../05-scan-baseline/scan_baseline.cuh"  // chapter 05's stage, on demand

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter(
      "06-scan-shared-memory", "ScanThenFan with each part staged in shared memory",
      {{"scan-shared-memory", "the block stages its part in shared memory; thread 0 scans it there",
        scan_shared_memory::workspace_bytes, scan_shared_memory::inclusive_scan, ""},
       {"scan-baseline", "chapter 05's stage, to compare in one run", scan_baseline::workspace_bytes,
        scan_baseline::inclusive_scan, "", /*on_demand=*/true}});
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
