#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>

#include "cuda_check.cuh"
#include "device.cuh"
#include "device_guards.cuh"
#include "gpu_test.cuh"

namespace tut::testing {

bool under_sanitizer() {
  const char* s = std::getenv("TUT_SANITIZER");
  return s && *s && std::string(s) != "0";
}

std::uint64_t max_test_elements() { return under_sanitizer() ? (1ull << 21) : UINT64_MAX; }

std::uint64_t test_seed() {
  const char* s = std::getenv("TUT_TEST_SEED");
  return s ? std::strtoull(s, nullptr, 10) : 0x5eed2026ull;
}

std::vector<std::uint64_t> adversarial_sizes(const std::vector<std::uint64_t>& extra) {
  std::vector<std::uint64_t> s = {0, 1, 2, 31, 32, 33, 1023, 1024, 1025, 4095, 4097,
                                  (1u << 20) - 1, (1u << 20) + 1};
  s.insert(s.end(), extra.begin(), extra.end());
  return s;
}

std::uint64_t available_host_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return UINT64_MAX;
}

MemoryLease claim_memory(const std::string& what, std::size_t device_bytes, std::size_t host_bytes) {
  // The large-case lock first, then what is free: another large case may have held it until now.
  FileLock lock = is_large_case(device_bytes, host_bytes) ? acquire_large_case_lock() : FileLock();
  const std::string why = memory_shortfall(what, device_bytes, host_bytes, free_device_bytes(), available_host_bytes());
  if (why.empty()) return MemoryLease(true, std::move(lock));
  MESSAGE(why);
  std::cerr << "note: " << why << "\n";
  return MemoryLease(false, FileLock());
}

namespace {

Options test_options(const ChapterSpec& spec, std::uint64_t n,
                     const std::vector<std::pair<std::string, long long>>& extra) {
  Options opt = parse_options(1, nullptr, spec.default_size, spec.extra_options);
  opt.size = n;
  opt.size_given = true;
  opt.seed = test_seed() + n;  // a different input at every size
  for (const auto& [k, v] : extra) opt.extra[k] = v;
  return opt;
}

}  // namespace

namespace {
constexpr std::uint64_t kReferenceCheckedUpTo = std::uint64_t{1} << 24;
}  // namespace

void check_all_variants(const ChapterSpec& spec, const std::vector<std::uint64_t>& sizes,
                        const std::vector<std::pair<std::string, long long>>& extra) {
  require_supported_gpu();
  for (std::uint64_t n : sizes) {
    if (n > max_test_elements()) {
      MESSAGE("size " << format_size(n) << " skipped under compute-sanitizer (cap "
                      << format_size(max_test_elements()) << ")");
      continue;
    }
    Options opt = test_options(spec, n, extra);
    auto w = spec.make_workload();
    const MemoryLease lease = claim_memory(spec.id + " at n = " + format_size(n), w->device_bytes(opt), w->host_bytes(opt));
    if (!lease) continue;
    w->prepare(opt, true);
    for (const auto& v : spec.variants) {
      if (!v.known_defect.empty()) continue;
      // The vendor reference (CUB, cuBLAS, ...) is checked at every size up to kReferenceCheckedUpTo; the large
      // sizes test our own kernels' indexing, and rechecking the library there only costs time.
      if (v.reference && n > kReferenceCheckedUpTo) continue;
      w->setup(v.name);
      w->poison(0);
      w->run(v.name, 0);
      TUT_CUDA_CHECK(cudaDeviceSynchronize());
      CheckResult c = with_buffer_checks(w->check(v.name));
      INFO(spec.id << " variant '" << v.name << "' at n = " << n << " (" << format_size(n) << ")");
      CHECK_MESSAGE(c.ok, c.message());
    }
    w.reset();  // the memory goes back before the lease (and its lock) ends
  }
}

ChapterSpec only_variants(const ChapterSpec& spec, const std::vector<std::string>& names) {
  ChapterSpec subset = spec;
  subset.variants.clear();
  for (const auto& v : spec.variants)
    if (std::find(names.begin(), names.end(), v.name) != names.end()) subset.variants.push_back(v);
  for (const auto& name : names) {
    const bool found = std::any_of(subset.variants.begin(), subset.variants.end(),
                                   [&](const VariantSpec& v) { return v.name == name; });
    if (!found) FAIL("only_variants: " << spec.id << " has no variant '" << name << "'");
  }
  return subset;
}

CheckResult run_variant(const ChapterSpec& spec, const std::string& variant, std::uint64_t n,
                        const std::vector<std::pair<std::string, long long>>& extra) {
  require_supported_gpu();
  Options opt = test_options(spec, n, extra);
  auto w = spec.make_workload();
  w->prepare(opt, true);
  w->setup(variant);
  w->poison(0);
  w->run(variant, 0);
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  return with_buffer_checks(w->check(variant));
}

int run_chapter_with(const ChapterSpec& spec, const std::vector<std::string>& args) {
  std::vector<std::string> all = {spec.id};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  return run_chapter(static_cast<int>(all.size()), argv.data(), spec);
}

}  // namespace tut::testing
