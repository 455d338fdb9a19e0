// Chapter 18: the single-pass look-back scan of chapter 17 for int32, uint32, int64, float and double, with sum
// or max, against cub::DeviceScan and cudaMemcpy of the same bytes. A plain run measures the stage (--type and
// --op choose what is scanned); the steps toward the copy bound are on demand (--variant NAME, --variant all),
// among them copy-bound-timeline, which prints where each tile's time goes, and chapter 17's stage (int32 sums), to
// compare in one run.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "cub_reference.cuh"
#include "device_buffer.cuh"
#include "runner.cuh"
#include "scan_copy_bound.cuh"
#include "stage_plan.cuh"
#include "verify.hpp"

namespace scb = scan_copy_bound;

namespace copy_bound {

// ---- What is scanned: --type and --op (integer options of the runner; main() also takes the names) ----------
const std::vector<std::string> kTypeNames = {"int32", "uint32", "int64", "float", "double"};
const std::vector<std::string> kOpNames = {"sum", "max"};

// ---- The variants: the stage, one idea per step toward the bound, the timeline --------------------------------
struct VariantInfo {
  std::string name;
  std::string description;
  bool on_demand;
};
const std::vector<VariantInfo> kVariants = {
    {"scan-copy-bound",
     "the stage: chapter 17's kernel for any type/operator, 192 threads x (192 B via cp.async + 128 B in "
     "registers), 6 blocks/SM, or (d)'s tiles where this GPU's plan says (the plan: line)",
     false},
    {"copy-bound-stcs", "(a) the stage with streaming stores (st.global.cs): the output is not read again", true},
    {"copy-bound-ldcs-stcs", "(b) (a) plus evict-first loads of the register rows (ld.global.cs)", true},
    {"copy-bound-bulk", "(c) sm_90+: the staged rows land by one cp.async.bulk (TMA) per warp", true},
    {"copy-bound-t192-s16-r8", "(d) larger tiles: 192 threads x (256 B staged + 128 B in registers), 4 blocks/SM",
     true},
    {"copy-bound-timeline", "the stage, recording per-tile time stamps; prints where the time goes", true},
};

// Chapter 17's stage, on demand: the first table's row for the previous stage, timed in this process. Its kernel
// scans int32 sums, which are uint32 sums bit for bit; other types and operators cannot run it.
const std::string kPreviousStage = "scan-lookback-landing-zone";
template <class T, class Op>
constexpr bool kPreviousStageScans = std::is_integral_v<T> && sizeof(T) == 4 && std::is_same_v<Op, scb::Sum>;
inline bool previous_stage_scans(long long type, long long op) { return (type == 0 || type == 1) && op == 0; }

// Calls f(K{}) with the tuning of `name` for value type T and operator Op; false for an unknown name.
template <class T, class Op, class F>
bool with_tuning(const std::string& name, F&& f) {
  using scb::LoadHint;
  using scb::Staging;
  using scb::StoreHint;
  using scb::Tuning;
  if (name == "scan-copy-bound") return f(scb::StageTuning<T, Op>{}), true;
  if (name == "copy-bound-stcs")
    return f(Tuning<T, Op, 192, 12, 8, 6, Staging::kCpAsync, LoadHint::kDefault, StoreHint::kStreaming>{}), true;
  if (name == "copy-bound-ldcs-stcs")
    return f(Tuning<T, Op, 192, 12, 8, 6, Staging::kCpAsync, LoadHint::kEvictFirst, StoreHint::kStreaming>{}),
           true;
  if (name == "copy-bound-bulk") return f(Tuning<T, Op, 192, 12, 8, 6, Staging::kBulkCopy>{}), true;
  if (name == "copy-bound-t192-s16-r8") return f(Tuning<T, Op, 192, 16, 8, 4>{}), true;
  if (name == "copy-bound-timeline")
    return f(Tuning<T, Op, 192, 12, 8, 6, Staging::kCpAsync, LoadHint::kDefault, StoreHint::kDefault, true>{}),
           true;
  return false;
}

// ---- Inputs and the CPU reference ---------------------------------------------------------------------------------
// Seeded inputs: integers over T's whole range; floating point uniform in [-1, 1) (or, integer_valued, the
// integers -16..16, whose sums every type holds exactly at the sizes tested).
template <class T>
std::vector<T> make_input(std::size_t n, std::uint64_t seed, bool integer_valued = false) {
  std::vector<T> v(n);
  tut::parallel_for(n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const std::uint64_t r = tut::random_bits(seed, i);
      if constexpr (std::is_integral_v<T>) v[i] = static_cast<T>(r);
      else if (integer_valued) v[i] = static_cast<T>(static_cast<int>(r % 33) - 16);
      else v[i] = static_cast<T>(-1.0 + 2.0 * static_cast<double>(r >> 11) * 0x1.0p-53);
    }
  });
  return v;
}

