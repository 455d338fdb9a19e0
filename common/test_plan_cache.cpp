// Host tests of the plan cache and the Little's-law model (common/plan_cache.hpp): no GPU needed.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "doctest.hpp"
#include "cli.hpp"
#include "plan_cache.hpp"
#include "temp_dir.hpp"

using namespace tut;

namespace {

// A fresh folder under /tmp for one test, removed with its files at the end.
struct TempDir : testing::TempDir {
  TempDir() : testing::TempDir("tut-plan-test") {}
};

PlanKey h100_key() {
  return {"18 int32 sum 2^28", "NVIDIA H100 80GB HBM3", 9, 0, 132, 13000, "0123456789abcdef"};
}
const std::vector<std::string> kCandidates = {"t192-s12-r8-b6", "t192-s16-r8-b4"};

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
void write_all(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::trunc) << text; }
int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// A request whose search records how often it ran and finds candidate `fastest` quickest.
PlanRequest request(int* searches, std::size_t fastest = 1) {
  PlanRequest r;
  r.key = h100_key();
  r.candidates = kCandidates;
  r.measure = [=](const std::vector<std::string>& c) {
    ++*searches;
    std::vector<double> ms(c.size(), 2.0);
    ms[fastest] = 1.0;
    return ms;
  };
  return r;
}

}  // namespace

TEST_CASE("Little's law: bytes in flight per SM, H100 against H200 (datasheet bandwidths)") {
  const double h100 = bytes_in_flight_per_sm(3.35e12, kChapter02DramLatencySeconds, 132);
  const double h200 = bytes_in_flight_per_sm(4.8e12, kChapter02DramLatencySeconds, 132);
  CHECK(h100 == doctest::Approx(3.35e12 * 564e-9 / 132));
  CHECK(h200 / h100 == doctest::Approx(4.8 / 3.35));  // about 43% more per SM on the H200
  CHECK(h200 / h100 > 1.43);
  CHECK(h200 / h100 < 1.44);
  // An H100 restricted to 92 SMs asks each SM for about what a full H200 does.
  const double h100_92 = bytes_in_flight_per_sm(3.35e12, kChapter02DramLatencySeconds, 92);
  CHECK(h100_92 / h200 == doctest::Approx(1.0).epsilon(0.01));
  CHECK(bytes_in_flight_per_sm(0, 1e-6, 132) == 0.0);
  CHECK(bytes_in_flight_per_sm(1e12, 1e-6, 0) == 0.0);
  CHECK(bytes_in_flight_per_sm(1e12, -1, 4) == 0.0);
}

TEST_CASE("the in-flight model: only one clears the need, none does, several do") {
  const std::vector<std::string> names = {"default", "other"};
  const double need = 20.0 * 1024;  // bytes per SM
  const std::string text = in_flight_need_text(need, 4814.3, kChapter02DramLatencySeconds, 132);
  CHECK(text == "20 KiB in flight per SM needed (4814 GB/s x 564 ns / 132 SMs)");
  // 6 blocks x 6 KiB = 36 KiB: below twice the need; 4 blocks x 16 KiB = 64 KiB: above it.
  const InFlight small{6, 6 * 1024.0}, large{4, 16 * 1024.0};
  CHECK(in_flight_text(small) == "6 blocks x 6 KiB = 36 KiB");
  CHECK(in_flight_text(InFlight{2.7273, 32 * 1024.0}) == "2.73 blocks x 32 KiB = 87 KiB");  // clusters: a fraction
  const std::optional<Plan> only = in_flight_model(names, {small, large}, need, text);
  REQUIRE(only);
  CHECK(only->choice == "other");
  CHECK(only->why == "model: " + text + ", only it clears x2: 4 blocks x 16 KiB = 64 KiB");
  // None clears it: the most in flight, whichever position it has.
  const std::optional<Plan> none = in_flight_model(names, {InFlight{1, 8192}, InFlight{2, 8192}}, need, text);
  REQUIRE(none);
  CHECK(none->choice == "other");
  CHECK(none->why.find("none clears it; the most in flight: 2 blocks x 8 KiB = 16 KiB") != std::string::npos);
  // Several clear it: the model cannot tell them apart, the search must.
  CHECK_FALSE(in_flight_model(names, {large, large}, need, text));
  // A candidate of unknown residency (0 blocks) never clears it; the margin is the caller's to change.
  CHECK(in_flight_model(names, {InFlight{}, large}, need, text)->choice == "other");
  CHECK_FALSE(in_flight_model(names, {small, large}, need, text, 1.0));
  CHECK_THROWS_AS(in_flight_model(names, {small}, need, text), std::logic_error);
}

