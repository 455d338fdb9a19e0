#include "plan_cache.hpp"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

namespace tut {
namespace {

constexpr const char* kMagic = "tut-plan 1";

std::ostream& log_of(std::ostream* log) { return log ? *log : std::cerr; }

// A file name from free text: letters, digits, '.', '_' and '-' kept, runs of anything else one '_'.
std::string file_part(const std::string& s) {
  std::string o;
  for (char c : s) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-';
    if (keep) o += c;
    else if (o.empty() || o.back() != '_') o += '_';
  }
  return o.empty() ? "_" : o;
}

// A value on one line: no newline may enter the file (the parser reads key=value lines).
std::string one_line(const std::string& s) {
  std::string o = s;
  for (char& c : o)
    if (c == '\n' || c == '\r') c = ' ';
  return o;
}

std::map<std::string, std::string> key_fields(const PlanKey& k) {
  return {{"stage", one_line(k.stage)},
          {"gpu", one_line(k.gpu_name)},
          {"cc", std::to_string(k.cc_major) + "." + std::to_string(k.cc_minor)},
          {"sms", std::to_string(k.sm_count)},
          {"driver", std::to_string(k.driver_version)},
          {"build", one_line(k.build_id)}};
}

// mkdir -p; true when the folder exists afterwards.
bool make_dirs(const std::string& dir) {
  std::string part;
  std::stringstream ss(dir);
  std::string item;
  if (!dir.empty() && dir[0] == '/') part = "/";
  while (std::getline(ss, item, '/')) {
    if (item.empty()) continue;
    part += item + "/";
    ::mkdir(part.c_str(), 0755);  // an existing folder is fine
  }
  struct stat st{};
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string format_ms(double ms) {
  std::ostringstream o;
  o.precision(3);
  o << ms << " ms";
  return o.str();
}

}  // namespace

std::string hash_text(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string default_plan_dir(std::string* why) {
  auto set = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
  };
  if (!set("TUT_PLAN_DIR").empty()) return set("TUT_PLAN_DIR");
  if (!set("XDG_CACHE_HOME").empty()) return set("XDG_CACHE_HOME") + "/cuda-tutorial";
  if (!set("HOME").empty()) return set("HOME") + "/.cache/cuda-tutorial";
  if (why) *why = "no plan cache: none of TUT_PLAN_DIR, XDG_CACHE_HOME or HOME is set; plans are measured every run";
  return "";
}

std::string kib_text(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f KiB", bytes / 1024.0);
  return b;
}

std::string in_flight_text(const InFlight& f) {
  char blocks[32];
  std::snprintf(blocks, sizeof blocks, "%.3g", f.blocks_per_sm);
  return std::string(blocks) + " blocks x " + kib_text(f.bytes_per_block) + " = " + kib_text(f.bytes_per_sm());
}

std::string in_flight_need_text(double need_bytes, double gbps, double latency_s, int sms) {
  return kib_text(need_bytes) + " in flight per SM needed (" + std::to_string(static_cast<int>(gbps)) + " GB/s x " +
         std::to_string(static_cast<int>(latency_s * 1e9)) + " ns / " + std::to_string(sms) + " SMs)";
}

std::optional<Plan> in_flight_model(const std::vector<std::string>& names, const std::vector<InFlight>& have,
                                    double need, const std::string& need_text, double margin) {
  if (names.empty() || names.size() != have.size())
    throw std::logic_error("in_flight_model: " + std::to_string(names.size()) + " candidates, " +
                           std::to_string(have.size()) + " in-flight counts");
  std::vector<std::size_t> clear;
  for (std::size_t i = 0; i < have.size(); ++i)
    if (have[i].bytes_per_sm() >= margin * need) clear.push_back(i);
  if (clear.size() == 1)
    return Plan{names[clear[0]], "model: " + need_text + ", only it clears x" +
                                     std::to_string(static_cast<int>(margin)) + ": " + in_flight_text(have[clear[0]])};
  if (clear.empty()) {
    std::size_t most = 0;
    for (std::size_t i = 1; i < have.size(); ++i)
      if (have[i].bytes_per_sm() > have[most].bytes_per_sm()) most = i;
    return Plan{names[most], "model: " + need_text + ", none clears it; the most in flight: " + in_flight_text(have[most])};
  }
  return std::nullopt;  // several clear it
}

PlanCache::PlanCache(std::string dir, std::ostream* log) : dir_(std::move(dir)), log_(log) {}

std::string PlanCache::path_for(const PlanKey& key) const {
  if (dir_.empty()) return "";
  return dir_ + "/" + file_part(key.stage) + "--" + file_part(key.gpu_name) + "--" + std::to_string(key.sm_count) +
         "sm.plan";
}

std::optional<Plan> PlanCache::load(const PlanKey& key, const std::vector<std::string>& candidates) const {
  if (dir_.empty()) return std::nullopt;
  const std::string path = path_for(key);
  std::ifstream in(path);
  if (!in) return std::nullopt;  // no plan yet: nothing to say
  auto ignore = [&](const std::string& why) -> std::optional<Plan> {
    log_of(log_) << "plan cache: ignoring " << path << " (" << why << "); planning again\n";
    return std::nullopt;
  };
  std::string line;
  if (!std::getline(in, line) || line != kMagic) return ignore("not a plan file of this version");
  std::map<std::string, std::string> fields;
  bool ended = false;
  while (std::getline(in, line)) {
    if (line == "end") {
      ended = true;
      break;
    }
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0) return ignore("corrupt line '" + line.substr(0, 40) + "'");
    if (!fields.emplace(line.substr(0, eq), line.substr(eq + 1)).second)
      return ignore("field '" + line.substr(0, eq) + "' twice");
  }
  if (!ended) return ignore("truncated: no end line");
  for (const auto& [name, want] : key_fields(key)) {
    const auto it = fields.find(name);
    if (it == fields.end()) return ignore("no field '" + name + "'");
    if (it->second != want) return ignore("stale: " + name + " " + it->second + ", this run " + want);
  }
  Plan p;
  const auto choice = fields.find("choice");
  const auto why = fields.find("why");
  if (choice == fields.end() || why == fields.end()) return ignore("no choice or why");
  p.choice = choice->second;
  p.why = why->second;
  bool known = false;
  for (const auto& c : candidates) known = known || c == p.choice;
  if (!known) return ignore("names '" + p.choice + "', no longer a candidate");
  return p;
}