// The exact result for integer types (computed in the scan type, so signed sums wrap), as T; for floating point the
// scan in double, and the running sum of |x| that bounds the rounding error.
template <class T, class Op>
struct Reference {
  std::vector<T> exact;        // integers, and max of any type
  std::vector<double> value;   // floating-point sums
  std::vector<double> abs_sum;  // floating-point sums: sum of |x_j| for j <= i
};

template <class T, class Op>
constexpr bool kExactCheck = std::is_integral_v<T> || std::is_same_v<Op, scb::Max>;

template <class T, class Op>
Reference<T, Op> cpu_reference(const std::vector<T>& x) {
  using S = scb::ScanType<T, Op>;
  const std::size_t n = x.size();
  Reference<T, Op> ref;
  if constexpr (kExactCheck<T, Op>) {
    // Chunk totals in parallel, a serial scan of them, then each chunk from its base in parallel (exact: the
    // operator is associative on these types, NaN included). No identity is used: each running value starts at
    // the chunk's first item or the totals before it.
    ref.exact.resize(n);
    const std::size_t chunk = std::size_t{1} << 20, chunks = (n + chunk - 1) / chunk;
    std::vector<S> total(chunks);
    tut::parallel_for(chunks, [&](std::size_t b, std::size_t e) {
      for (std::size_t c = b; c < e; ++c) {
        S s = static_cast<S>(x[c * chunk]);
        for (std::size_t i = c * chunk + 1; i < std::min(n, (c + 1) * chunk); ++i) s = Op{}(s, static_cast<S>(x[i]));
        total[c] = s;
      }
    }, 1);
    tut::parallel_for(chunks, [&](std::size_t b, std::size_t e) {
      for (std::size_t c = b; c < e; ++c) {
        bool have = c > 0;
        S s{};
        for (std::size_t k = 0; k < c; ++k) s = k == 0 ? total[0] : Op{}(s, total[k]);
        for (std::size_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i) {
          s = have ? Op{}(s, static_cast<S>(x[i])) : static_cast<S>(x[i]);
          have = true;
          ref.exact[i] = static_cast<T>(s);
        }
      }
    }, 1);
  } else {
    ref.value.resize(n);
    ref.abs_sum.resize(n);
    double s = 0.0, a = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      s += static_cast<double>(x[i]);
      a += std::fabs(static_cast<double>(x[i]));
      ref.value[i] = s;
      ref.abs_sum[i] = a;
    }
  }
  return ref;
}

// The exact sum scan of integer-valued floating-point input (sums of integers below 2^53 in int64: exact), as T.
template <class T>
std::vector<T> make_exact_integer_scan(const std::vector<T>& x) {
  std::vector<T> y(x.size());
  std::int64_t s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = static_cast<T>(s += static_cast<std::int64_t>(x[i]));
  return y;
}

// The rounding bound of a floating-point sum (README, "Floating-point sums"): output i may differ from the exact
// sum by eps(T) * (i / 1024 + 128) * sum_{j<=i} |x_j|. Element i passes through at most one fold step per tile
// before it (the look-back folds tile aggregates one by one; every tuning's tile holds at least 7,680 items, so
// i / 1024 over-counts them) and at most 128 steps inside its tile (the thread's items, the warp and row scans,
// the rows of a segment, the warps' offsets); each step adds at most eps / 2 relative to the sum of |x|.
template <class T>
double sum_error_bound(std::size_t i, double abs_sum) {
  return std::numeric_limits<T>::epsilon() * (static_cast<double>(i) / 1024.0 + 128.0) * abs_sum;
}

