// Chapter 08: ScanThenFan with a Kogge-Stone warp scan in shared memory.
#include "scan_reference.cuh"
#include "scan_warp.cuh"
#include "../07-scan-block/scan_block.cuh"  // chapter 07's stage, on demand

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter(
      "08-scan-warp", "ScanThenFan with a Kogge-Stone warp scan in shared memory",
      {{"scan-warp", "5-step Kogge-Stone warp scan in shared memory, lane >= d guards, __syncwarp",
        scan_warp::workspace_bytes, scan_warp::inclusive_scan, ""},
       {"scan-block", "chapter 07's stage, to compare in one run", scan_block::workspace_bytes,
        scan_block::inclusive_scan, "", /*on_demand=*/true}});
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
