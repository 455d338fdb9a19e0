#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace tut {

void derive_rates(Result& r, double peak_dram_gbps, double memcpy_gbps, double peak_fp32_gflops) {
  r.gbps = gigabytes_per_second(r.bytes, r.time.median_ms);
  r.gflops = gigaflops_per_second(r.flops, r.time.median_ms);
  r.pct_peak_dram = peak_dram_gbps > 0 ? 100.0 * r.gbps / peak_dram_gbps : 0.0;
  r.pct_memcpy = memcpy_gbps > 0 ? 100.0 * r.gbps / memcpy_gbps : 0.0;
  r.pct_peak_fp32 = peak_fp32_gflops > 0 ? 100.0 * r.gflops / peak_fp32_gflops : 0.0;
}

std::string device_banner(const DeviceInfo& d) {
  std::ostringstream b;
  auto ver = [](int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); };
  b << std::fixed << std::setprecision(1);
  b << "GPU " << d.device << ": " << d.name << " (compute capability " << d.cc_major << "." << d.cc_minor
    << ", " << d.sm_count
    << (d.device_sm_count > 0 ? " of " + std::to_string(d.device_sm_count) + " SMs (a green context, --sms)" : " SMs")
    << ", " << d.l2_bytes / (1024.0 * 1024.0) << " MiB L2, "
    << d.global_mem_bytes / (1024.0 * 1024.0 * 1024.0) << " GiB)\n";
  b << "clocks: SM " << d.sm_clock_khz / 1000 << " MHz, memory " << d.mem_clock_khz / 1000 << " MHz x "
    << d.bus_width_bits << "-bit bus = " << d.peak_dram_gbps << " GB/s theoretical peak\n";
  if (d.peak_fp32_gflops > 0)
    b << "FP32 peak: " << d.sm_count << " SMs x " << fp32_lanes_per_sm_by_cc(d.cc_major, d.cc_minor)
      << " lanes x 2 flop x " << d.sm_clock_khz / 1000 << " MHz = " << d.peak_fp32_gflops << " GFLOP/s\n";
  b << "driver " << ver(d.driver_version) << ", runtime " << ver(d.runtime_version) << "\n";
  return b.str();
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += c;
        }
    }
  }
  return o;
}

namespace {

std::string fixed(double v, int prec) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(prec) << v;
  return s.str();
}

// Milliseconds with three significant decimals whatever the magnitude.
std::string ms_text(double ms) {
  if (ms >= 100) return fixed(ms, 1);
  if (ms >= 1) return fixed(ms, 3);
  return fixed(ms, 4);
}

// A JSON number: JSON has no NaN or infinity, so a value that is not finite (a time of 0 divided into
// bytes, a failed measurement) is written as null.
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  std::ostringstream s;
  s << std::setprecision(9) << v;
  return s.str();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

}  // namespace