template <class T, class Op>
tut::CheckResult check_output(const Reference<T, Op>& ref, const std::vector<T>& got) {
  if constexpr (kExactCheck<T, Op>) {
    tut::CheckResult r = tut::compare_exact(ref.exact, got);
    if constexpr (std::is_floating_point_v<T>) {  // max of floats: NaN only where the input's NaN propagates
      for (std::size_t i = 0; r.ok && i < got.size(); ++i)
        if (std::isnan(got[i]) && !std::isnan(ref.exact[i]))
          r = tut::check_fail("output holds NaN at index " + std::to_string(i));
    }
    return r;
  } else {
    tut::CheckResult r;
    if (got.size() != ref.value.size()) return tut::check_fail("size mismatch");
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double g = static_cast<double>(got[i]);
      const double error = std::fabs(g - ref.value[i]);
      if (!std::isfinite(g) || !(error <= sum_error_bound<T>(i, ref.abs_sum[i]))) {
        if (r.ok) {
          r.ok = false;
          r.first_bad = i;
          r.expected = tut::value_text(ref.value[i]);
          r.actual = tut::value_text(got[i]);
          std::ostringstream d;
          d << (std::isfinite(g) ? "error beyond the bound eps * (i / 1024 + 128) * sum |x|" : "NaN or infinity")
            << " (bound at the first: " << sum_error_bound<T>(i, ref.abs_sum[i]) << ")";
          r.detail = d.str();
        }
        ++r.bad_count;
      }
    }
    return r;
  }
}

// ---- The timeline summary -------------------------------------------------------------------------------------
// Per tile: claimed, landed, summed (pass 1), prefix known (look-back done), stored (every warp's stores issued).
std::string timeline_summary(const std::vector<std::uint64_t>& stamps, std::size_t tile_bytes) {
  const std::size_t tiles = stamps.size() / scb::kStamps;
  if (tiles == 0) return "";
  const auto at = [&](std::size_t t, int s) { return static_cast<double>(stamps[t * scb::kStamps + s]); };
  double land = 0, pass1 = 0, look = 0, store = 0, whole = 0;
  double first_claim = at(0, scb::kClaimed), last_claim = first_claim, last_store = at(0, scb::kStored);
  for (std::size_t t = 0; t < tiles; ++t) {
    land += at(t, scb::kLanded) - at(t, scb::kClaimed);
    pass1 += at(t, scb::kSummed) - at(t, scb::kLanded);
    look += at(t, scb::kPrefixKnown) - at(t, scb::kSummed);
    store += at(t, scb::kStored) - at(t, scb::kPrefixKnown);
    whole += at(t, scb::kStored) - at(t, scb::kClaimed);
    first_claim = std::min(first_claim, at(t, scb::kClaimed));
    last_claim = std::max(last_claim, at(t, scb::kClaimed));
    last_store = std::max(last_store, at(t, scb::kStored));
  }
  const double span = last_store - first_claim;
  std::ostringstream s;
  s << std::fixed << std::setprecision(1);
  s << "timeline of the checked run (%globaltimer, ns; " << tiles << " tiles of " << tile_bytes / 1024
    << " KiB):\n";
  s << "  mean per tile: land " << land / tiles << " ns, pass 1 " << pass1 / tiles << " ns, look-back wait "
    << look / tiles << " ns, pass 2 + stores " << store / tiles << " ns; tile time " << whole / tiles << " ns\n";
  s << "  span (first claim to last store) " << span / 1000 << " us; tail (last claim to last store) "
    << (last_store - last_claim) / 1000 << " us; tiles in flight on average " << (span > 0 ? whole / span : 0)
    << "\n";
  s << "  look-back share of tile time " << (whole > 0 ? 100 * look / whole : 0) << "%, tail share of span "
    << (span > 0 ? 100 * (last_store - last_claim) / span : 0) << "%\n";
  return s.str();
}
std::string& last_timeline() {
  static std::string text;
  return text;
}

// ---- The workload -----------------------------------------------------------------------------------------------
class TypedScan {
 public:
  virtual ~TypedScan() = default;
  virtual void setup(const std::string& variant) = 0;
  virtual void poison(cudaStream_t stream) = 0;
  virtual void run(const std::string& variant, cudaStream_t stream) = 0;
  virtual tut::CheckResult check(const std::string& variant) = 0;
};