TEST_CASE("hash_text is stable and distinguishes builds") {
  CHECK(hash_text("") == "cbf29ce484222325");  // FNV-1a's offset basis
  CHECK(hash_text("a").size() == 16);
  CHECK(hash_text("a") != hash_text("b"));
}

TEST_CASE("default_plan_dir: TUT_PLAN_DIR, then XDG_CACHE_HOME, then HOME, else no cache") {
  auto keep = [](const char* n) { const char* v = std::getenv(n); return v ? std::optional<std::string>(v) : std::nullopt; };
  const auto plan = keep("TUT_PLAN_DIR"), xdg = keep("XDG_CACHE_HOME"), home = keep("HOME");
  ::setenv("TUT_PLAN_DIR", "/p", 1);
  ::setenv("XDG_CACHE_HOME", "/x", 1);
  ::setenv("HOME", "/h", 1);
  CHECK(default_plan_dir() == "/p");
  ::unsetenv("TUT_PLAN_DIR");
  CHECK(default_plan_dir() == "/x/cuda-tutorial");
  ::unsetenv("XDG_CACHE_HOME");
  CHECK(default_plan_dir() == "/h/.cache/cuda-tutorial");
  ::unsetenv("HOME");
  std::string why;
  CHECK(default_plan_dir(&why).empty());
  CHECK(why.find("no plan cache") != std::string::npos);
  auto restore = [](const char* n, const std::optional<std::string>& v) {
    if (v) ::setenv(n, v->c_str(), 1);
    else ::unsetenv(n);
  };
  restore("TUT_PLAN_DIR", plan);
  restore("XDG_CACHE_HOME", xdg);
  restore("HOME", home);
}

TEST_CASE("choose_plan: the model decides without measuring or caching") {
  TempDir dir;
  std::ostringstream log;
  PlanCache cache(dir.path, &log);
  int searches = 0;
  PlanRequest r = request(&searches);
  r.model = [] { return std::optional<Plan>(Plan{"t192-s12-r8-b6", "model: 14 KiB in flight per SM needed"}); };
  const Plan p = choose_plan(r, cache, false);
  CHECK(p.choice == "t192-s12-r8-b6");
  CHECK(p.why.rfind("model:", 0) == 0);
  CHECK(searches == 0);
  CHECK(read_all(cache.path_for(r.key)).empty());
  CHECK(log.str().empty());
}

TEST_CASE("choose_plan: measures once, then reads the cache; --replan measures again") {
  TempDir dir;
  std::ostringstream log;
  PlanCache cache(dir.path + "/nested/folder", &log);  // made on the first store
  int searches = 0;
  const Plan first = choose_plan(request(&searches), cache, false);
  CHECK(searches == 1);
  CHECK(first.choice == "t192-s16-r8-b4");
  CHECK(first.why.rfind("measured: 2 candidates", 0) == 0);
  CHECK(first.why.find("cached in " + cache.path_for(h100_key())) != std::string::npos);
  const Plan second = choose_plan(request(&searches), cache, false);
  CHECK(searches == 1);
  CHECK(second.choice == "t192-s16-r8-b4");
  CHECK(second.why.rfind("cached: measured: 2 candidates", 0) == 0);
  const Plan third = choose_plan(request(&searches, 0), cache, true);  // replan: the search now prefers 0
  CHECK(searches == 2);
  CHECK(third.choice == "t192-s12-r8-b6");
  CHECK(choose_plan(request(&searches), cache, false).choice == "t192-s12-r8-b6");  // overwritten
  CHECK(searches == 2);
  CHECK(log.str().empty());
  // No temporary file is left beside the plan.
  CHECK(std::system(("test $(ls '" + dir.path + "/nested/folder' | wc -l) -eq 1").c_str()) == 0);
}