void write_table(std::ostream& os, const std::vector<Result>& rows) {
  bool any_flops = false, any_ref = false;
  for (const auto& r : rows) {
    any_flops |= r.flops > 0;
    any_ref |= r.speed_vs_ref > 0;
  }
  std::string ref_name;
  for (const auto& r : rows)
    if (!r.ref_name.empty()) ref_name = r.ref_name;
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> head = {"variant", "n", "median ms", "min ms", "max ms", "reps", "GB/s",
                                   "% peak", "% memcpy"};
  bool any_fp32_peak = false;
  for (const auto& r : rows) any_fp32_peak |= r.flops > 0 && r.pct_peak_fp32 > 0;
  if (any_flops) head.push_back("GFLOP/s");
  if (any_fp32_peak) head.push_back("% FP32 peak");
  if (any_ref) head.push_back("speed vs " + ref_name);
  head.push_back("check");
  for (const auto& r : rows) {
    std::vector<std::string> c = {r.variant + (r.reference ? " *" : ""), format_size(r.n),
                                  ms_text(r.time.median_ms), ms_text(r.time.min_ms),
                                  ms_text(r.time.max_ms), std::to_string(r.time.reps),
                                  r.bytes > 0 ? fixed(r.gbps, 1) : "-",
                                  r.bytes > 0 && r.pct_peak_dram > 0 ? fixed(r.pct_peak_dram, 1) : "-",
                                  r.bytes > 0 && r.pct_memcpy > 0 ? fixed(r.pct_memcpy, 1) : "-"};
    if (any_flops) c.push_back(r.flops > 0 ? fixed(r.gflops, 1) : "-");
    if (any_fp32_peak) c.push_back(r.flops > 0 && r.pct_peak_fp32 > 0 ? fixed(r.pct_peak_fp32, 1) : "-");
    if (any_ref)
      c.push_back(r.speed_vs_ref <= 0 ? "-"
                  : r.rounds > 0      ? fixed(r.speed_vs_ref, 3) + "x (" + fixed(r.speed_min, 3) + "-" +
                                       fixed(r.speed_max, 3) + ")"
                                      : fixed(r.speed_vs_ref, 3) + "x");
    c.push_back(r.check);
    cells.push_back(c);
  }
  write_text_table(os, head, cells);
  int rounds = 0;
  for (const auto& r : rows) rounds = std::max(rounds, r.rounds);
  if (any_ref || !rows.empty()) {
    os << "(* vendor reference; GB/s counts each input read once and each output written once; "
          "speed vs " << (ref_name.empty() ? "reference" : ref_name);
    if (rounds > 0)
      os << " = the median over " << rounds << " rounds of its median time / this median time in the same round, "
            "with the lowest and highest round in brackets; a range that holds 1.000 is a tie)\n";
    else
      os << " = its median time / this median time)\n";
  }
}

void write_text_table(std::ostream& os, const std::vector<std::string>& head,
                      const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(head.size(), 0);
  for (std::size_t i = 0; i < head.size(); ++i) width[i] = head[i].size();
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  auto line = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) {
      const bool last = i + 1 == row.size();
      if (i == 0 || last) os << std::left; else os << std::right;
      os << std::setw(last ? 0 : static_cast<int>(width[i])) << row[i];
      if (!last) os << "  ";
    }
    os << "\n";
  };
  line(head);
  std::size_t total = 0;  // the rule stops where the last (free-width) column starts
  for (std::size_t i = 0; i + 1 < width.size(); ++i) total += width[i] + 2;
  os << std::string(total + std::min<std::size_t>(width.back(), 12), '-') << "\n";
  for (const auto& row : rows) line(row);
  os << std::right;
}

void write_csv(std::ostream& os, const std::vector<Result>& rows) {
  os << "chapter,variant,reference,n,bytes,flops,median_ms,min_ms,max_ms,reps,gbps,gflops,pct_peak_dram,"
        "pct_memcpy,speed_vs_ref,ref_name,check,pct_peak_fp32,speed_min,speed_max,rounds\n";
  os << std::setprecision(9);
  for (const auto& r : rows)
    os << csv_field(r.chapter) << "," << csv_field(r.variant) << "," << (r.reference ? 1 : 0) << ","
       << r.n << "," << r.bytes << "," << r.flops << "," << r.time.median_ms << "," << r.time.min_ms << ","
       << r.time.max_ms << "," << r.time.reps << "," << r.gbps << "," << r.gflops << "," << r.pct_peak_dram
       << "," << r.pct_memcpy << "," << r.speed_vs_ref << "," << csv_field(r.ref_name) << ","
       << csv_field(r.check) << "," << r.pct_peak_fp32 << "," << r.speed_min << "," << r.speed_max << ","
       << r.rounds << "\n";
}

