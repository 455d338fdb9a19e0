// GPU tests for chapter 18: every variant, for every value type and operator, against the CPU at adversarial sizes,
// tile boundaries (both tile sizes of each type), multi-tile sizes and, for 32-bit types where memory allows,
// 2^31 + 7; twice in a row on one workspace (the status words reset); floating-point sums also on integer-valued
// inputs (exact) and run to run (deterministic bits); a carry-in (chapter 40) for int32 sums and uint32 max.
#define TUT_CHAPTER_NO_MAIN
#include "main.cu"

#include <string>
#include <vector>

#include "gpu_test.cuh"
#include "scan_testing.cuh"

namespace {

using tut::testing::check_all_variants;

// --type / --op index pairs: every combination.
std::vector<std::pair<long long, long long>> every_type_and_op() {
  std::vector<std::pair<long long, long long>> all;
  for (long long t = 0; t < 5; ++t)
    for (long long op = 0; op < 2; ++op) all.push_back({t, op});
  return all;
}

// Items per tile of the stage (60 KiB) and of the larger-tile variant (72 KiB), for a value of `bytes` bytes.
std::uint64_t stage_tile(long long type) { return 60 * 1024 / copy_bound::value_bytes(type); }
std::uint64_t large_tile(long long type) { return 72 * 1024 / copy_bound::value_bytes(type); }

std::vector<std::uint64_t> boundary_sizes(std::uint64_t tile) {
  return {tile - 1, tile, tile + 1, 2 * tile + 1, 32 * tile + 1, 33 * tile - 1, 65 * tile + 7};
}

}  // namespace

// The type/op pairs that get every variant (the variants' ideas are the same for every type: int32 and the two
// 8-byte paths of the look-back suffice); the others get the stage. Kept small: the GPU tests share one GPU.
bool every_variant_for(long long type, long long op) {
  return (type == 0 && op == 0) || (type == 2 && op == 0) || (type == 3 && op == 0) || (type == 4 && op == 1);
}

// Every variant that scans this type with this operator: chapter 17's stage (on demand, the previous stage's row of
// the first table) scans int32 and uint32 sums only.
tut::ChapterSpec every_variant_that_scans(long long type, long long op) {
  tut::ChapterSpec spec = chapter_spec();
  if (!copy_bound::previous_stage_scans(type, op))
    spec.variants.erase(std::remove_if(spec.variants.begin(), spec.variants.end(),
                                       [](const tut::VariantSpec& v) { return v.name == copy_bound::kPreviousStage; }),
                        spec.variants.end());
  return spec;
}

TEST_CASE("18: every type and operator at adversarial and tile-boundary sizes (every variant for four of them)") {
  for (const auto& type_op : every_type_and_op()) {
    const long long type = type_op.first, op = type_op.second;
    CAPTURE(copy_bound::kTypeNames[type]);
    CAPTURE(copy_bound::kOpNames[op]);
    const std::vector<std::pair<std::string, long long>> extra = {{"type", type}, {"op", op}};
    std::vector<std::uint64_t> sizes = tut::testing::adversarial_sizes({(1u << 24) + 3});
    for (std::uint64_t n : boundary_sizes(stage_tile(type))) sizes.push_back(n);
    for (std::uint64_t n : boundary_sizes(large_tile(type))) sizes.push_back(n);
    const tut::ChapterSpec spec = every_variant_for(type, op)
                                      ? every_variant_that_scans(type, op)
                                      : tut::testing::only_variants(chapter_spec(), {"scan-copy-bound", "cub"});
    check_all_variants(spec, sizes, extra);
  }
}

TEST_CASE("18: the stage at 2^28 for int32, int64 and float sums and double max") {
  for (const auto& [type, op] : std::vector<std::pair<long long, long long>>{{0, 0}, {2, 0}, {3, 0}, {4, 1}})
    check_all_variants(tut::testing::only_variants(chapter_spec(), {"scan-copy-bound"}), {1u << 28},
                       {{"type", type}, {"op", op}});
}

