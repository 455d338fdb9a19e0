// Chapter 14: two-pass ReduceThenScan. At most 1024 large parts, one block each: reduce every part,
// scan the <= 1024 part sums with one block, then scan every part tile by tile with a running base.
// Three launches and no recursion.
#include "scan_reference.cuh"
#include "scan_two_pass.cuh"

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter(
      "14-scan-two-pass", "two-pass ReduceThenScan: 1024 large parts, no recursion",
      {{"scan-two-pass",
        "1024 parts of ~n/1024 elements: reduce, one block scans the sums, tiled scan with running base",
        scan_two_pass::workspace_bytes, scan_two_pass::inclusive_scan, ""}});
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
