// GPU tests for chapter 59: the tensor-core ladder's tests (common/gemm_tc/tc_testing.cuh) for the planned stage
// (each shape planned, i.e. every candidate timed, before its checked run) and its candidates; the plan cache's
// promises through the stage's own path (each candidate a cached plan names is what the stage runs, and is right
// with beta != 0 and beta = 0; a cached plan naming an unknown kernel is ignored with one line and measured again);
// an empty product decided without measuring; a shape no plan saw runs the first candidate. Plans go to a folder of
// the test's own. sm_90a only: elsewhere the program skips (exit 77) with one line.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include "gemm_tc/tc_testing.cuh"
#include "hopper/hopper_testing.cuh"
#include "plan_testing.cuh"

namespace {

// No test reads the user's plan cache or writes it.
const tut::testing::ScopedPlanDir kTestPlans;

std::vector<std::string> candidate_names() {
  std::vector<std::string> names;
  for (const auto& c : by_shape_candidates()) names.push_back(c.name);
  return names;
}

}  // namespace

// First in the file (doctest runs the cases in file order): no GPU, or no sm_90a code for this one, ends the
// program with meson's SKIP status before any case.
TEST_CASE("59: the shape class is half an octave per dimension: 4096 and 6144 apart, 512 and 1000 apart") {
  using tut::gemm::half_octave;
  CHECK(half_octave(1) == "2^0");
  CHECK(half_octave(4096) == "2^12");
  CHECK(half_octave(5792) == "2^12");    // 5792^2 < 2^25 <= 5793^2: 2^12.5 = 5792.6
  CHECK(half_octave(5793) == "2^12.5");
  CHECK(half_octave(6144) == "2^12.5");
  CHECK(half_octave(8191) == "2^12.5");
  CHECK(half_octave(8192) == "2^13");
  CHECK(half_octave(512) == "2^9");
  CHECK(half_octave(1000) == "2^9.5");
  CHECK(half_octave(2147483647) == "2^30.5");
  CHECK(tut::gemm::shape_class_half_octaves(4095, 4097, 4093) == "M 2^11.5 N 2^12 K 2^11.5");
}

TEST_CASE("59: sm_90a code runs here (otherwise the whole program skips)") {
  tut::require_supported_gpu();
  tut::hopper::testing::skip_unless_sm90a();
}

TUT_TC_CHAPTER_TESTS(chapter_spec(), chapter_variants())

TEST_CASE("59: each kernel a cached plan names is what the stage runs, and is right; an unknown one is replanned") {
  tut::require_supported_gpu();
  const ByShapeStage stage;
  // 128 x 256 x 64 (within compute-sanitizer's cap) and 257 x 513 x 4096 (K split 14 ways by chapter 58's kernel
  // on 132 SMs): each is timed, then run as each candidate through the cache.
  for (const tut::gemm_tc::testing::Shape s : {tut::gemm_tc::testing::Shape{128, 256, 64}, {257, 513, 4096}}) {
    if (tut::testing::under_sanitizer() && static_cast<long long>(s.m) * s.n * s.k > (1LL << 21)) continue;
    CAPTURE(s.m);
    CAPTURE(s.n);
    CAPTURE(s.k);
    const auto plan_and_check = [&] {
      tut::gemm_tc::testing::check_variants_at({stage.variant}, {s});
      const std::string chosen = tut::testing::choice_of(tut::plan_lines().back());
      CHECK(stage.planned->choice_at(s.m, s.n, s.k) == chosen);
      tut::gemm_tc::testing::check_variants_at({stage.variant}, {s}, 1.0f, 0.0f);  // C holds NaN: never read
    };
    tut::testing::check_each_cached_choice(candidate_names(), plan_and_check);
    tut::testing::check_unknown_candidate_is_replanned(plan_and_check);
  }
}

TEST_CASE("59: the plan line of a measured shape names every candidate's time; an empty product is not measured") {
  tut::require_supported_gpu();
  const tut::testing::ScopedPlanDir dir;
  const ByShapeStage stage;
  const tut::gemm_tc::testing::Shape measured{130, 200, 72};  // within compute-sanitizer's M N K cap of 2^21
  const std::string line =
      tut::testing::plan_line_of([&] { tut::gemm_tc::testing::check_variants_at({stage.variant}, {measured}); });
  INFO(line);
  const std::string shape_class = tut::gemm::shape_class_half_octaves(measured.m, measured.n, measured.k);
  CHECK(line.rfind("plan: 59 bf16 gemm " + shape_class + ": ", 0) == 0);
  CHECK(line.find("(measured: 4 candidates bf16-gemm-split-k ") != std::string::npos);
  CHECK(line.find(", bf16-gemm-tma-mbarrier ") != std::string::npos);
  CHECK(line.find(", ping-pong ") != std::string::npos);
  CHECK(line.find(", epilogue-prefetch ") != std::string::npos);
  for (const auto& s : {tut::gemm_tc::testing::Shape{0, 256, 64}, {128, 0, 64}, {128, 256, 0}}) {
    const std::string empty =
        tut::testing::plan_line_of([&] { tut::gemm_tc::testing::check_variants_at({stage.variant}, {s}); });
    INFO(empty);
    CHECK(empty.find(": bf16-gemm-split-k (model: no products to multiply, nothing to measure)") != std::string::npos);
  }
}

