#include "cli.hpp"

#include <cctype>
#include <cstdlib>
#include <sstream>

namespace tut {
namespace {

bool mul_overflows(std::uint64_t a, std::uint64_t b) { return b != 0 && a > UINT64_MAX / b; }

// One term: digits, optional K/M/G/T suffix (binary), or base^exp.
std::uint64_t parse_term(const std::string& whole, const std::string& t) {
  auto bad = [&](const char* why) {
    return UsageError("invalid size '" + whole + "': " + why +
                      " (use forms like 1048576, 2^20, 1M, 3*2^20)");
  };
  if (t.empty()) throw bad("empty term");
  if (t[0] == '-') throw bad("must not be negative");
  std::size_t caret = t.find('^');
  if (caret != std::string::npos) {
    std::uint64_t base = parse_term(whole, t.substr(0, caret));
    std::uint64_t exp = parse_term(whole, t.substr(caret + 1));
    std::uint64_t r = 1;
    for (std::uint64_t i = 0; i < exp; ++i) {
      if (mul_overflows(r, base)) throw bad("too large");
      r *= base;
    }
    return r;
  }
  std::size_t i = 0;
  std::uint64_t v = 0;
  if (!std::isdigit(static_cast<unsigned char>(t[0]))) throw bad("not a number");
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) {
    std::uint64_t d = static_cast<std::uint64_t>(t[i] - '0');
    if (mul_overflows(v, 10) || v * 10 > UINT64_MAX - d) throw bad("too large");
    v = v * 10 + d;
    ++i;
  }
  if (i == t.size()) return v;
  if (i + 1 != t.size()) throw bad("unexpected characters");
  int shift = 0;
  switch (std::toupper(static_cast<unsigned char>(t[i]))) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: throw bad("unknown suffix");
  }
  if (v > (UINT64_MAX >> shift)) throw bad("too large");
  return v << shift;
}

// product := term ('*' term)*
std::uint64_t parse_product(const std::string& whole, const std::string& p) {
  std::uint64_t r = 1;
  std::size_t start = 0;
  while (true) {
    std::size_t star = p.find('*', start);
    std::uint64_t v = parse_term(whole, p.substr(start, star - start));
    if (mul_overflows(r, v)) throw UsageError("invalid size '" + whole + "': too large");
    r *= v;
    if (star == std::string::npos) return r;
    start = star + 1;
  }
}

long long parse_int(const std::string& flag, const std::string& value, long long lo, long long hi) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno == ERANGE)
    throw UsageError("invalid value '" + value + "' for --" + flag + ": expected an integer");
  if (v < lo || v > hi)
    throw UsageError("invalid value '" + value + "' for --" + flag + ": must be between " +
                     std::to_string(lo) + " and " + std::to_string(hi));
  return v;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

std::uint64_t parse_size(const std::string& text) {
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  if (s.empty()) throw UsageError("invalid size '': expected a number such as 1048576, 2^20 or 1M");
  // sum := product (('+'|'-') product)*, evaluated left to right; the result must not go below zero.
  std::uint64_t total = 0;
  bool subtract = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    bool at_op = i < s.size() && (s[i] == '+' || (s[i] == '-' && i > 0 && s[i - 1] != '^'));
    if (i < s.size() && !at_op) continue;
    std::uint64_t v = parse_product(text, s.substr(start, i - start));
    if (subtract) {
      if (v > total) throw UsageError("invalid size '" + text + "': must not be negative");
      total -= v;
    } else {
      if (total > UINT64_MAX - v) throw UsageError("invalid size '" + text + "': too large");
      total += v;
    }
    if (i < s.size()) subtract = s[i] == '-';
    start = i + 1;
  }
  return total;
}

std::string format_size(std::uint64_t n) {
  if (n < 1024) return std::to_string(n);
  int k = 0;
  std::uint64_t m = n;
  while ((m & 1) == 0) { m >>= 1; ++k; }
  if (k < 10) return std::to_string(n);
  return (m == 1 ? std::string() : std::to_string(m) + "*") + "2^" + std::to_string(k);
}