TEST_CASE("18: int32 past 2^31 elements (64-bit indexing), the stage and the bulk-copy variant") {
  check_all_variants(tut::testing::only_variants(chapter_spec(), {"scan-copy-bound", "copy-bound-bulk"}),
                     {(1ull << 31) + 7}, {{"type", 0}, {"op", 0}});
}

// Twice in a row on the same workspace, without re-poisoning it, and twice back to back in the stream: the
// status reset must make each run stand alone. Floating-point sums must also give the same bits each time
// (the look-back folds tile aggregates in tile order, wherever it stops).
template <class T, class Op>
void check_repeated(const std::string& variant, std::uint64_t n, bool integer_valued) {
  using S = scan_copy_bound::ScanType<T, Op>;
  const std::vector<T> host = copy_bound::make_input<T>(n, tut::testing::test_seed() + n, integer_valued);
  const auto reference = copy_bound::cpu_reference<T, Op>(host);
  tut::DeviceBuffer<T> in(host), out(n);
  tut::DeviceBuffer<unsigned char> workspace(copy_bound::workspace_bytes<T, Op>(n) + 1);
  std::vector<T> first;
  copy_bound::with_tuning<S, Op>(variant, [&](auto k) {
    using K = decltype(k);
    scan_copy_bound::setup_scan<K>();
    tut::DeviceBuffer<std::uint64_t> stamps(scan_copy_bound::tile_count<K>(n) * scan_copy_bound::kStamps + 1);
    const auto run = [&] {
      scan_copy_bound::inclusive_scan_with<K>(reinterpret_cast<const S*>(in.data()), reinterpret_cast<S*>(out.data()),
                                              n, workspace.data(), 0, stamps.data());
    };
    workspace.poison();
    for (int step = 0; step < 3; ++step) {
      out.poison();
      run();
      if (step == 2) run();  // back to back
      TUT_CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<T> got = out.download();
      INFO(variant << " sizeof(T) " << sizeof(T) << " n = " << n << " step " << step);
      tut::CheckResult r;
      if (integer_valued && std::is_floating_point_v<T>) r = tut::compare_exact(copy_bound::make_exact_integer_scan<T>(host), got);
      else r = copy_bound::check_output<T, Op>(reference, got);
      CHECK_MESSAGE(r.ok, r.message());
      if (step == 0) first = got;
      else CHECK_MESSAGE(tut::compare_exact(first, got).ok, "a repeated run gave different bits");
    }
  });
}

TEST_CASE("18: repeated runs, every variant, type and operator; floating-point sums deterministic") {
  const std::vector<std::uint64_t> sizes = {1, 33 * 15360 + 5, tut::testing::under_sanitizer() ? 4097u : (1u << 20) + 3};
  for (const auto& v : copy_bound::kVariants)
    for (std::uint64_t n : sizes) {
      check_repeated<std::int32_t, scan_copy_bound::Sum>(v.name, n, false);
      check_repeated<std::uint32_t, scan_copy_bound::Max>(v.name, n, false);
      check_repeated<std::int64_t, scan_copy_bound::Sum>(v.name, n, false);
      check_repeated<std::int64_t, scan_copy_bound::Max>(v.name, n, false);
      check_repeated<float, scan_copy_bound::Sum>(v.name, n, false);
      check_repeated<float, scan_copy_bound::Sum>(v.name, n, true);
      check_repeated<double, scan_copy_bound::Sum>(v.name, n, false);
      check_repeated<double, scan_copy_bound::Sum>(v.name, n, true);
      check_repeated<double, scan_copy_bound::Max>(v.name, n, false);
    }
}