template <class T, class Op>
std::size_t workspace_bytes(std::size_t n) {
  using S = scb::ScanType<T, Op>;
  std::size_t bytes = cub_scan<S, Op>(nullptr, 0, nullptr, nullptr, n, 0);
  for (const VariantInfo& v : kVariants)
    with_tuning<S, Op>(v.name, [&](auto k) { bytes = std::max(bytes, scb::workspace_bytes_for<decltype(k)>(n)); });
  if constexpr (kPreviousStageScans<T, Op>) bytes = std::max(bytes, scan_lookback_landing_zone::workspace_bytes(n));
  return bytes;
}

// launch_delta (tests only, 0 otherwise): the scans run on n + launch_delta values over buffers of n, a planted
// size bug (test.cu); the workspace is sized for what runs, so that only the output shows the bug.
template <class T, class Op>
class TypedScanOf final : public TypedScan {
  using S = scb::ScanType<T, Op>;  // what the kernels and CUB see

 public:
  TypedScanOf(std::size_t n, std::uint64_t seed, bool with_reference, int launch_delta, std::string label)
      : n_(n), launched_(n + launch_delta), label_(std::move(label)) {
    // A planted n + 1 run reads one real value past the n the output holds, so what it writes past the output's
    // end is a real scan value. Reading the input's guard instead, max(prefix, guard) can be the guard itself
    // (or a double sum absorbed by it), and the overrun would write the guard's own bytes back, unseen.
    const std::vector<T> host = make_input<T>(std::max(n_, launched_), seed);
    in_ = tut::DeviceBuffer<T>(host);
    in_.label("input").watch();  // a scan must leave its input as it found it
    out_ = tut::DeviceBuffer<T>(n);
    out_.label("output");
    workspace_ = tut::DeviceBuffer<unsigned char>(workspace_bytes<T, Op>(launched_));
    workspace_.label("workspace");
    if (with_reference)
      reference_ = cpu_reference<T, Op>(std::vector<T>(host.begin(), host.begin() + static_cast<std::ptrdiff_t>(n)));
  }
  void setup(const std::string& variant) override {
    if (variant == "scan-copy-bound") {  // the stage: its tile shape for this GPU (stage_plan.cuh)
      for (const auto& c : kStageCandidates) with_candidate<S, Op>(c, [](auto k) { scb::setup_scan<decltype(k)>(); });
      stage_choice_ = plan_stage<S, Op>("18 " + label_, launched_, [&](const std::string& name) {
        double ms = 0;
        with_candidate<S, Op>(name, [&](auto k) {
          ms = tut::search_ms([&](cudaStream_t s) {
            scb::inclusive_scan_with<decltype(k)>(reinterpret_cast<const S*>(in_.data()), reinterpret_cast<S*>(out_.data()),
                                                  launched_, workspace_.data(), s);
          });
        });
        return ms;
      }).choice;
      return;
    }
    if (variant == kPreviousStage) {
      if constexpr (kPreviousStageScans<T, Op>) scan_lookback_landing_zone::setup_inclusive_scan();
      return;
    }
    with_tuning<S, Op>(variant, [&](auto k) {
      using K = decltype(k);
      scb::setup_scan<K>();
      if constexpr (K::kTimeline) {
        stamps_ = tut::DeviceBuffer<std::uint64_t>(scb::tile_count<K>(launched_) * scb::kStamps);
        tile_bytes_ = K::kTileItems * sizeof(T);
      }
    });
  }
  void poison(cudaStream_t stream) override {
    out_.poison(stream);
    workspace_.poison(stream);  // a scan must not depend on its scratch being zero
  }
  void run(const std::string& variant, cudaStream_t stream) override {
    const S* in = reinterpret_cast<const S*>(in_.data());
    S* out = reinterpret_cast<S*>(out_.data());
    if (variant == "cub") {
      if (launched_ > 0) cub_scan<S, Op>(workspace_.data(), workspace_.size(), in, out, launched_, stream);
      return;
    }
    if (variant == "scan-copy-bound") {
      with_candidate<S, Op>(stage_choice_, [&](auto k) {
        scb::inclusive_scan_with<decltype(k)>(in, out, launched_, workspace_.data(), stream);
      });
      return;
    }
    if (variant == kPreviousStage) {
      if constexpr (kPreviousStageScans<T, Op>)
        scan_lookback_landing_zone::inclusive_scan(reinterpret_cast<const std::int32_t*>(in),
                                                   reinterpret_cast<std::int32_t*>(out), launched_, workspace_.data(),
                                                   stream);
      else
        throw std::invalid_argument(kPreviousStage + " scans int32 and uint32 sums only (chapter 17's kernel)");
      return;
    }
    if (!with_tuning<S, Op>(variant, [&](auto k) {
          scb::inclusive_scan_with<decltype(k)>(in, out, launched_, workspace_.data(), stream, stamps_.data());
        }))
      throw std::invalid_argument("unknown scan variant " + variant);
  }
  tut::CheckResult check(const std::string& variant) override {
    if (variant == "copy-bound-timeline") last_timeline() = timeline_summary(stamps_.download(), tile_bytes_);
    return check_output<T, Op>(reference_, out_.download());
  }