Options parse_options(int argc, const char* const* argv, const std::string& default_size,
                      const std::vector<ExtraOption>& extra) {
  Options o;
  for (const auto& e : extra) o.extra[e.name] = e.default_value;
  o.size = parse_size(default_size);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline = false;
    if (arg.rfind("--", 0) == 0) {
      std::size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_inline = true;
      }
    }
    auto next = [&]() -> std::string {
      if (has_inline) return value;
      if (i + 1 >= argc) throw UsageError("missing value for " + arg);
      return argv[++i];
    };
    auto no_value = [&]() {
      if (has_inline) throw UsageError("option " + arg + " takes no value");
    };
    if (arg == "-n" || arg == "--size") {
      o.size = parse_size(next());
      o.size_given = true;
    } else if (arg == "--reps") {
      o.reps = static_cast<int>(parse_int("reps", next(), 1, 1000000));
    } else if (arg == "--warmup") {
      o.warmup = static_cast<int>(parse_int("warmup", next(), 0, 1000));
    } else if (arg == "--budget-ms") {
      o.budget_ms = static_cast<double>(parse_int("budget-ms", next(), 1, 3600000));
    } else if (arg == "--seed") {
      o.seed = static_cast<std::uint64_t>(parse_int("seed", next(), 0, INT64_MAX));
    } else if (arg == "-v" || arg == "--variant") {
      auto names = split_commas(next());
      if (names.empty()) throw UsageError("empty value for --variant");
      o.variants.insert(o.variants.end(), names.begin(), names.end());
    } else if (arg == "--no-check") {
      no_value();
      o.check = false;
    } else if (arg == "--profile") {
      no_value();
      o.profile = true;
    } else if (arg == "--flush-l2") {
      no_value();
      o.flush_l2 = true;
    } else if (arg == "--format") {
      std::string f = next();
      if (f == "table") o.format = OutputFormat::table;
      else if (f == "csv") o.format = OutputFormat::csv;
      else if (f == "json") o.format = OutputFormat::json;
      else throw UsageError("invalid value '" + f + "' for --format: expected table, csv or json");
    } else if (arg == "--csv") {
      no_value();
      o.format = OutputFormat::csv;
    } else if (arg == "--json") {
      no_value();
      o.format = OutputFormat::json;
    } else if (arg == "--replan") {
      no_value();
      o.replan = true;
    } else if (arg == "--sms") {
      o.sms = static_cast<int>(parse_int("sms", next(), 1, 1 << 16));  // the GPU's own limit: checked on it
    } else if (arg == "--rounds") {
      o.rounds = static_cast<int>(parse_int("rounds", next(), 1, 1000));
    } else if (arg == "--list") {
      no_value();
      o.list = true;
    } else if (arg == "-h" || arg == "--help") {
      no_value();
      o.help = true;
    } else {
      bool matched = false;
      for (const auto& e : extra) {
        if (arg == "--" + e.name) {
          o.extra[e.name] = parse_int(e.name, next(), e.min_value, e.max_value);
          matched = true;
          break;
        }
      }
      if (!matched) {
        if (arg.rfind("-", 0) == 0) throw UsageError("unknown option '" + arg + "' (see --help)");
        throw UsageError("unexpected argument '" + arg + "' (see --help)");
      }
    }
  }
  if (o.profile) {
    o.warmup = 1;
    o.reps = 1;
    o.rounds = 1;
  }
  return o;
}

std::string usage_text(const std::string& program, const std::string& title,
                       const std::string& default_size, const std::vector<ExtraOption>& extra) {
  std::ostringstream u;
  u << title << "\n\nusage: " << program << " [options]\n\n"
    << "  -n, --size N        problem size in elements (default " << default_size
    << "); accepts 1048576, 2^20, 1M, 3*2^20, 2^31+5\n"
    << "  -v, --variant LIST  comma-separated variants to run, or all (default: the stage and the\n"
    << "                      references; --list marks the others 'on demand'; 'default,NAME' adds one)\n"
    << "      --reps N        timed repetitions (default: adaptive to --budget-ms)\n"
    << "      --budget-ms MS  time budget per variant for adaptive repetitions (default 1000)\n"
    << "      --warmup N      untimed warm-up runs (default 2)\n"
    << "      --seed S        seed of the random input (default 20221)\n"
    << "      --no-check      skip verification against the CPU reference\n"
    << "      --flush-l2      flush the L2 cache before every timed repetition\n"
    << "      --profile       one warm-up and one timed run per variant (for ncu)\n"
    << "      --format F      table (default), csv or json; --csv and --json are short forms\n"
    << "      --replan        ignore cached plans: measure the tuned stage's candidates again and cache\n"
    << "                      the result (docs/tuning-per-gpu.md)\n"
    << "      --sms N         run everything (stage, vendor library, cudaMemcpy) on N SMs of the GPU, in a\n"
    << "                      green context (needs a CUDA 12.4+ driver); e.g. an H100 at 92 SMs asks each SM\n"
    << "                      for the bandwidth an H200 does\n"
    << "      --rounds N      time the variants in N alternating rounds, each with its share of --budget-ms,\n"
    << "                      and give each ratio as its median over the rounds with their range: both\n"
    << "                      sides of a ratio then ran at the same clocks (default 1: one block each)\n"
    << "      --list          list the variants and exit\n"
    << "  -h, --help          this text\n";
  for (const auto& e : extra)
    u << "      --" << e.name << " N" << std::string(e.name.size() < 14 ? 14 - e.name.size() : 1, ' ')
      << e.help << " (default " << e.default_value << ")\n";
  u << "\nExit status: 0 on success, 1 on a failed check or a CUDA error (no GPU included), 2 on bad "
       "usage.\n";
  return u.str();
}

}  // namespace tut