// Max where its identity is reached: inputs entirely below zero, all -inf, +-inf among finite values, NaN
// (scan_copy_bound.cuh's policy: NaN propagates with the bits of the last NaN so far; otherwise the first of equal
// maxima, so -0.0 then 0.0 scans to -0.0), and uint32's identity 0 as the whole input. The expected output is
// computed here from that policy, not with the kernel's operator. Every variant, one tile, a few tiles, and 33
// tiles (a look-back window of more than 32 predecessors). Before the fix the identity was lowest(): an all -inf
// float or double input longer than one tile scanned to -FLT_MAX / -DBL_MAX from the second tile on.
template <class T>
std::vector<T> expected_max_scan(const std::vector<T>& x) {
  std::vector<T> y(x.size());
  bool seen_nan = false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x[i])) {
        seen_nan = true;
        y[i] = x[i];
        continue;
      }
    }
    y[i] = i == 0 || (!seen_nan && y[i - 1] < x[i]) ? x[i] : y[i - 1];
  }
  return y;
}

template <class T>
void check_max_values(const std::string& variant, const std::string& what, const std::vector<T>& host) {
  const std::size_t n = host.size();
  const std::vector<T> expected = expected_max_scan(host);
  tut::DeviceBuffer<T> in(host), out(n);
  tut::DeviceBuffer<unsigned char> workspace(copy_bound::workspace_bytes<T, scan_copy_bound::Max>(n) + 1);
  copy_bound::with_tuning<T, scan_copy_bound::Max>(variant, [&](auto k) {
    using K = decltype(k);
    scan_copy_bound::setup_scan<K>();
    tut::DeviceBuffer<std::uint64_t> stamps(scan_copy_bound::tile_count<K>(n) * scan_copy_bound::kStamps + 1);
    workspace.poison();
    out.poison();
    scan_copy_bound::inclusive_scan_with<K>(in.data(), out.data(), n, workspace.data(), 0, stamps.data());
    TUT_CUDA_CHECK(cudaDeviceSynchronize());
  });
  INFO(variant << " sizeof(T) " << sizeof(T) << " n = " << n << ": " << what);
  const tut::CheckResult r = tut::compare_exact(expected, out.download());  // bits: -0.0, -inf, NaN included
  CHECK_MESSAGE(r.ok, r.message());
  CHECK_MESSAGE(tut::compare_exact(host, in.download()).ok, "the input changed");
}

template <class T>
void check_max_special_values(const std::string& variant, std::size_t n) {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const std::size_t tile = stage_tile(sizeof(T) == 4 ? 3 : 4);
  std::vector<T> below = copy_bound::make_input<T>(n, tut::testing::test_seed() + n);
  for (T& v : below) v = v - T(2);  // [-3, -1): every item below zero
  check_max_values(variant, "every item in [-3, -1)", below);
  check_max_values(variant, "every item -inf", std::vector<T>(n, -inf));
  check_max_values(variant, "every item -max()", std::vector<T>(n, -std::numeric_limits<T>::max()));
  std::vector<T> zeros(n, T(0));
  for (std::size_t i = 0; i < n; i += 2) zeros[i] = -T(0);
  check_max_values(variant, "-0.0 and 0.0 alternating (the first of equal maxima)", zeros);
  std::vector<T> infs(n, -inf);
  for (std::size_t i = 0; i < n; ++i) infs[i] = i % 7 == 3 ? below[i] : -inf;
  infs[n - 1 - n / 3] = inf;  // +inf late in the input: every output from there on
  check_max_values(variant, "-inf, values below zero, one +inf", infs);
  std::vector<T> nans = below;
  nans[std::min(n - 1, tile + 5)] = nan;  // in the second tile where there is one: propagates across tiles
  check_max_values(variant, "one NaN", nans);
  check_max_values(variant, "every item NaN", std::vector<T>(n, nan));
  std::vector<T> lead = std::vector<T>(n, -inf);
  lead[0] = nan;
  check_max_values(variant, "NaN first, then -inf", lead);
}

