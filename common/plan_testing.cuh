// Test helpers for the plans per GPU (docs/tuning-per-gpu.md), for a tuned stage's GPU tests: a plan folder of the
// test's own, and two checks on a stage's real set-up: a cached plan that names a candidate the stage does not
// have is ignored with one line and planned again; and each candidate a cached plan may name is what the stage
// then runs. `plan_once` below is the stage's set-up (or a checked run through the chapter's workload) at a size
// where its plan is measured, not decided by the model: only a measured plan is cached.
#pragma once

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "doctest.hpp"
#include "plan_cache.hpp"

namespace tut::testing {

// Plans in a fresh folder under /tmp for the scope: no test reads a plan another run cached, nor writes the user's
// cache. The previous settings come back, and the folder goes, at the end.
class ScopedPlanDir {
 public:
  ScopedPlanDir() : saved_(plan_settings()) {
    char name[] = "/tmp/tut-plans-XXXXXX";
    if (::mkdtemp(name) == nullptr) throw std::runtime_error("ScopedPlanDir: mkdtemp failed");
    path_ = name;
    plan_settings().dir = path_;
    plan_settings().dir_set = true;
    plan_settings().replan = false;
  }
  ~ScopedPlanDir() {
    plan_settings() = saved_;
    for (const std::string& f : files()) std::remove(f.c_str());
    ::rmdir(path_.c_str());
  }
  ScopedPlanDir(const ScopedPlanDir&) = delete;
  ScopedPlanDir& operator=(const ScopedPlanDir&) = delete;

  const std::string& path() const { return path_; }

  // The plan files in the folder (full paths).
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    if (DIR* d = ::opendir(path_.c_str())) {
      while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name.size() > 5 && name.compare(name.size() - 5, 5, ".plan") == 0) out.push_back(path_ + "/" + name);
      }
      ::closedir(d);
    }
    return out;
  }

  // Rewrites the choice of every plan file to `choice`; returns how many files it rewrote.
  int rewrite_choices(const std::string& choice) const {
    int rewritten = 0;
    for (const std::string& f : files()) {
      std::ifstream in(f);
      std::string text, line;
      while (std::getline(in, line)) text += (line.rfind("choice=", 0) == 0 ? "choice=" + choice : line) + "\n";
      in.close();
      std::ofstream(f, std::ios::trunc) << text;
      ++rewritten;
    }
    return rewritten;
  }

 private:
  PlanSettings saved_;
  std::string path_;
};

// The choice a plan line names ("plan: <stage>: <choice> (<why>)"; a stage's name has no ": ").
inline std::string choice_of(const std::string& plan_line) {
  const std::size_t start = plan_line.find(": ", 6) + 2;
  return plan_line.substr(start, plan_line.find(" (", start) - start);
}

// Runs `plan_once` and returns the first plan line it recorded ("plan: <stage>: <choice> (<why>)"; a plan_once that
// plans more than once reads the first plan's cache after it); the notes the plan cache wrote on the way (one line
// per ignored file) go to *notes.
inline std::string plan_line_of(const std::function<void()>& plan_once, std::string* notes = nullptr) {
  std::ostringstream log;
  std::ostream* saved = plan_settings().log;
  plan_settings().log = &log;
  const std::size_t before = plan_lines().size();
  try {
    plan_once();
  } catch (...) {
    plan_settings().log = saved;
    throw;
  }
  plan_settings().log = saved;
  if (notes) *notes = log.str();
  REQUIRE_MESSAGE(plan_lines().size() > before, "the stage's set-up made no plan");
  return plan_lines()[before];
}

// The plan cache's promise for a stale entry: with a cached plan naming a candidate the stage does not have, the
// stage ignores the file with one line, measures again and caches a real candidate; the run after reads that.
inline void check_unknown_candidate_is_replanned(const std::function<void()>& plan_once) {
  const ScopedPlanDir dir;
  const std::string first = plan_line_of(plan_once);
  INFO("first plan: " << first);
  REQUIRE_MESSAGE(first.find("(measured: ") != std::string::npos,
                  "the model decided this plan, so nothing is cached: test at a size where the stage measures");
  REQUIRE(dir.rewrite_choices("no-such-candidate") >= 1);
  std::string notes;
  const std::string again = plan_line_of(plan_once, &notes);
  INFO("the plan with the unknown candidate cached: " << again << "; notes: " << notes);
  CHECK(notes.find("plan cache: ignoring ") != std::string::npos);
  CHECK(notes.find("names 'no-such-candidate', no longer a candidate") != std::string::npos);
  CHECK(again.find("(measured: ") != std::string::npos);
  CHECK(again.find("no-such-candidate") == std::string::npos);
  const std::string third = plan_line_of(plan_once);
  INFO("the plan after: " << third);
  CHECK(third.find("(cached: ") != std::string::npos);
}

// For each of `candidates`: a cached plan naming it (the first plan measured, then every file's choice rewritten),
// and `plan_and_check` (the stage's set-up and checked runs, which CHECK the results themselves) must read it:
// its plan line names that candidate, from the cache. Every choice the plan can make is then checked through the
// stage's own path.
inline void check_each_cached_choice(const std::vector<std::string>& candidates,
                                     const std::function<void()>& plan_and_check) {
  const ScopedPlanDir dir;
  const std::string first = plan_line_of(plan_and_check);
  INFO("first plan: " << first);
  REQUIRE_MESSAGE(first.find("(measured: ") != std::string::npos,
                  "the model decided this plan, so nothing is cached: test at a size where the stage measures");
  for (const std::string& c : candidates) {
    CAPTURE(c);
    REQUIRE(dir.rewrite_choices(c) >= 1);
    const std::string line = plan_line_of(plan_and_check);
    INFO("plan line: " << line);
    CHECK(line.find(": " + c + " (cached: ") != std::string::npos);
  }
}

}  // namespace tut::testing
