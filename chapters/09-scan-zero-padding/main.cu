// Chapter 09: ScanThenFan with a zero-padded Kogge-Stone warp scan (no lane guards), plus the
// article's unsynchronised version of it as the variant "article" (a documented data race).
#include "scan_reference.cuh"
#include "scan_zero_padding.cuh"
#include "scan_zero_padding_article.cuh"
#include "../08-scan-warp/scan_warp.cuh"  // chapter 08's stage, on demand

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter(
      "09-scan-zero-padding", "ScanThenFan with a zero-padded Kogge-Stone warp scan",
      {{"scan-zero-padding", "16 zeros before each warp's values replace the lane >= d guards; __syncwarp",
        scan_zero_padding::workspace_bytes, scan_zero_padding::inclusive_scan, ""},
       {"article", "the article's section 7 warp scan: volatile, no __syncwarp between read and write",
        scan_zero_padding_article::workspace_bytes, scan_zero_padding_article::inclusive_scan,
        "intra-warp data race (no __syncwarp between a lane's read and its neighbour's write): right only "
        "while the warp runs in lockstep, which Volta+ does not guarantee; racecheck reports it"},
       {"scan-warp", "chapter 08's stage, to compare in one run", scan_warp::workspace_bytes,
        scan_warp::inclusive_scan, "", /*on_demand=*/true}});
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