TEST_CASE("18: max reaches its identity: inputs below zero, -inf, +inf, NaN (propagates), -0.0, every variant") {
  const std::size_t t = stage_tile(3);  // the stage's float tile, two of double's
  const std::size_t window = tut::testing::under_sanitizer() ? 3 * t + 5 : 33 * t + 5;  // > 32 predecessors
  for (const auto& v : copy_bound::kVariants) {
    for (std::size_t n : {std::size_t{1}, std::size_t{33}, t + 1, 3 * t + 5, window}) {
      check_max_special_values<float>(v.name, n);
      check_max_special_values<double>(v.name, n);
    }
    for (std::size_t n : {std::size_t{1}, 3 * t + 5, window}) {
      std::vector<std::int32_t> i32 = copy_bound::make_input<std::int32_t>(n, tut::testing::test_seed() + n);
      for (auto& x : i32) x = x < 0 ? x : -1 - x;  // every item below zero
      check_max_values(v.name, "int32 below zero", i32);
      check_max_values(v.name, "int32 lowest()", std::vector<std::int32_t>(n, INT32_MIN));
      std::vector<std::int64_t> i64 = copy_bound::make_input<std::int64_t>(n, tut::testing::test_seed() + n);
      for (auto& x : i64) x = x < 0 ? x : -1 - x;
      check_max_values(v.name, "int64 below zero", i64);
      check_max_values(v.name, "uint32 all 0 (the identity)", std::vector<std::uint32_t>(n, 0u));
    }
  }
}

// A carry in front of the scan (chapter 40's shards): out[i] = op(carry, x[0] .. x[i]), against the CPU, for
// int32 sums (wrapping: the carry and the sums overflow int32) and uint32 max, every variant, aligned buffers and
// buffers one element off alignment (the item-by-item path), at adversarial and tile-boundary sizes.
template <class T, class Op>
void check_carry_in(const std::string& variant, std::uint64_t n, T carry, std::size_t offset) {
  using S = scan_copy_bound::ScanType<T, Op>;
  const std::vector<T> host = copy_bound::make_input<T>(n, tut::testing::test_seed() + 3 * n + offset);
  std::vector<T> expected = copy_bound::cpu_reference<T, Op>(host).exact;
  for (T& e : expected) e = static_cast<T>(Op{}(static_cast<S>(carry), static_cast<S>(e)));
  std::vector<T> padded(offset, T{});
  padded.insert(padded.end(), host.begin(), host.end());
  tut::DeviceBuffer<T> in(padded), out(n + offset);
  tut::DeviceBuffer<unsigned char> workspace(copy_bound::workspace_bytes<T, Op>(n) + 1);
  copy_bound::with_tuning<S, Op>(variant, [&](auto k) {
    using K = decltype(k);
    scan_copy_bound::setup_scan<K, /*WithCarry=*/true>();
    tut::DeviceBuffer<std::uint64_t> stamps(scan_copy_bound::tile_count<K>(n) * scan_copy_bound::kStamps + 1);
    workspace.poison();
    out.poison();
    scan_copy_bound::inclusive_scan_with<K>(reinterpret_cast<const S*>(in.data()) + offset,
                                            reinterpret_cast<S*>(out.data()) + offset, n, workspace.data(), 0,
                                            stamps.data(), scan_copy_bound::CarryIn<S>{static_cast<S>(carry), true});
    TUT_CUDA_CHECK(cudaDeviceSynchronize());
  });
  std::vector<T> got = out.download();
  got.erase(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(offset));
  INFO(variant << " sizeof(T) " << sizeof(T) << " n = " << n << " carry " << +carry << " offset " << offset);
  const tut::CheckResult r = tut::compare_exact(expected, got);
  CHECK_MESSAGE(r.ok, r.message());
}

TEST_CASE("18: a carry-in is folded in front of every output (int32 sum wrapping, uint32 max)") {
  const std::uint64_t tile = stage_tile(0);
  const std::vector<std::uint64_t> sizes = tut::testing::adversarial_sizes({tile - 1, tile, tile + 1, 33 * tile + 5});
  for (const auto& v : copy_bound::kVariants)
    for (std::uint64_t n : sizes)
      for (std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
        if (v.name != "scan-copy-bound" && offset == 1) continue;  // the guarded path is the same for every tuning
        for (std::int32_t carry : {std::int32_t{123456789}, INT32_MAX, INT32_MIN, std::int32_t{-1}})
          check_carry_in<std::int32_t, scan_copy_bound::Sum>(v.name, n, carry, offset);
        check_carry_in<std::uint32_t, scan_copy_bound::Max>(v.name, n, 0x80000000u, offset);
      }
}