 private:
  std::size_t n_, launched_;
  std::string label_;                                 // "int32 sum": the plan's stage name
  std::string stage_choice_ = kStageCandidates[0];   // the stage's tile shape on this GPU (setup's plan)
  tut::DeviceBuffer<T> in_, out_;
  tut::DeviceBuffer<unsigned char> workspace_;
  tut::DeviceBuffer<std::uint64_t> stamps_;
  std::size_t tile_bytes_ = 0;
  Reference<T, Op> reference_;
};

// Calls f(T{}, Op{}) for --type / --op indices.
template <class F>
void with_type_and_op(long long type, long long op, F&& f) {
  const auto with_op = [&](auto t) {
    if (op == 0) f(t, scb::Sum{});
    else f(t, scb::Max{});
  };
  switch (type) {
    case 0: return with_op(std::int32_t{});
    case 1: return with_op(std::uint32_t{});
    case 2: return with_op(std::int64_t{});
    case 3: return with_op(float{});
    default: return with_op(double{});
  }
}

std::size_t value_bytes(long long type) { return type == 2 || type == 4 ? 8 : 4; }

class CopyBoundWorkload final : public tut::Workload {
 public:
  // launch_delta: 0, or (tests) a planted size bug (TypedScanOf).
  explicit CopyBoundWorkload(int launch_delta = 0) : launch_delta_(launch_delta) {}
  std::size_t device_bytes(const tut::Options& opt) const override {
    std::size_t bytes = 0;
    with_type_and_op(opt.extra.at("type"), opt.extra.at("op"), [&](auto t, auto op) {
      using T = decltype(t);
      bytes = 2 * opt.size * sizeof(T) + workspace_bytes<T, decltype(op)>(opt.size);
    });
    return bytes;
  }
  // Input, reference (double and |x| sums for floating-point sums) and the downloaded output.
  std::size_t host_bytes(const tut::Options& opt) const override {
    return opt.size * (3 * value_bytes(opt.extra.at("type")) + 16);
  }
  void prepare(const tut::Options& opt, bool with_reference) override {
    bytes_per_value_ = value_bytes(opt.extra.at("type"));
    n_ = opt.size;
    with_type_and_op(opt.extra.at("type"), opt.extra.at("op"), [&](auto t, auto op) {
      scan_ = std::make_unique<TypedScanOf<decltype(t), decltype(op)>>(
          opt.size, opt.seed, with_reference, launch_delta_,
          kTypeNames.at(static_cast<std::size_t>(opt.extra.at("type"))) + " " +
              kOpNames.at(static_cast<std::size_t>(opt.extra.at("op"))));
    });
  }
  void setup(const std::string& variant) override { scan_->setup(variant); }
  void poison(cudaStream_t stream) override { scan_->poison(stream); }
  void run(const std::string& variant, cudaStream_t stream) override { scan_->run(variant, stream); }
  tut::CheckResult check(const std::string& variant) override { return scan_->check(variant); }
  tut::Work work(const std::string&) const override {
    return {2.0 * static_cast<double>(n_) * static_cast<double>(bytes_per_value_), 0.0};
  }
  std::size_t memcpy_bytes() const override { return n_ * bytes_per_value_; }