bool PlanCache::store(const PlanKey& key, const Plan& plan) const {
  if (dir_.empty()) return false;
  const std::string path = path_for(key);
  auto fail = [&](const std::string& why) {
    log_of(log_) << "plan cache: cannot write " << path << " (" << why << "); the plan is not cached\n";
    return false;
  };
  if (!make_dirs(dir_)) return fail("cannot create the folder");
  // A temporary name of this process in the same folder, so that rename() replaces the plan atomically: a
  // reader sees the old file or the new one, never half of one.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) return fail("cannot open a temporary file");
    out << kMagic << "\n";
    for (const auto& [name, value] : key_fields(key)) out << name << "=" << value << "\n";
    out << "choice=" << one_line(plan.choice) << "\n" << "why=" << one_line(plan.why) << "\n" << "end\n";
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return fail("write failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return fail("rename failed");
  }
  return true;
}

Plan choose_plan(const PlanRequest& r, const PlanCache& cache, bool replan) {
  if (r.candidates.empty()) throw std::logic_error("choose_plan: no candidates for " + r.key.stage);
  if (r.model) {
    if (std::optional<Plan> p = r.model()) return *p;
  }
  const std::string where = cache.dir().empty() ? "not cached: no plan folder" : "cached in " + cache.path_for(r.key);
  if (!replan) {
    if (std::optional<Plan> p = cache.load(r.key, r.candidates)) {
      p->why = "cached: " + p->why + "; " + cache.path_for(r.key) + ", --replan measures again";
      return *p;
    }
  }
  const std::vector<double> ms = r.measure ? r.measure(r.candidates) : std::vector<double>{};
  if (ms.size() != r.candidates.size())
    throw std::logic_error("choose_plan: " + r.key.stage + ": the search measured " + std::to_string(ms.size()) +
                           " of " + std::to_string(r.candidates.size()) + " candidates");
  std::size_t best = 0;
  for (std::size_t i = 1; i < ms.size(); ++i)
    if (ms[i] < ms[best]) best = i;  // ties keep the earlier (default) candidate
  std::ostringstream why;
  why << "measured: " << ms.size() << " candidates";
  for (std::size_t i = 0; i < ms.size(); ++i) why << (i ? ", " : " ") << r.candidates[i] << " " << format_ms(ms[i]);
  Plan p{r.candidates[best], why.str()};
  cache.store(r.key, p);
  p.why += "; " + where;
  return p;
}

PlanSettings& plan_settings() {
  static PlanSettings s;
  return s;
}

std::vector<std::string>& plan_lines() {
  static std::vector<std::string> lines;
  return lines;
}

Plan choose_plan(const PlanRequest& request) {
  PlanSettings& s = plan_settings();
  std::string why_none;
  const std::string dir = s.dir_set ? s.dir : default_plan_dir(&why_none);
  static bool said_no_cache = false;
  if (dir.empty() && !why_none.empty() && !said_no_cache) {
    log_of(s.log) << why_none << "\n";
    said_no_cache = true;
  }
  const PlanCache cache(dir, s.log);
  Plan p = choose_plan(request, cache, s.replan);
  plan_lines().push_back("plan: " + request.key.stage + ": " + p.choice + " (" + p.why + ")");
  return p;
}

}  // namespace tut