// The stage launched one element too long (the guard after the output must be named) and one too short (the
// poison at the last element), for every type and operator: in the last partial tile, in a tile of its own where
// n is a multiple of the tile, and at warp-segment edges (common/scan_testing.cuh's verdicts, as chapter 15's).
TEST_CASE("18: planted size bugs: n + 1 overruns the output's guard, n - 1 leaves the last element") {
  for (const auto& type_op : every_type_and_op()) {
    const long long type = type_op.first, op = type_op.second;
    CAPTURE(copy_bound::kTypeNames[type]);
    CAPTURE(copy_bound::kOpNames[op]);
    const std::uint64_t tile = stage_tile(type);
    const std::uint64_t warp_items = tile / 6;  // 6 warps of 192 threads
    const auto planted_spec = [](int delta) {
      tut::ChapterSpec spec = tut::testing::only_variants(chapter_spec(), {"scan-copy-bound"});
      spec.make_workload = [delta] { return std::make_unique<copy_bound::CopyBoundWorkload>(delta); };
      return spec;
    };
    const tut::ChapterSpec past_spec = planted_spec(+1), short_spec = planted_spec(-1);
    // Float sums stop at 3 tiles: the float check's bound grows with n (eps * n / 1024 * sum |x|), and far
    // beyond that a poisoned last element could fall within it of a prefix sum near zero.
    const bool float_sum = type == 3 && op == 0;
    for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{33}, std::uint64_t{1025}, warp_items + 1, tile, tile + 1,
                            3 * tile, 100 * tile + 17}) {
      if (float_sum && n > 3 * tile) continue;
      CAPTURE(n);
      const std::vector<std::pair<std::string, long long>> extra = {{"type", type}, {"op", op}};
      tut::scan::check_planted_size_verdicts(
          tut::testing::run_variant(past_spec, "scan-copy-bound", n, extra),
          tut::testing::run_variant(short_spec, "scan-copy-bound", n, extra), n, copy_bound::kTypeNames[type]);
    }
  }
}

TEST_CASE("18: the float check rejects NaN and a planted error") {
  const std::vector<float> x = copy_bound::make_input<float>(5000, 7);
  const auto ref = copy_bound::cpu_reference<float, scan_copy_bound::Sum>(x);
  std::vector<float> good(x.size());
  float s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) good[i] = s += x[i];
  CHECK(copy_bound::check_output<float, scan_copy_bound::Sum>(ref, good).ok);
  auto nan = good;
  nan[4000] = std::numeric_limits<float>::quiet_NaN();
  CHECK_FALSE(copy_bound::check_output<float, scan_copy_bound::Sum>(ref, nan).ok);
  auto off = good;
  off[4000] += 0.5f;  // one element's worth of error
  CHECK_FALSE(copy_bound::check_output<float, scan_copy_bound::Sum>(ref, off).ok);
}

TEST_CASE("18: bad --type and --op names are usage errors") {
  char prog[] = "18", flag[] = "--type", bad[] = "int128";
  char* argv[] = {prog, flag, bad};
  CHECK_THROWS_AS(translate_names(3, argv), tut::UsageError);
  char good[] = "double";
  char* argv2[] = {prog, flag, good};
  CHECK(translate_names(3, argv2)[2] == "4");
}

TEST_CASE("18: chapter 17's stage with another type or operator: a usage error when named, left out of all") {
  CHECK(tut::testing::run_chapter_with(chapter_spec(), {"--size", "4097", "--type", "3", "--variant",
                                                        copy_bound::kPreviousStage}) == 2);
  CHECK(tut::testing::run_chapter_with(chapter_spec(), {"--size", "4097", "--op", "1", "--variant", "all",
                                                        "--reps", "1", "--warmup", "0"}) == 0);
  CHECK(tut::testing::run_chapter_with(chapter_spec(), {"--size", "4097", "--type", "1", "--variant",
                                                        "default," + copy_bound::kPreviousStage, "--reps", "1"}) == 0);
}
