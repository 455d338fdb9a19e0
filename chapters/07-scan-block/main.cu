// Chapter 07: ScanThenFan with a warp-organised block scan (each warp scanned serially by its lane 0).
#include "scan_reference.cuh"
#include "scan_block.cuh"
#include "../06-scan-shared-memory/scan_shared_memory.cuh"  // chapter 06's stage, on demand

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter(
      "07-scan-block", "ScanThenFan with a warp-organised block scan",
      {{"scan-block", "lane 0 of each warp scans its 32 values; warp 0 scans the warp sums; add bases",
        scan_block::workspace_bytes, scan_block::inclusive_scan, ""},
       {"scan-shared-memory", "chapter 06's stage, to compare in one run", scan_shared_memory::workspace_bytes,
        scan_shared_memory::inclusive_scan, "", /*on_demand=*/true}});
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