void write_json(std::ostream& os, const DeviceInfo& d, const std::string& chapter,
                const std::string& command, const std::vector<Result>& rows,
                const std::map<std::string, long long>& options) {
  const auto num = json_number;
  os << "{\n  \"chapter\": \"" << json_escape(chapter) << "\",\n  \"command\": \"" << json_escape(command)
     << "\",\n  \"device\": {\"name\": \"" << json_escape(d.name) << "\", \"cc\": \"" << d.cc_major << "."
     << d.cc_minor << "\", \"sms\": " << d.sm_count << ", \"l2_bytes\": " << d.l2_bytes
     << ", \"global_mem_bytes\": " << d.global_mem_bytes << ", \"sm_clock_khz\": " << d.sm_clock_khz
     << ", \"mem_clock_khz\": " << d.mem_clock_khz << ", \"bus_width_bits\": " << d.bus_width_bits
     << ", \"driver_version\": " << d.driver_version << ", \"runtime_version\": " << d.runtime_version
     << ", \"peak_dram_gbps\": " << num(d.peak_dram_gbps) << ", \"peak_fp32_gflops\": " << num(d.peak_fp32_gflops)
     << "},\n  \"options\": {";
  bool first_option = true;
  for (const auto& [name, value] : options) {
    os << (first_option ? "" : ", ") << "\"" << json_escape(name) << "\": " << value;
    first_option = false;
  }
  os << "},\n  \"results\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    os << (i ? "," : "") << "\n    {\"variant\": \"" << json_escape(r.variant)
       << "\", \"reference\": " << (r.reference ? "true" : "false") << ", \"n\": " << r.n
       << ", \"bytes\": " << num(r.bytes) << ", \"flops\": " << num(r.flops)
       << ", \"median_ms\": " << num(r.time.median_ms) << ", \"min_ms\": " << num(r.time.min_ms)
       << ", \"max_ms\": " << num(r.time.max_ms) << ", \"reps\": " << r.time.reps
       << ", \"gbps\": " << num(r.gbps) << ", \"gflops\": " << num(r.gflops)
       << ", \"pct_peak_dram\": " << num(r.pct_peak_dram) << ", \"pct_peak_fp32\": " << num(r.pct_peak_fp32)
       << ", \"pct_memcpy\": " << num(r.pct_memcpy) << ", \"speed_vs_ref\": " << num(r.speed_vs_ref)
       << ", \"speed_min\": " << num(r.speed_min) << ", \"speed_max\": " << num(r.speed_max)
       << ", \"rounds\": " << r.rounds
       << ", \"ref_name\": \"" << json_escape(r.ref_name) << "\", \"check\": \"" << json_escape(r.check)
       << "\", \"failed\": " << (r.failed ? "true" : "false") << "}";
  }
  os << "\n  ]\n}\n";
}

void write_variant_list(std::ostream& os, OutputFormat f, const std::vector<VariantSpec>& variants) {
  if (f == OutputFormat::json) {
    os << "[";
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const auto& v = variants[i];
      os << (i ? "," : "") << "\n  {\"name\": \"" << json_escape(v.name) << "\", \"description\": \""
         << json_escape(v.description) << "\", \"reference\": " << (v.reference ? "true" : "false")
         << ", \"on_demand\": " << (v.on_demand ? "true" : "false") << ", \"known_defect\": \""
         << json_escape(v.known_defect) << "\"}";
    }
    os << "\n]\n";
    return;
  }
  if (f == OutputFormat::csv) {
    os << "name,description,reference,on_demand,known_defect\n";
    for (const auto& v : variants)
      os << csv_field(v.name) << "," << csv_field(v.description) << "," << (v.reference ? 1 : 0) << ","
         << (v.on_demand ? 1 : 0) << "," << csv_field(v.known_defect) << "\n";
    return;
  }
  for (const auto& v : variants)
    os << v.name << (v.reference ? " (reference)" : v.on_demand ? " (on demand)" : "") << "\t" << v.description
       << (v.known_defect.empty() ? "" : " [known defect: " + v.known_defect + "]") << "\n";
}

void write_results(std::ostream& os, OutputFormat f, const DeviceInfo& d, const std::string& chapter,
                   const std::string& command, const std::vector<Result>& rows,
                   const std::map<std::string, long long>& options) {
  switch (f) {
    case OutputFormat::table: write_table(os, rows); break;
    case OutputFormat::csv: write_csv(os, rows); break;
    case OutputFormat::json: write_json(os, d, chapter, command, rows, options); break;
  }
}

}  // namespace tut