TEST_CASE("a tie keeps the default (first) candidate") {
  TempDir dir;
  PlanCache cache(dir.path);
  PlanRequest r;
  r.key = h100_key();
  r.candidates = kCandidates;
  r.measure = [](const std::vector<std::string>& c) { return std::vector<double>(c.size(), 1.0); };
  CHECK(choose_plan(r, cache, false).choice == kCandidates[0]);
}

TEST_CASE("a stale key is ignored with one line and planned again") {
  int searches = 0;
  for (const char* what : {"gpu", "sms", "driver", "build", "cc"}) {
    TempDir dir;
    std::ostringstream log;
    PlanCache cache(dir.path, &log);
    (void)choose_plan(request(&searches, 0), cache, false);  // cached: candidate 0
    PlanKey other = h100_key();
    const std::string w = what;
    if (w == "gpu") other.gpu_name = "NVIDIA H200";
    if (w == "sms") other.sm_count = 92;
    if (w == "driver") other.driver_version = 13010;
    if (w == "build") other.build_id = "fedcba9876543210";
    if (w == "cc") other.cc_minor = 1;
    PlanRequest r = request(&searches, 1);
    r.key = other;
    const std::string same_file = cache.path_for(other) == cache.path_for(h100_key()) ? "same" : "other";
    const int before = searches;
    const Plan p = choose_plan(r, cache, false);
    CAPTURE(w);
    CHECK(searches == before + 1);  // planned again, never the other key's plan
    CHECK(p.choice == "t192-s16-r8-b4");
    if (same_file == "same") {  // driver, build, cc: the same file, found stale
      CHECK(count_lines(log.str()) == 1);
      CHECK(log.str().find("stale: ") != std::string::npos);
    } else {  // another GPU or SM count has a file of its own: nothing to ignore
      CHECK(log.str().empty());
    }
  }
}

TEST_CASE("a corrupt, truncated, empty or foreign file, or a vanished candidate, is ignored with one line") {
  const std::vector<std::pair<std::string, std::function<std::string(const std::string&)>>> damage = {
      {"empty", [](const std::string&) { return std::string(); }},
      {"truncated", [](const std::string& s) { return s.substr(0, s.size() / 2); }},
      {"no end", [](const std::string& s) { return s.substr(0, s.rfind("end\n")); }},
      {"binary", [](const std::string&) { return std::string("\x7f" "ELF\x01\x02\x00\xff", 8); }},
      {"other version", [](const std::string& s) { return "tut-plan 2" + s.substr(s.find('\n')); }},
      {"garbage line", [](const std::string& s) { return s.substr(0, s.find('\n') + 1) + "no equals sign\n" + s.substr(s.find('\n') + 1); }},
      {"duplicate field", [](const std::string& s) { return s.substr(0, s.find('\n') + 1) + "choice=x\n" + s.substr(s.find('\n') + 1); }},
      {"missing field", [](const std::string& s) {
         const std::size_t b = s.find("driver="), e = s.find('\n', b);
         return s.substr(0, b) + s.substr(e + 1); }},
      {"vanished candidate", [](const std::string& s) {
         const std::size_t b = s.find("choice="), e = s.find('\n', b);
         return s.substr(0, b) + "choice=t256-s8-r8-b4" + s.substr(e); }},
  };
  for (const auto& [name, mangle] : damage) {
    CAPTURE(name);
    TempDir dir;
    std::ostringstream log;
    PlanCache cache(dir.path, &log);
    int searches = 0;
    (void)choose_plan(request(&searches, 0), cache, false);
    const std::string path = cache.path_for(h100_key());
    write_all(path, mangle(read_all(path)));
    const Plan p = choose_plan(request(&searches, 1), cache, false);
    CHECK(searches == 2);  // planned again
    CHECK(p.choice == "t192-s16-r8-b4");
    CHECK(count_lines(log.str()) == 1);
    CHECK(log.str().find("plan cache: ignoring " + path) == 0);
    // ... and the new plan replaced the damaged file.
    std::ostringstream quiet;
    CHECK(PlanCache(dir.path, &quiet).load(h100_key(), kCandidates)->choice == "t192-s16-r8-b4");
    CHECK(quiet.str().empty());
  }
}

