// Chapter 16: the decoupled look-back scan, tuned: int4 vector-striped loads, several items per thread,
// relaxed status words, a look-back that backs off. The stage (its predicted best configuration) first,
// then the configurations measured against it, then CUB and cudaMemcpy.
#include <string>
#include <vector>

#include "scan_reference.cuh"
#include "scan_decoupled_lookback_tuned.cuh"

namespace lookback = scan_decoupled_lookback_tuned;

template <class Tuning>
tut::scan::ScanVariant lookback_variant(const std::string& name, const std::string& description) {
  return {name, description, lookback::workspace_bytes_for<Tuning>, lookback::inclusive_scan_with<Tuning>, ""};
}

// Every configuration the chapter measures. Names read lookback-t<threads per block>-i<int32 per thread>.
std::vector<tut::scan::ScanVariant> lookback_variants() {
  using lookback::CacheHint;
  using lookback::TileOrder;
  using lookback::Tuning;
  return {
      {"scan-decoupled-lookback-tuned",
       "the stage (= lookback-t256-i16): 4096-element tiles, int4 loads, relaxed status words, backoff 64-512 ns",
       lookback::workspace_bytes, lookback::inclusive_scan, ""},
      lookback_variant<Tuning<128, 16>>("lookback-t128-i16", "128 threads x 16 int32 (2048-element tiles)"),
      lookback_variant<Tuning<128, 24>>("lookback-t128-i24", "128 threads x 24 int32: CUB's sm_90 tile shape"),
      lookback_variant<Tuning<256, 8>>("lookback-t256-i8", "256 threads x 8 int32 (2048-element tiles)"),
      lookback_variant<Tuning<256, 12>>("lookback-t256-i12", "256 threads x 12 int32 (3072-element tiles)"),
      lookback_variant<Tuning<256, 24>>("lookback-t256-i24", "256 threads x 24 int32 (6144-element tiles)"),
      lookback_variant<Tuning<512, 8>>("lookback-t512-i8", "512 threads x 8 int32 (4096-element tiles)"),
      lookback_variant<Tuning<512, 12>>("lookback-t512-i12", "512 threads x 12 int32 (6144-element tiles)"),
      lookback_variant<Tuning<512, 16>>("lookback-t512-i16", "512 threads x 16 int32 (8192-element tiles)"),
      lookback_variant<Tuning<1024, 8>>("lookback-t1024-i8", "1024 threads x 8 int32 (8192-element tiles)"),
      lookback_variant<Tuning<256, 16, 64, 512, CacheHint::kStreaming>>(
          "lookback-t256-i16-stream", "the stage with evict-first loads and stores (__ldcs / __stcs)"),
      lookback_variant<Tuning<256, 16, 0, 0>>("lookback-t256-i16-spin",
                                               "the stage without backoff: the look-back re-reads at once"),
      lookback_variant<Tuning<256, 16, 64, 512, CacheHint::kDefault, TileOrder::kBlockIndex>>(
          "lookback-t256-i16-blockidx",
          "the stage with tile = blockIdx.x (CUB's choice: no counter, relies on in-order block dispatch)"),
  };
}

tut::ChapterSpec chapter_spec() {
  return tut::scan::make_scan_chapter("16-scan-decoupled-lookback-tuned",
                                      "single-pass decoupled look-back scan, tuned: int4 tiles in registers",
                                      lookback_variants());
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) { return tut::run_chapter(argc, argv, chapter_spec()); }
#endif