 private:
  int launch_delta_;
  std::unique_ptr<TypedScan> scan_;
  std::size_t n_ = 0, bytes_per_value_ = 4;
};

}  // namespace copy_bound

tut::ChapterSpec chapter_spec() {
  tut::ChapterSpec spec;
  spec.id = "18-scan-any-type-copy-bound";
  spec.title = "single-pass look-back scan of any type and operator, toward the copy bound";
  spec.default_size = "2^28";
  for (const auto& v : copy_bound::kVariants) spec.variants.push_back({v.name, v.description, false, "", v.on_demand});
  spec.variants.push_back({copy_bound::kPreviousStage,
                           "chapter 17's stage, to compare in one run (int32 and uint32 sums: its kernel's)", false, "",
                           /*on_demand=*/true});
  spec.variants.push_back({"cub", "cub::DeviceScan::InclusiveSum / InclusiveScan(cuda::maximum) (vendor reference)",
                           true, ""});
  spec.ratio_to = "cub";
  spec.extra_options = {
      {"type", "value type: int32 (0), uint32 (1), int64 (2), float (3), double (4)", 0, 0, 4},
      {"op", "operator: sum (0), max (1)", 0, 0, 1},
  };
  spec.make_workload = [] { return std::make_unique<copy_bound::CopyBoundWorkload>(); };
  // Chapter 17's stage scans int32 and uint32 sums only: named with another --type or --op, a usage error; chosen by
  // --variant all, left out.
  spec.resolve = [](tut::ChapterSpec& s, const tut::Options& opt) {
    if (copy_bound::previous_stage_scans(opt.extra.at("type"), opt.extra.at("op"))) return;
    if (std::find(opt.variants.begin(), opt.variants.end(), copy_bound::kPreviousStage) != opt.variants.end())
      throw tut::UsageError(copy_bound::kPreviousStage + " is chapter 17's int32 sum: run it with --type int32 or "
                            "uint32 and --op sum");
    s.variants.erase(std::remove_if(s.variants.begin(), s.variants.end(),
                                    [](const tut::VariantSpec& v) { return v.name == copy_bound::kPreviousStage; }),
                     s.variants.end());
  };
  spec.summary = [](std::ostream& os, const tut::DeviceInfo&, const tut::Options&, const std::vector<tut::Result>&) {
    if (!copy_bound::last_timeline().empty()) os << "\n" << copy_bound::last_timeline();
  };
  return spec;
}

// --type NAME and --op NAME become the runner's integer options; an unknown name is a usage error.
std::vector<std::string> translate_names(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  for (std::size_t i = 1; i < args.size(); ++i) {
    for (const auto& [flag, names] : {std::pair{std::string("--type"), &copy_bound::kTypeNames},
                                      std::pair{std::string("--op"), &copy_bound::kOpNames}}) {
      std::string* value = nullptr;
      std::string joined;
      if (args[i] == flag && i + 1 < args.size()) value = &args[i + 1];
      else if (args[i].rfind(flag + "=", 0) == 0) value = &args[i];
      if (!value) continue;
      std::string text = value == &args[i] ? args[i].substr(flag.size() + 1) : *value;
      const auto it = std::find(names->begin(), names->end(), text);
      if (it != names->end()) {
        const std::string index = std::to_string(it - names->begin());
        if (value == &args[i]) args[i] = flag + "=" + index;
        else *value = index;
      } else if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
        std::string known;
        for (const auto& n : *names) known += (known.empty() ? "" : ", ") + n;
        throw tut::UsageError(flag + " must be one of " + known + " (got '" + text + "')");
      }
    }
  }
  return args;
}

#ifndef TUT_CHAPTER_NO_MAIN
int main(int argc, char** argv) {
  std::vector<std::string> args;
  try {
    args = translate_names(argc, argv);
  } catch (const tut::UsageError& e) {
    std::cerr << (argc > 0 ? argv[0] : "18-scan-any-type-copy-bound") << ": error: " << e.what() << "\n";
    return 2;
  }
  std::vector<char*> pointers;
  for (auto& a : args) pointers.push_back(a.data());
  return tut::run_chapter(static_cast<int>(pointers.size()), pointers.data(), chapter_spec());
}
#endif
