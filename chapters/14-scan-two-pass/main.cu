// Chapter 14: two-pass ReduceThenScan. At most 1024 large parts, one block each: reduce every part,
// scan the <= 1024 part sums with one block, then scan every part tile by tile with a running base.
// Three launches and no recursion. Beside the stage (the article's design) runs a tuned two-pass scan
// (scan_two_pass_tuned.cuh), to show that the bound of reading the input twice, not the code, is what a
// single pass removes; the tuned scan's other shapes are on demand (--variant NAME, --variant all).
#include <string>

#include "scan_reference.cuh"
#include "scan_two_pass.cuh"
#include "scan_two_pass_tuned.cuh"
#include "../13-scan-reduce-then-scan/scan_reduce_then_scan.cuh"  // chapter 13's stage, on demand

template <class Tuning>
tut::scan::ScanVariant tuned_shape(const std::string& name, const std::string& description) {
  return {name, description, scan_two_pass_tuned::workspace_bytes, scan_two_pass_tuned::inclusive_scan_with<Tuning>,
          "", /*on_demand=*/true, scan_two_pass_tuned::setup_inclusive_scan_with<Tuning>};
}

tut::ChapterSpec chapter_spec() {
  using scan_two_pass_tuned::Tuning;
  return tut::scan::make_scan_chapter(
      "14-scan-two-pass", "two-pass ReduceThenScan: 1024 large parts, no recursion",
      {{"scan-two-pass",
        "1024 parts of ~n/1024 elements: reduce, one block scans the sums, tiled scan with running base",
        scan_two_pass::workspace_bytes, scan_two_pass::inclusive_scan, ""},
       {"scan-two-pass-tuned",
        "the same three passes, tuned: one part per resident warp (no barrier), 32 int32 per thread in int4 "
        "vectors, the reduce walks each part backwards",
        scan_two_pass_tuned::workspace_bytes, scan_two_pass_tuned::inclusive_scan, "", /*on_demand=*/false,
        scan_two_pass_tuned::setup_inclusive_scan},
       tuned_shape<Tuning<256, 16>>("two-pass-tuned-t256-i16", "the tuned scan with 256 threads x 16 int32"),
       tuned_shape<Tuning<256, 24>>("two-pass-tuned-t256-i24", "the tuned scan with 256 threads x 24 int32"),
       tuned_shape<Tuning<256, 32, false>>("two-pass-tuned-forward-reduce",
                                           "the tuned scan with a reduce pass that walks each part forwards"),
       {"scan-reduce-then-scan", "chapter 13's stage, to compare in one run", scan_reduce_then_scan::workspace_bytes,
        scan_reduce_then_scan::inclusive_scan, "", /*on_demand=*/true}});
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
