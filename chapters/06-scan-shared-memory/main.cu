// Chapter 06: ScanThenFan with each part staged in shared memory before thread 0 scans it.
#include "scan_reference.cuh"
#include "scan_shared_memory.cuh"

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter(
      "06-scan-shared-memory", "ScanThenFan with each part staged in shared memory",
      {{"scan-shared-memory", "the block stages its part in shared memory; thread 0 scans it there",
        scan_shared_memory::workspace_bytes, scan_shared_memory::inclusive_scan, ""}});
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
