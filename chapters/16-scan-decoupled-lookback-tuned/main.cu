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

// The tile lands in shared memory (cp.async or, on sm_90+, one bulk copy) and is read twice from there.
template <class Tuning>
tut::scan::ScanVariant staged_variant(const std::string& name, const std::string& description) {
  return {name, description, lookback::workspace_bytes_for<Tuning>, lookback::inclusive_scan_staged<Tuning>, ""};
}

// Every configuration the chapter measures. Names read lookback-t<threads per block>-i<int32 per thread>.
std::vector<tut::scan::ScanVariant> lookback_variants() {
  using lookback::CacheHint;
  using lookback::Launch;
  using lookback::TileOrder;
  using lookback::Tuning;
  using lookback::WithBackoff;
  using lookback::Offsets;
  using lookback::Staging;
  using lookback::StagedTuning;
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
      // One tile per block, landing in shared memory instead of registers (cp.async, or one bulk copy).
      staged_variant<StagedTuning<256, 32, Staging::kCpAsync>>(
          "lookback-staged-cpasync-t256-i32", "tile in shared memory via cp.async, 256 threads x 32 int32"),
      staged_variant<StagedTuning<256, 32, Staging::kBulkCopy>>(
          "lookback-staged-bulk-t256-i32", "sm_90+: tile in shared memory via bulk copies, 256 threads x 32 int32"),
      staged_variant<StagedTuning<128, 32, Staging::kCpAsync>>(
          "lookback-staged-cpasync-t128-i32", "tile in shared memory via cp.async, 128 threads x 32 int32"),
      staged_variant<StagedTuning<128, 48, Staging::kCpAsync>>(
          "lookback-staged-cpasync-t128-i48", "tile in shared memory via cp.async, 128 threads x 48 int32"),
      staged_variant<StagedTuning<128, 48, Staging::kBulkCopy>>(
          "lookback-staged-bulk-t128-i48", "sm_90+: tile in shared memory via bulk copies, 128 threads x 48 int32"),
      staged_variant<StagedTuning<64, 96, Staging::kCpAsync>>(
          "lookback-staged-cpasync-t64-i96", "tile in shared memory via cp.async, 64 threads x 96 int32"),
      staged_variant<StagedTuning<32, 128, Staging::kCpAsync>>(
          "lookback-staged-cpasync-t32-i128", "tile in shared memory via cp.async, 32 threads x 128 int32"),
      staged_variant<StagedTuning<128, 48, Staging::kCpAsync, TileOrder::kBlockIndex>>(
          "lookback-staged-cpasync-t128-i48-blockidx", "the staged t128-i48 with tile = blockIdx.x (no counter)"),
      // Hybrids: part of the tile in shared memory, the rest in registers.
      staged_variant<StagedTuning<128, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 8>>(
          "lookback-hybrid-cpasync-t128-s48-r8", "128 threads x (48 int32 via cp.async + 8 in registers)"),
      staged_variant<StagedTuning<128, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 16>>(
          "lookback-hybrid-cpasync-t128-s48-r16", "128 threads x (48 int32 via cp.async + 16 in registers)"),
      // Fewer registers: pass 2 scans the rows again instead of keeping each vector's offset, so more rows fit
      // in registers at 9 blocks per SM.
      staged_variant<StagedTuning<128, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 0, Offsets::kRecomputed, 9>>(
          "lookback-rescan-cpasync-t128-i48", "the staged t128-i48, offsets recomputed in pass 2"),
      staged_variant<StagedTuning<128, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 16, Offsets::kRecomputed, 9>>(
          "lookback-rescan-hybrid-cpasync-t128-s48-r16", "the hybrid t128-s48-r16, offsets recomputed in pass 2"),
      staged_variant<StagedTuning<128, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 24, Offsets::kRecomputed, 9>>(
          "lookback-rescan-hybrid-cpasync-t128-s48-r24", "128 x (48 via cp.async + 24 in registers), 9 blocks/SM"),
      staged_variant<StagedTuning<128, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 32, Offsets::kRecomputed, 9>>(
          "lookback-rescan-hybrid-cpasync-t128-s48-r32", "128 x (48 via cp.async + 32 in registers), 9 blocks/SM"),
      staged_variant<StagedTuning<128, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 40, Offsets::kRecomputed, 8>>(
          "lookback-rescan-hybrid-cpasync-t128-s48-r40", "128 x (48 via cp.async + 40 in registers), 8 blocks/SM"),
      staged_variant<StagedTuning<128, 40, Staging::kCpAsync, TileOrder::kAtomicCounter, 24, Offsets::kRecomputed, 10>>(
          "lookback-rescan-hybrid-cpasync-t128-s40-r24", "128 x (40 via cp.async + 24 in registers), 10 blocks/SM"),
      staged_variant<StagedTuning<128, 48, Staging::kBulkCopy, TileOrder::kAtomicCounter, 32, Offsets::kRecomputed, 9>>(
          "lookback-rescan-hybrid-bulk-t128-s48-r32",
          "sm_90+: 128 x (48 via bulk copies + 32 in registers), 9 blocks/SM"),
      staged_variant<StagedTuning<128, 48, Staging::kCpAsync, TileOrder::kBlockIndex, 32, Offsets::kRecomputed, 9>>(
          "lookback-rescan-hybrid-cpasync-t128-s48-r32-blockidx", "the rescan t128-s48-r32 with tile = blockIdx.x"),
      // Other block sizes, 80 items per thread each, as many blocks per SM as registers and shared memory allow:
      // a smaller block holds less of the SM's landing zone idle while it waits for its look-back, a bigger one
      // pays for fewer look-backs and barriers per byte. 192 threads is the fastest with the counter.
      staged_variant<StagedTuning<64, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 32, Offsets::kRecomputed, 18>>(
          "lookback-rescan-hybrid-cpasync-t64-s48-r32",
          "64 x (48 via cp.async + 32 in registers), 17 blocks/SM (shared memory)"),
      staged_variant<StagedTuning<96, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 32, Offsets::kRecomputed, 12>>(
          "lookback-rescan-hybrid-cpasync-t96-s48-r32",
          "96 x (48 via cp.async + 32 in registers), 11 blocks/SM (shared memory)"),
      staged_variant<StagedTuning<160, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 32, Offsets::kRecomputed, 7>>(
          "lookback-rescan-hybrid-cpasync-t160-s48-r32", "160 x (48 via cp.async + 32 in registers), 7 blocks/SM"),
      staged_variant<StagedTuning<192, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 32, Offsets::kRecomputed, 6>>(
          "lookback-rescan-hybrid-cpasync-t192-s48-r32", "192 x (48 via cp.async + 32 in registers), 6 blocks/SM"),
      staged_variant<StagedTuning<224, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 32, Offsets::kRecomputed, 5>>(
          "lookback-rescan-hybrid-cpasync-t224-s48-r32", "224 x (48 via cp.async + 32 in registers), 5 blocks/SM"),
      staged_variant<StagedTuning<256, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 32, Offsets::kRecomputed, 4>>(
          "lookback-rescan-hybrid-cpasync-t256-s48-r32", "256 x (48 via cp.async + 32 in registers), 4 blocks/SM"),
      staged_variant<StagedTuning<160, 48, Staging::kCpAsync, TileOrder::kBlockIndex, 32, Offsets::kRecomputed, 7>>(
          "lookback-rescan-hybrid-cpasync-t160-s48-r32-blockidx", "the rescan t160-s48-r32 with tile = blockIdx.x"),
      staged_variant<StagedTuning<192, 48, Staging::kCpAsync, TileOrder::kBlockIndex, 32, Offsets::kRecomputed, 6>>(
          "lookback-rescan-hybrid-cpasync-t192-s48-r32-blockidx", "the rescan t192-s48-r32 with tile = blockIdx.x"),
      // The look-back's backoff (the default: 64 ns, doubling up to 512 ns).
      staged_variant<WithBackoff<StagedTuning<128, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 32,
                                              Offsets::kRecomputed, 9>, 16, 128>>(
          "lookback-rescan-hybrid-cpasync-t128-s48-r32-sleep16-128", "the rescan t128-s48-r32, backoff 16-128 ns"),
      staged_variant<WithBackoff<StagedTuning<128, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 32,
                                              Offsets::kRecomputed, 9>, 128, 1024>>(
          "lookback-rescan-hybrid-cpasync-t128-s48-r32-sleep128-1024", "the rescan t128-s48-r32, backoff 128-1024 ns"),
      // Programmatic dependent launch (sm_90+): the scan starts while the status reset is still running.
      staged_variant<StagedTuning<128, 48, Staging::kCpAsync, TileOrder::kAtomicCounter, 32, Offsets::kRecomputed, 9,
                                  Launch::kProgrammatic>>(
          "lookback-rescan-hybrid-cpasync-t128-s48-r32-pdl",
          "the rescan t128-s48-r32, launched to overlap the status reset (waits before taking a tile)"),
      staged_variant<StagedTuning<128, 48, Staging::kCpAsync, TileOrder::kBlockIndex, 32, Offsets::kRecomputed, 9,
                                  Launch::kProgrammatic>>(
          "lookback-rescan-hybrid-cpasync-t128-s48-r32-blockidx-pdl",
          "the same with tile = blockIdx.x: loads the tile first, waits for the reset before the look-back"),
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
