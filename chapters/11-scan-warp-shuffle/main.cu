// Chapter 11: ScanThenFan (recursive, as in chapter 10) whose block scan runs in registers: the warp
// scan exchanges values with __shfl_up_sync, and shared memory holds only the 32 warp totals.
#include "scan_reference.cuh"
#include "scan_warp_shuffle.cuh"
#include "../10-scan-recursion/scan_recursion.cuh"  // chapter 10's stage, on demand

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter(
      "11-scan-warp-shuffle", "ScanThenFan with a warp scan in registers (__shfl_up_sync)",
      {{"scan-warp-shuffle", "warp scan with __shfl_up_sync and if (lane >= d); shared memory for warp totals only",
        scan_warp_shuffle::workspace_bytes, scan_warp_shuffle::inclusive_scan, ""},
       {"scan-recursion", "chapter 10's stage, to compare in one run", scan_recursion::workspace_bytes,
        scan_recursion::inclusive_scan, "", /*on_demand=*/true}});
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
