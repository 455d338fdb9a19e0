// GPU test of chapter 37's lab: every exchange configuration against the CPU transpose, bit for bit, at both
// lengths and batches 1, 2, 3 and 37 (the harness poisons the output, checks every element, and checks that the
// input is unchanged and no buffer's guard was written), the stage through the lab's own FFT check, and the
// command line.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include <cstdint>
#include <string>
#include <vector>

#include "device.cuh"
#include "gpu_test.cuh"

namespace {
// The lab's variants at 2^log2n: the exchanges built for it and the stage.
std::vector<std::string> variants_at(int log2n) {
  std::vector<std::string> names;
  for (const auto& v : lab_spec().variants)
    if (v.name == kStage || handles(v.name, log2n)) names.push_back(v.name);
  return names;
}
}  // namespace

TEST_CASE("lab: every exchange is the exact transpose at N = 32768 and 65536, batches 1, 2, 3 and 37") {
  for (int log2n : {15, 16}) {
    CAPTURE(log2n);
    const std::vector<std::string> names = variants_at(log2n);
    CHECK(names.size() == (log2n == 15 ? 5u : 3u));  // c8, c4, c8-e32, c8-split, the stage; c8, c8-split, the stage
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t batch : {1, 2, 3, 37}) sizes.push_back(batch << log2n);  // 37: a ragged multi-wave batch
    tut::testing::check_all_variants(tut::testing::only_variants(lab_spec(), names), sizes, {{"length", 1ll << log2n}});
  }
}

TEST_CASE("lab: the command line (lengths, a variant not built for the length, a plain run)") {
  tut::require_supported_gpu();
  using tut::testing::run_chapter_with;
  CHECK(run_chapter_with(lab_spec(), {"--length", "16384", "--size", "2^20"}) == 2);
  CHECK(run_chapter_with(lab_spec(), {"--length", "32768", "--size", "3*2^14"}) == 2);  // not a multiple
  CHECK(run_chapter_with(lab_spec(), {"--length", "65536", "--size", "2^20", "--variant", "exchange-c4"}) == 2);
  CHECK(run_chapter_with(lab_spec(), {"--length", "65536", "--size", "2^20", "--budget-ms", "1", "--warmup", "1",
                                      "--format", "csv"}) == 0);
}