TEST_CASE("no plan folder: measures every run, says so once, never fails") {
  std::ostringstream log;
  PlanCache none("", &log);
  int searches = 0;
  const Plan p = choose_plan(request(&searches), none, false);
  CHECK(p.choice == "t192-s16-r8-b4");
  CHECK(p.why.find("not cached: no plan folder") != std::string::npos);
  (void)choose_plan(request(&searches), none, false);
  CHECK(searches == 2);
  CHECK(none.path_for(h100_key()).empty());
  CHECK(log.str().empty());
}

TEST_CASE("an unwritable plan folder: one line, the measured plan still runs") {
  std::ostringstream log;
  PlanCache cache("/proc/tut-no-such-folder", &log);
  int searches = 0;
  const Plan p = choose_plan(request(&searches), cache, false);
  CHECK(p.choice == "t192-s16-r8-b4");
  CHECK(count_lines(log.str()) == 1);
  CHECK(log.str().find("cannot write") != std::string::npos);
}

TEST_CASE("plan files: one per stage, GPU and SM count; names kept to safe characters; values one line each") {
  PlanCache cache("/d");
  PlanKey k = h100_key();
  CHECK(cache.path_for(k) == "/d/18_int32_sum_2_28--NVIDIA_H100_80GB_HBM3--132sm.plan");
  k.stage = "../../etc/passwd";
  CHECK(cache.path_for(k).find("/../") == std::string::npos);
  TempDir dir;
  PlanCache real(dir.path);
  PlanKey odd = h100_key();
  odd.gpu_name = "two\nlines";
  CHECK(real.store(odd, Plan{"t192-s12-r8-b6", "why\nwith a newline"}));
  const auto back = real.load(odd, kCandidates);
  REQUIRE(back);
  CHECK(back->why == "why with a newline");
}

TEST_CASE("choose_plan refuses a request without candidates or with a short search") {
  PlanCache none("");
  PlanRequest r;
  r.key = h100_key();
  CHECK_THROWS_AS(choose_plan(r, none, false), std::logic_error);
  r.candidates = kCandidates;
  r.measure = [](const std::vector<std::string>&) { return std::vector<double>{1.0}; };
  CHECK_THROWS_AS(choose_plan(r, none, false), std::logic_error);
}

TEST_CASE("--replan and --sms N: the shared parser takes them and rejects bad values") {
  auto parse = [](std::vector<std::string> args) {
    args.insert(args.begin(), "prog");
    std::vector<const char*> argv;
    for (auto& a : args) argv.push_back(a.c_str());
    return parse_options(static_cast<int>(argv.size()), argv.data(), "2^20");
  };
  CHECK_FALSE(parse({}).replan);
  CHECK(parse({}).sms == 0);
  CHECK(parse({"--replan"}).replan);
  CHECK(parse({"--sms", "92"}).sms == 92);
  CHECK(parse({"--sms=8"}).sms == 8);
  CHECK_THROWS_AS(parse({"--replan=yes"}), UsageError);
  CHECK_THROWS_AS(parse({"--sms", "0"}), UsageError);
  CHECK_THROWS_AS(parse({"--sms", "-4"}), UsageError);
  CHECK_THROWS_AS(parse({"--sms", "many"}), UsageError);
  CHECK_THROWS_AS(parse({"--sms"}), UsageError);
  const std::string help = usage_text("prog", "t", "2^20", {});
  CHECK(help.find("--replan") != std::string::npos);
  CHECK(help.find("--sms N") != std::string::npos);
}