TEST_CASE("59: a shape no plan saw runs the first candidate (chapter 58's), and is right") {
  tut::require_supported_gpu();
  const ByShapeStage stage;
  CHECK(stage.planned->choice_at(300, 200, 100) == "bf16-gemm-split-k");
  // The set-up without the plan: the launch finds no plan at this shape.
  tut::gemm_tc::TcVariant unplanned = stage.variant;
  unplanned.plan = nullptr;
  tut::gemm_tc::testing::check_variants_at({unplanned}, {{300, 200, 104}, {33, 65, 1000}});
}

TEST_CASE("59: the stage is the one default variant, its candidates and the fallback are on demand") {
  const tut::ChapterSpec spec = chapter_spec();
  int stages = 0;
  for (const auto& v : spec.variants) {
    if (v.name == "bf16-gemm-by-shape") {
      CHECK_FALSE(v.on_demand);
      ++stages;
    } else if (v.name != "cublas") {
      CHECK(v.on_demand);
    }
  }
  CHECK(stages == 1);
  CHECK(tut::hopper::needs_sm90a(chapter_variants(), "bf16-gemm-split-k"));
  CHECK_FALSE(tut::hopper::needs_sm90a(chapter_variants(), "bf16-gemm-cp-async-pipeline"));
}

TEST_CASE("59: K not a multiple of 8 runs on copies of A and B padded to one; a shape set-up did not size throws") {
  tut::require_supported_gpu();
  CHECK(gemm_by_shape::padded_k(1) == 8);
  CHECK(gemm_by_shape::padded_k(4093) == 4096);
  CHECK(gemm_by_shape::padded_k(4096) == 4096);
  CHECK_FALSE(gemm_by_shape::needs_padded_k(0));
  CHECK_FALSE(gemm_by_shape::needs_padded_k(64));
  const ByShapeStage stage;
  // Planned and unplanned, one to seven pad columns, the pad buffers' guards and A and B's checksums checked by
  // check_variants_at (A and B are never written: the copies are).
  tut::gemm_tc::TcVariant unplanned = stage.variant;
  unplanned.plan = nullptr;
  const std::vector<tut::gemm_tc::testing::Shape> ragged = {{1, 1, 1}, {130, 257, 7}, {257, 129, 65}, {64, 300, 1023}};
  tut::gemm_tc::testing::check_variants_at({stage.variant}, ragged);
  tut::gemm_tc::testing::check_variants_at({unplanned}, ragged);
  tut::gemm_tc::testing::check_variants_at({stage.variant}, {{130, 257, 7}}, 1.0f, 0.0f);  // C holds NaN: never read
  // A launch at a ragged shape the set-up did not see has no padded copies to run on: one clear error, no kernel.
  stage.variant.setup(128, 128, 33);
  tut::DeviceBuffer<tut::gemm_tc::bf16> a(128 * 40), b(128 * 40);
  tut::DeviceBuffer<float> c(128 * 128);
  CHECK_THROWS_WITH_AS(stage.planned->run(128, 128, 39, 1.0f, a.data(), b.data(), 0.0f, c.data(), 0),
                       doctest::Contains("set-up did not size them for 128 x 128 x 39"), std::logic_error);
}

TEST_CASE("59: pad_rows_kernel past 2^31 values: the last rows copied and padded (64-bit indices)") {
  tut::require_supported_gpu();
  if (tut::testing::under_sanitizer()) {
    MESSAGE("skipped under compute-sanitizer (8.6 GB)");
    return;
  }
  // 2^19 rows of K = 4097 (2^31 + 524288 values), padded to K8 = 4104: every index past 2^31 in both buffers.
  constexpr int k = 4097, rows = 1 << 19;
  const int k8 = gemm_by_shape::padded_k(k);
  static_assert(static_cast<long long>(rows) * k > (1LL << 31), "the source passes 2^31 values");
  std::size_t free = 0, total = 0;
  TUT_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  const std::size_t need = static_cast<std::size_t>(rows) * (k + k8) * sizeof(tut::gemm_tc::bf16);
  if (free < need + (need >> 3)) {
    MESSAGE("skipped: needs " << (need >> 30) << " GiB of free device memory");
    return;
  }
  using tut::gemm_tc::bf16;
  tut::DeviceBuffer<bf16> a(static_cast<std::size_t>(rows) * k), b(k);
  TUT_CUDA_CHECK(cudaMemset(a.data(), 0x3f, a.bytes()));  // every value 0x3f3f (0.746)
  TUT_CUDA_CHECK(cudaMemset(b.data(), 0x3f, b.bytes()));
  gemm_by_shape::PaddedOperands padded;
  padded.reserve(rows, 1, k);
  const auto [a8, b8] = padded.pad(rows, 1, k, a.data(), b.data(), 0);
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  // The first row, a row across the 2^31st value, and the last row of A; B's one row.
  const long long across = (1LL << 31) / k8;
  for (const auto& at : {std::make_pair(a8, 0LL), std::make_pair(a8, across), std::make_pair(a8, rows - 1LL),
                         std::make_pair(b8, 0LL)}) {
    const bf16* const buffer = at.first;
    const long long row = at.second;
    std::vector<unsigned short> got(k8);
    TUT_CUDA_CHECK(cudaMemcpy(got.data(), buffer + row * k8, k8 * sizeof(bf16), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int c = 0; c < k8; ++c) wrong += got[c] != (c < k ? 0x3f3f : 0);
    INFO("row " << row);
    CHECK(wrong == 0);
  }
  const std::vector<std::string> damaged = tut::check_device_buffers();
  CHECK_MESSAGE(damaged.empty(), (damaged.empty() ? "" : damaged.front()));
}
