// Chapter 16: the decoupled look-back scan, tuned: the tile in registers (int4 vector-striped loads, 32
// int32 per thread), relaxed status words, a look-back that backs off. A plain run measures the stage, CUB
// and cudaMemcpy; the shapes measured to choose the stage are on demand (--variant NAME, --variant all).
#include <string>
#include <vector>

#include "scan_reference.cuh"
#include "scan_decoupled_lookback_tuned.cuh"
#include "../15-scan-decoupled-lookback/scan_decoupled_lookback.cuh"  // chapter 15's stage, on demand

namespace lookback = scan_decoupled_lookback_tuned;

// A shape measured against the stage: run only when named (--variant NAME or all).
template <class Tuning>
tut::scan::ScanVariant shape_variant(const std::string& name, const std::string& description) {
  return {name, description, lookback::workspace_bytes_for<Tuning>, lookback::inclusive_scan_with<Tuning>, "",
          /*on_demand=*/true};
}

// The stage, then every shape the chapter measured to choose it. Names read
// lookback-t<threads per block>-i<int32 per thread>.
std::vector<tut::scan::ScanVariant> lookback_variants() {
  using lookback::CacheHint;
  using lookback::TileOrder;
  using lookback::Tuning;
  return {
      {"scan-decoupled-lookback-tuned",
       "the stage: 256 threads x 32 int32 (8192-element tiles in registers), int4 loads, relaxed status words, "
       "backoff 64-512 ns",
       lookback::workspace_bytes, lookback::inclusive_scan, ""},
      shape_variant<Tuning<256, 16>>("lookback-t256-i16", "256 threads x 16 int32 (the first prediction)"),
      shape_variant<Tuning<128, 16>>("lookback-t128-i16", "128 threads x 16 int32 (2048-element tiles)"),
      shape_variant<Tuning<128, 24>>("lookback-t128-i24", "128 threads x 24 int32: CUB's sm_90 tile shape"),
      shape_variant<Tuning<256, 8>>("lookback-t256-i8", "256 threads x 8 int32 (2048-element tiles)"),
      shape_variant<Tuning<256, 12>>("lookback-t256-i12", "256 threads x 12 int32 (3072-element tiles)"),
      shape_variant<Tuning<256, 24>>("lookback-t256-i24", "256 threads x 24 int32 (6144-element tiles)"),
      shape_variant<Tuning<512, 8>>("lookback-t512-i8", "512 threads x 8 int32 (4096-element tiles)"),
      shape_variant<Tuning<512, 12>>("lookback-t512-i12", "512 threads x 12 int32 (6144-element tiles)"),
      shape_variant<Tuning<512, 16>>("lookback-t512-i16", "512 threads x 16 int32 (8192-element tiles)"),
      shape_variant<Tuning<1024, 8>>("lookback-t1024-i8", "1024 threads x 8 int32 (8192-element tiles)"),
      shape_variant<Tuning<128, 32>>("lookback-t128-i32", "128 threads x 32 int32 (4096-element tiles)"),
      shape_variant<Tuning<192, 32>>("lookback-t192-i32", "192 threads x 32 int32 (6144-element tiles)"),
      shape_variant<Tuning<384, 24>>("lookback-t384-i24", "384 threads x 24 int32 (9216-element tiles)"),
      // One change each to the 256 x 16 shape.
      shape_variant<Tuning<256, 16, 64, 512, CacheHint::kStreaming>>(
          "lookback-t256-i16-stream", "256 x 16 with evict-first loads and stores (__ldcs / __stcs)"),
      shape_variant<Tuning<256, 16, 0, 0>>("lookback-t256-i16-spin",
                                          "256 x 16 without backoff: the look-back re-reads at once"),
      shape_variant<Tuning<256, 16, 64, 512, CacheHint::kDefault, TileOrder::kBlockIndex>>(
          "lookback-t256-i16-blockidx",
          "256 x 16 with tile = blockIdx.x (CUB's choice: no counter, relies on in-order block dispatch)"),
  };
}

// The stage and its shapes (the tests loop over them), then chapter 15's stage on demand: the first table's row for
// the previous stage, timed in this process.
std::vector<tut::scan::ScanVariant> with_previous_stage() {
  std::vector<tut::scan::ScanVariant> variants = lookback_variants();
  variants.push_back({"scan-decoupled-lookback", "chapter 15's stage, to compare in one run",
                      scan_decoupled_lookback::workspace_bytes, scan_decoupled_lookback::inclusive_scan, "",
                      /*on_demand=*/true});
  return variants;
}

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter("16-scan-decoupled-lookback-tuned",
                                      "single-pass decoupled look-back scan, tuned: int4 tiles in registers",
                                      with_previous_stage());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
