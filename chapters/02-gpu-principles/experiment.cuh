// Chapter 02: the main() of every experiment. The harness measures, checks and prints its table;
// then (through ChapterSpec::summary) the experiment prints a short summary that the generic table
// cannot show: the article's figure next to ours, shares of each GPU's peak, and residency.
#pragma once

#include <algorithm>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "device.cuh"
#include "runner.cuh"

namespace principles {

struct Summary {
  std::string title;
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;  // printed under the table, one per line
};

// Builds the summary from the device, the options and the harness's measured rows.
using SummaryFn =
    std::function<Summary(const tut::DeviceInfo&, const tut::Options&, const std::vector<tut::Result>&)>;

inline std::string fixed(double v, int precision) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(precision) << v;
  return s.str();
}

// The measured row of a variant, or nullptr when it was not run (--variant).
inline const tut::Result* find_row(const std::vector<tut::Result>& rows, const std::string& variant) {
  for (const auto& r : rows)
    if (r.variant == variant) return &r;
  return nullptr;
}

inline void print_summary(std::ostream& os, const Summary& s) {
  os << "\n" << s.title << "\n";
  tut::write_text_table(os, s.head, s.rows);
  for (const auto& n : s.notes) os << n << "\n";
}

// run_chapter() with the experiment's summary printed after the table (in table mode).
inline int run_experiment(int argc, char** argv, tut::ChapterSpec spec, const SummaryFn& summary) {
  spec.summary = [summary](std::ostream& os, const tut::DeviceInfo& info, const tut::Options& opt,
                           const std::vector<tut::Result>& rows) { print_summary(os, summary(info, opt, rows)); };
  return tut::run_chapter(argc, argv, spec);
}

}  // namespace principles
