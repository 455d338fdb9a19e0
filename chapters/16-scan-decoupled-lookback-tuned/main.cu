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

template <class Tuning>
tut::scan::ScanVariant prefetch_variant(const std::string& name, const std::string& description) {
  return {name, description, lookback::workspace_bytes_for<Tuning>, lookback::inclusive_scan_prefetch<Tuning>, ""};
}

// Below sm_90 (or with misaligned buffers) these run the register path with the same tiles.
template <class Tuning>
tut::scan::ScanVariant bulk_copy_variant(const std::string& name, const std::string& description) {
  return {name, description, lookback::workspace_bytes_for<Tuning>, lookback::inclusive_scan_bulk_copy<Tuning>, ""};
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
      // Bigger tiles: more bytes per load phase, fewer look-backs per byte, more registers.
      lookback_variant<Tuning<256, 32>>("lookback-t256-i32", "256 threads x 32 int32 (8192-element tiles)"),
      lookback_variant<Tuning<128, 32>>("lookback-t128-i32", "128 threads x 32 int32 (4096-element tiles)"),
      lookback_variant<Tuning<192, 32>>("lookback-t192-i32", "192 threads x 32 int32 (6144-element tiles)"),
      lookback_variant<Tuning<384, 24>>("lookback-t384-i24", "384 threads x 24 int32 (9216-element tiles)"),
      // Persistent grids that load the next tile(s) before looking back on the current one.
      prefetch_variant<Tuning<256, 16>>(
          "lookback-persistent-prefetch-t256-i16",
          "persistent grid; each thread loads the next tile into registers before scanning the current one"),
      prefetch_variant<Tuning<256, 12>>("lookback-persistent-prefetch-t256-i12",
                                        "the same with 256 threads x 12 int32 (2 x 12 items in registers)"),
      bulk_copy_variant<lookback::BulkCopyTuning<256, 16, 4>>(
          "lookback-bulkcopy-t256-i16-s4",
          "sm_90+: persistent grid, cp.async.bulk (TMA) into a ring of 4 tiles of 16 KiB in shared memory"),
      bulk_copy_variant<lookback::BulkCopyTuning<256, 24, 3>>(
          "lookback-bulkcopy-t256-i24-s3", "sm_90+: bulk copies, ring of 3 tiles of 24 KiB (256 threads x 24)"),
      bulk_copy_variant<lookback::BulkCopyTuning<256, 32, 3>>(
          "lookback-bulkcopy-t256-i32-s3", "sm_90+: bulk copies, ring of 3 tiles of 32 KiB (256 threads x 32)"),
      bulk_copy_variant<lookback::BulkCopyTuning<128, 24, 4>>(
          "lookback-bulkcopy-t128-i24-s4", "sm_90+: bulk copies, ring of 4 tiles of 12 KiB (128 threads x 24)"),
      bulk_copy_variant<lookback::BulkCopyTuning<512, 16, 3>>(
          "lookback-bulkcopy-t512-i16-s3", "sm_90+: bulk copies, ring of 3 tiles of 32 KiB (512 threads x 16)"),
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
