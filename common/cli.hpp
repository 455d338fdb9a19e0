// Command-line parsing shared by every chapter program.
// Host-only: no CUDA here, so the host tests exercise it on machines without a GPU.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tut {

// A bad command line. Programs print what() on one line and exit with status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class OutputFormat { table, csv, json };

// A chapter-specific integer option, e.g. --block for the warp-divergence chapter.
struct ExtraOption {
  std::string name;  // without the leading dashes
  std::string help;
  long long default_value = 0;
  long long min_value = 0;
  long long max_value = INT64_MAX;
};

struct Options {
  std::uint64_t size = 0;         // element count (0 is a valid, empty problem)
  bool size_given = false;
  int reps = 0;                   // 0: adaptive to --budget-ms
  int warmup = 2;
  double budget_ms = 1000.0;      // time budget per variant for adaptive repetitions
  std::uint64_t seed = 20221;
  std::vector<std::string> variants;  // empty: all but the on-demand ones; "all": every one
  bool check = true;
  bool profile = false;           // one warm-up and one timed run, for ncu
  bool flush_l2 = false;          // flush L2 between repetitions
  bool list = false;
  bool help = false;
  bool replan = false;            // ignore cached plans: measure again and overwrite (docs/tuning-per-gpu.md)
  int sms = 0;                    // >0: run everything in a green context of this many SMs (0: the whole GPU)
  int rounds = 1;                 // >1: time the variants in this many alternating rounds (paired ratios)
  OutputFormat format = OutputFormat::table;
  std::map<std::string, long long> extra;  // values of the chapter's ExtraOptions
};

// Parses "1048576", "2^20", "1M" (=2^20), "4K", "1G", "3*2^20", "2^31+5" into an element count.
// Throws UsageError on anything else, on negatives and on overflow.
std::uint64_t parse_size(const std::string& text);

// Parses argv. `default_size` is the chapter's default (in the same syntax as --size).
// Throws UsageError on unknown flags, missing or bad values.
Options parse_options(int argc, const char* const* argv, const std::string& default_size,
                      const std::vector<ExtraOption>& extra = {});

// The --help text for a chapter.
std::string usage_text(const std::string& program, const std::string& title,
                       const std::string& default_size, const std::vector<ExtraOption>& extra);

// Formats a count the way a person reads it: 268435456 -> "2^28", 1000 -> "1000", 3145728 -> "3*2^20".
std::string format_size(std::uint64_t n);

}  // namespace tut
