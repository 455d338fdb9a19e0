// Chapter 40's rank bootstrap: the launcher's environment, the file and TCP rendezvous, the watchdog, the
// launcher. See rank_bootstrap.hpp.
#include "rank_bootstrap.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

extern char** environ;

namespace scan_multi_gpu::ranks {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPoll = std::chrono::milliseconds(20);
constexpr std::int64_t kStaleMs = 30000;  // records written this long before this process started are old runs'

std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}
const std::int64_t kProcessStartMs = unix_ms();

std::string hex(const unsigned char* p, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += digits[p[i] >> 4], s += digits[p[i] & 15];
  return s;
}
std::string hex(const std::string& s) { return hex(reinterpret_cast<const unsigned char*>(s.data()), s.size()); }
bool unhex(const std::string& h, std::string& out) {
  if (h.size() % 2) return false;
  out.clear();
  for (std::size_t i = 0; i < h.size(); i += 2) {
    int v = 0;
    for (int k = 0; k < 2; ++k) {
      const char c = h[i + k];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return false;
      v = v * 16 + d;
    }
    out += static_cast<char>(v);
  }
  return true;
}

std::string random_nonce() {
  std::random_device rd;
  std::uint64_t v = (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ static_cast<std::uint64_t>(getpid()) ^
                    static_cast<std::uint64_t>(unix_ms()) << 20;
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
  return hex(b, 8);
}

std::string who(const RankEnv& me) { return "rank " + std::to_string(me.rank) + " of " + std::to_string(me.world_size); }

// ---- the file transport: one file per message, written whole (a temporary file, then rename) ----------
struct FilePaths {
  std::string offer, verdict;
  std::string ack(int r) const { return offer + ".ack" + std::to_string(r); }
};

void write_whole(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << text << "\n";
    if (!f) throw BootstrapError("cannot write the rendezvous file " + tmp + ": " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw BootstrapError("cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
}
// nullopt: no such file; "" and garbage are returned as they are (decode rejects them).
std::optional<std::string> read_whole(const std::string& path) {
  std::ifstream f(path);
  if (!f) return std::nullopt;
  std::string line;
  std::getline(f, line);
  return line;
}

// ---- the TCP transport: rank 0 listens; every other rank connects, reads the offer, acks, reads the verdict --
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd = o.fd;
      o.fd = -1;
    }
    return *this;
  }
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) close(fd);
    fd = -1;
  }
};

addrinfo* resolve(const RendezvousAddress& a, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo* res = nullptr;
  const int rc = getaddrinfo(a.host.c_str(), std::to_string(a.port).c_str(), &hints, &res);
  if (rc != 0) throw BootstrapError("cannot resolve " + a.text() + ": " + gai_strerror(rc));
  return res;
}

int ms_left(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// Sends all of `line` + '\n' (a peer that has gone is not an error here: its rank reports for itself).
void send_line(int fd, const std::string& line) {
  const std::string s = line + "\n";
  std::size_t sent = 0;
  while (sent < s.size()) {
    const ssize_t k = send(fd, s.data() + sent, s.size() - sent, MSG_NOSIGNAL);
    if (k <= 0) return;
    sent += static_cast<std::size_t>(k);
  }
}
// One line, or nullopt at the deadline or when the peer closes first.
std::optional<std::string> read_line(int fd, Clock::time_point deadline) {
  std::string line;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int r = poll(&p, 1, ms_left(deadline));
    if (r <= 0) return std::nullopt;
    char c = 0;
    const ssize_t k = recv(fd, &c, 1, 0);
    if (k <= 0) return std::nullopt;
    if (c == '\n') return line;
    if (line.size() > 4096) return std::nullopt;  // not our protocol
    line += c;
  }
}

Record base_record(const std::string& kind, const std::string& nonce, const RankEnv& me) {
  Record r;
  r.kind = kind;
  r.nonce = nonce;
  r.time_ms = unix_ms();
  r.rank = me.rank;
  r.world = me.world_size;
  return r;
}

// An ack's reason, or "" when rank `me` can join rank 0's offer.
std::string why_not_join(const RendezvousRequest& q, const Record& offer) {
  if (!q.local_problem.empty()) return who(q.me) + ": " + q.local_problem;
  if (offer.world != q.me.world_size)
    return who(q.me) + ": world size " + std::to_string(q.me.world_size) + " but rank 0's is " +
           std::to_string(offer.world);
  if (offer.agreement != q.agreement)
    return who(q.me) + ": options differ from rank 0's (" + q.agreement + " here, " + offer.agreement + " there)";
  return "";
}

[[noreturn]] void fail(const RankEnv& me, const std::string& why) { throw BootstrapError(who(me) + ": " + why); }

// Rank 0's decision from the acks it has (ranks 1 .. P-1): "" = go; else the first reason to abort.
std::string verdict_of(const std::map<int, Record>& acks) {
  for (const auto& [r, a] : acks)
    if (!a.ok) return a.reason.empty() ? "rank " + std::to_string(r) + " cannot join" : a.reason;
  return "";
}

std::string missing_ranks(const std::map<int, Record>& acks, int world) {
  std::string m;
  for (int r = 1; r < world; ++r)
    if (!acks.count(r)) m += (m.empty() ? "" : ", ") + std::to_string(r);
  return m;
}

// ---- the file rendezvous -----------------------------------------------------------------------------
UniqueId file_rendezvous(const RendezvousRequest& q, Clock::time_point deadline) {
  const RankEnv& me = q.me;
  const FilePaths f{me.rendezvous.path, me.rendezvous.path + ".verdict"};
  const std::string where = " (file rendezvous " + f.offer + ", " + std::to_string(static_cast<int>(q.timeout_s)) + " s)";
  if (me.rank == 0) {
    // An older run's records go first, so no rank reads them as ours.
    std::remove(f.verdict.c_str());
    for (int r = 1; r < me.world_size; ++r) std::remove(f.ack(r).c_str());
    Record offer = base_record("offer", random_nonce(), me);
    offer.agreement = q.agreement;
    offer.ok = q.local_problem.empty();
    offer.reason = q.local_problem;
    if (offer.ok) offer.id = q.make_id();
    write_whole(f.offer, encode(offer));
    // Every rank's ack (of the offer, or of the abort), until the deadline.
    std::map<int, Record> acks;
    while (static_cast<int>(acks.size()) < me.world_size - 1 && Clock::now() < deadline) {
      for (int r = 1; r < me.world_size; ++r) {
        if (acks.count(r)) continue;
        const auto text = read_whole(f.ack(r));
        const auto a = text ? decode(*text) : std::nullopt;
        if (a && a->kind == "ack" && a->nonce == offer.nonce && a->rank == r) acks[r] = *a;
      }
      if (static_cast<int>(acks.size()) < me.world_size - 1) std::this_thread::sleep_for(kPoll);
    }
    if (!offer.ok) {  // every rank has seen the abort (or the deadline passed): the records can go
      std::remove(f.offer.c_str());
      for (int r = 1; r < me.world_size; ++r) std::remove(f.ack(r).c_str());
      fail(me, q.local_problem);
    }
    std::string why = verdict_of(acks);
    if (why.empty() && static_cast<int>(acks.size()) < me.world_size - 1)
      why = "rendezvous timed out: no answer from rank " + missing_ranks(acks, me.world_size) + where;
    Record verdict = base_record("verdict", offer.nonce, me);
    verdict.ok = why.empty();
    verdict.reason = why;
    write_whole(f.verdict, encode(verdict));
    // A rank removes its ack once it has read the verdict: when every ack is gone (or after 2 s), no rank
    // needs the records, and they go, so that a next run at this path finds none of them.
    const auto grace = std::min(deadline, Clock::now() + std::chrono::seconds(2));
    for (bool any = true; any && Clock::now() < grace;) {
      any = false;
      for (const auto& [r, a] : acks) any = any || read_whole(f.ack(r)).has_value();
      if (any) std::this_thread::sleep_for(kPoll);
    }
    std::remove(f.offer.c_str());
    std::remove(f.verdict.c_str());
    for (int r = 1; r < me.world_size; ++r) std::remove(f.ack(r).c_str());
    if (!verdict.ok) fail(me, why);
    return offer.id;
  }
  // Ranks 1 .. P-1: the newest offer (a newer one replaces an older run's), ack, then its verdict.
  std::string acked_nonce, last_problem = "no offer from rank 0 yet";
  while (Clock::now() < deadline) {
    const auto text = read_whole(f.offer);
    const auto offer = text ? decode(*text) : std::nullopt;
    if (text && !offer) last_problem = "the offer file is not a rendezvous record (corrupt)";
    if (offer && offer->kind == "offer" && offer->time_ms >= kProcessStartMs - kStaleMs) {
      if (!offer->ok) {  // rank 0 cannot run: say so to it, then end
        Record ack = base_record("ack", offer->nonce, me);
        write_whole(f.ack(me.rank), encode(ack));
        fail(me, "rank 0 aborted: " + offer->reason);
      }
      if (acked_nonce != offer->nonce) {
        Record ack = base_record("ack", offer->nonce, me);
        ack.reason = why_not_join(q, *offer);
        ack.ok = ack.reason.empty();
        write_whole(f.ack(me.rank), encode(ack));
        acked_nonce = offer->nonce;
      }
      const auto vtext = read_whole(f.verdict);
      const auto verdict = vtext ? decode(*vtext) : std::nullopt;
      if (verdict && verdict->kind == "verdict" && verdict->nonce == offer->nonce) {
        std::remove(f.ack(me.rank).c_str());  // read: rank 0 may remove the records
        if (!verdict->ok) fail(me, "rank 0 aborted: " + verdict->reason);
        if (me.rank >= offer->world)  // rank 0's world does not include this rank
          fail(me, "world size " + std::to_string(me.world_size) + " but rank 0's is " + std::to_string(offer->world));
        return offer->id;
      }
      last_problem = "rank 0 has not decided (waiting for other ranks)";
    } else if (offer && offer->kind == "offer") {
      last_problem = "only an old run's offer (written before this process started)";
    }
    std::this_thread::sleep_for(kPoll);
  }
  fail(me, "rendezvous timed out: " + last_problem + where);
}

// ---- the TCP rendezvous ------------------------------------------------------------------------------
UniqueId tcp_rendezvous(const RendezvousRequest& q, Clock::time_point deadline) {
  const RankEnv& me = q.me;
  const std::string where = " (tcp rendezvous " + me.rendezvous.text() + ", " +
                            std::to_string(static_cast<int>(q.timeout_s)) + " s)";
  if (me.rank == 0) {
    addrinfo* res = resolve(me.rendezvous, true);
    Fd listener;
    std::string bind_error = "no address";
    for (addrinfo* a = res; a && listener.fd < 0; a = a->ai_next) {
      Fd s(socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
      if (s.fd < 0) continue;
      const int one = 1;
      setsockopt(s.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (bind(s.fd, a->ai_addr, a->ai_addrlen) == 0 && listen(s.fd, 1024) == 0)
        listener = std::move(s);
      else
        bind_error = std::strerror(errno);
    }
    freeaddrinfo(res);
    if (listener.fd < 0) fail(me, "cannot listen on " + me.rendezvous.text() + ": " + bind_error);
    Record offer = base_record("offer", random_nonce(), me);
    offer.agreement = q.agreement;
    offer.ok = q.local_problem.empty();
    offer.reason = q.local_problem;
    if (offer.ok) offer.id = q.make_id();
    const std::string offer_line = encode(offer);
    std::map<int, Record> acks;
    std::vector<Fd> peers;
    std::string extra_problem;  // a rank outside rank 0's world, a rank twice
    while (static_cast<int>(acks.size()) < me.world_size - 1 && extra_problem.empty()) {
      pollfd p{listener.fd, POLLIN, 0};
      if (poll(&p, 1, ms_left(deadline)) <= 0) break;
      Fd peer(accept4(listener.fd, nullptr, nullptr, SOCK_CLOEXEC));
      if (peer.fd < 0) continue;
      send_line(peer.fd, offer_line);
      const auto line = read_line(peer.fd, deadline);
      const auto a = line ? decode(*line) : std::nullopt;
      if (!a || a->kind != "ack" || a->nonce != offer.nonce) continue;  // not one of ours
      if (a->rank < 1 || a->rank >= me.world_size)
        extra_problem = "rank " + std::to_string(a->rank) + " (world size " + std::to_string(a->world) +
                        ") joined rank 0's world of " + std::to_string(me.world_size);
      else if (acks.count(a->rank))
        extra_problem = "two processes are rank " + std::to_string(a->rank);
      else
        acks[a->rank] = *a;
      peers.push_back(std::move(peer));
    }
    if (!offer.ok) fail(me, q.local_problem);  // the peers that came have the abort offer
    std::string why = !extra_problem.empty() ? extra_problem : verdict_of(acks);
    if (why.empty() && static_cast<int>(acks.size()) < me.world_size - 1)
      why = "rendezvous timed out: no answer from rank " + missing_ranks(acks, me.world_size) + where;
    Record verdict = base_record("verdict", offer.nonce, me);
    verdict.ok = why.empty();
    verdict.reason = why;
    const std::string verdict_line = encode(verdict);
    for (const Fd& p : peers) send_line(p.fd, verdict_line);
    if (!verdict.ok) fail(me, why);
    return offer.id;
  }
  // Ranks 1 .. P-1: connect (rank 0 may not listen yet: retry), read the offer, ack, read the verdict.
  std::string last_problem = "rank 0 does not listen";
  while (Clock::now() < deadline) {
    addrinfo* res = resolve(me.rendezvous, false);
    Fd s;
    for (addrinfo* a = res; a && s.fd < 0; a = a->ai_next) {
      Fd c(socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
      if (c.fd >= 0 && connect(c.fd, a->ai_addr, a->ai_addrlen) == 0) s = std::move(c);
    }
    freeaddrinfo(res);
    if (s.fd < 0) {
      std::this_thread::sleep_for(kPoll * 5);
      continue;
    }
    const auto line = read_line(s.fd, deadline);
    const auto offer = line ? decode(*line) : std::nullopt;
    if (!offer || offer->kind != "offer") {
      last_problem = line ? "the listener at the address is not rank 0 of this program (corrupt offer)"
                          : "rank 0 sent no offer";
      std::this_thread::sleep_for(kPoll * 5);
      continue;
    }
    Record ack = base_record("ack", offer->nonce, me);
    if (!offer->ok) {  // rank 0 cannot run: say so to it (it waits for every rank to know), then end
      send_line(s.fd, encode(ack));
      fail(me, "rank 0 aborted: " + offer->reason);
    }
    ack.reason = why_not_join(q, *offer);
    ack.ok = ack.reason.empty();
    send_line(s.fd, encode(ack));
    const auto vline = read_line(s.fd, deadline);
    const auto verdict = vline ? decode(*vline) : std::nullopt;
    if (!verdict || verdict->kind != "verdict" || verdict->nonce != offer->nonce)
      fail(me, "rendezvous timed out: rank 0 sent no verdict" + where);
    if (!verdict->ok) fail(me, "rank 0 aborted: " + verdict->reason);
    return offer->id;
  }
  fail(me, "rendezvous timed out: " + last_problem + where);
}

std::string trimmed_env(const EnvLookup& env, const char* name) {
  const char* v = env(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

EnvLookup process_environment() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

std::string RendezvousAddress::text() const {
  return kind == Kind::kFile ? "file:" + path : "tcp:" + host + ":" + std::to_string(port);
}

RendezvousAddress parse_rendezvous(const std::string& text) {
  RendezvousAddress a;
  const auto bad = [&](const std::string& why) {
    return RankUsageError("rendezvous '" + text + "': " + why +
                          " (give file:PATH, tcp:HOST:PORT, an absolute path, or HOST:PORT)");
  };
  if (text.empty()) throw bad("empty");
  std::string rest = text;
  bool tcp = false;
  if (rest.rfind("file:", 0) == 0) {
    rest = rest.substr(5);
    if (rest.empty()) throw bad("no path");
    a.path = rest;
    return a;
  }
  if (rest.rfind("tcp:", 0) == 0) {
    rest = rest.substr(4);
    tcp = true;
  } else if (rest[0] == '/' || rest[0] == '.') {
    a.path = rest;
    return a;
  }
  const std::size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0) throw bad(tcp ? "no HOST:PORT" : "neither a path nor HOST:PORT");
  a.kind = RendezvousAddress::Kind::kTcp;
  a.host = rest.substr(0, colon);
  if (a.host.size() > 2 && a.host.front() == '[' && a.host.back() == ']') a.host = a.host.substr(1, a.host.size() - 2);
  const std::string port = rest.substr(colon + 1);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    throw bad("port '" + port + "' is not a number");
  a.port = std::stoi(port);
  if (a.port < 1 || a.port > 65535) throw bad("port " + port + " is not in 1 .. 65535");
  return a;
}

int parse_env_int(const char* name, const char* value, int lo, int hi) {
  const std::string v = value ? value : "";
  if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos)
    throw RankUsageError(std::string(name) + "='" + v + "' is not a non-negative integer");
  const int x = std::stoi(v);
  if (x < lo || x > hi)
    throw RankUsageError(std::string(name) + "=" + v + " is not in " + std::to_string(lo) + " .. " +
                         std::to_string(hi));
  return x;
}

std::optional<RankEnv> rank_from_environment(const EnvLookup& env) {
  constexpr int kMaxRanks = 65536;
  struct Set {
    const char *rank, *size, *local, *source;
  };
  const Set sets[] = {{"TUT_RANK", "TUT_WORLD_SIZE", "TUT_LOCAL_RANK", "TUT_RANK"},
                      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "Open MPI"},
                      {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "Slurm"},
                      {"RANK", "WORLD_SIZE", "LOCAL_RANK", "torchrun"}};
  for (const Set& s : sets) {
    const char* rank = env(s.rank);
    const char* size = env(s.size);
    if (!rank && !size) continue;
    if (!rank || !size)
      throw RankUsageError(std::string(rank ? s.rank : s.size) + " is set but " + (rank ? s.size : s.rank) +
                           " is not: give both (or neither, for the one-process form)");
    RankEnv e;
    e.source = s.source;
    e.world_size = parse_env_int(s.size, size, 1, kMaxRanks);
    e.rank = parse_env_int(s.rank, rank, 0, kMaxRanks);
    if (e.rank >= e.world_size)
      throw RankUsageError(std::string(s.rank) + "=" + rank + " is not below " + s.size + "=" + size);
    // TUT_LOCAL_RANK wins for any launcher (one that binds one GPU per task: TUT_LOCAL_RANK=0).
    const char* tut_local = env("TUT_LOCAL_RANK");
    const char* local = env(s.local);
    e.local_rank = tut_local ? parse_env_int("TUT_LOCAL_RANK", tut_local, 0, kMaxRanks)
                   : local   ? parse_env_int(s.local, local, 0, kMaxRanks)
                             : e.rank;
    // Where the id travels.
    const std::string given = trimmed_env(env, "TUT_RENDEZVOUS");
    const std::string master = trimmed_env(env, "MASTER_ADDR"), port = trimmed_env(env, "MASTER_PORT");
    if (!given.empty()) {
      e.rendezvous = parse_rendezvous(given);
    } else if (std::string(s.source) == "TUT_RANK") {
      throw RankUsageError("TUT_RANK is set but TUT_RENDEZVOUS is not (a file path or HOST:PORT that every rank "
                           "can reach)");
    } else if (!master.empty() && !port.empty()) {
      const int p = parse_env_int("MASTER_PORT", port.c_str(), 1, 65535);
      const bool torchrun = std::string(s.source) == "torchrun";
      if (torchrun && p == 65535) throw RankUsageError("MASTER_PORT=65535: torchrun's store holds it and no port follows");
      e.rendezvous = parse_rendezvous("tcp:" + master + ":" + std::to_string(torchrun ? p + 1 : p));
    } else if (std::string(s.source) != "torchrun") {
      // One host: a file named after the job, so that the ranks of one job meet and two jobs do not.
      std::string job = trimmed_env(env, "PMIX_NAMESPACE");
      if (job.empty()) job = trimmed_env(env, "OMPI_MCA_ess_base_jobid");
      if (job.empty() && env("SLURM_JOB_ID"))
        job = trimmed_env(env, "SLURM_JOB_ID") + "." + trimmed_env(env, "SLURM_STEP_ID");
      if (job.empty())
        throw RankUsageError(std::string(s.source) + " gives no job id: set TUT_RENDEZVOUS (a file path or HOST:PORT)");
      for (char& c : job)
        if (!isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
      std::string tmp = trimmed_env(env, "TMPDIR");
      if (tmp.empty()) tmp = "/tmp";
      e.rendezvous.path = tmp + "/tut40-rendezvous-" + job;
    } else {
      throw RankUsageError("torchrun's RANK is set but neither TUT_RENDEZVOUS nor MASTER_ADDR and MASTER_PORT are");
    }
    return e;
  }
  for (const char* lone : {"TUT_LOCAL_RANK", "TUT_RENDEZVOUS"})
    if (env(lone)) throw RankUsageError(std::string(lone) + " is set but TUT_RANK and TUT_WORLD_SIZE are not");
  return std::nullopt;
}

std::string encode(const Record& r) {
  std::ostringstream s;
  s << "tut40-rendezvous v1 " << r.kind << " nonce=" << r.nonce << " time=" << r.time_ms << " rank=" << r.rank
    << " world=" << r.world << " status=" << (r.ok ? "ok" : "abort") << " id=" << hex(r.id.data(), r.id.size())
    << " agreement=" << hex(r.agreement) << " reason=" << hex(r.reason);
  return s.str();
}

std::optional<Record> decode(const std::string& line) {
  std::istringstream s(line);
  std::string magic, version, kind;
  if (!(s >> magic >> version >> kind) || magic != "tut40-rendezvous" || version != "v1") return std::nullopt;
  if (kind != "offer" && kind != "ack" && kind != "verdict") return std::nullopt;
  Record r;
  r.kind = kind;
  std::map<std::string, std::string> f;
  for (std::string field; s >> field;) {
    const std::size_t eq = field.find('=');
    if (eq == std::string::npos) return std::nullopt;
    f[field.substr(0, eq)] = field.substr(eq + 1);
  }
  for (const char* k : {"nonce", "time", "rank", "world", "status", "id", "agreement", "reason"})
    if (!f.count(k)) return std::nullopt;
  const auto number = [](const std::string& v, std::int64_t& out) {
    if (v.empty() || v.size() > 18 || v.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::stoll(v);
    return true;
  };
  std::int64_t rank = 0, world = 0;
  if (f["nonce"].size() != 16 || !number(f["time"], r.time_ms) || !number(f["rank"], rank) ||
      !number(f["world"], world) || rank > 65536 || world < 1 || world > 65536)
    return std::nullopt;
  if (f["status"] != "ok" && f["status"] != "abort") return std::nullopt;
  std::string id;
  if (!unhex(f["id"], id) || id.size() != r.id.size()) return std::nullopt;
  if (!unhex(f["agreement"], r.agreement) || !unhex(f["reason"], r.reason)) return std::nullopt;
  r.nonce = f["nonce"];
  r.rank = static_cast<int>(rank);
  r.world = static_cast<int>(world);
  r.ok = f["status"] == "ok";
  std::memcpy(r.id.data(), id.data(), id.size());
  return r;
}

UniqueId rendezvous(const RendezvousRequest& q) {
  if (q.timeout_s <= 0) throw RankUsageError("the rendezvous timeout must be positive");
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<std::int64_t>(q.timeout_s * 1000));
  if (q.me.world_size == 1) {  // nobody to meet
    if (!q.local_problem.empty()) fail(q.me, q.local_problem);
    return q.make_id();
  }
  if (q.me.rank == 0 && !q.make_id) throw std::logic_error("rendezvous: rank 0 needs make_id");
  return q.me.rendezvous.kind == RendezvousAddress::Kind::kFile ? file_rendezvous(q, deadline)
                                                                  : tcp_rendezvous(q, deadline);
}

void remove_rendezvous_files(const RankEnv& me) {
  if (me.rank != 0 || me.rendezvous.kind != RendezvousAddress::Kind::kFile) return;
  const std::string& path = me.rendezvous.path;
  std::remove(path.c_str());
  std::remove((path + ".verdict").c_str());
  for (int r = 1; r < me.world_size; ++r) std::remove((path + ".ack" + std::to_string(r)).c_str());
}

// ---- the watchdog ------------------------------------------------------------------------------------
struct Watchdog::State {
  std::mutex m;
  Clock::time_point last = Clock::now();
  std::string step = "start";
  std::atomic<bool> stop{false};
  std::thread thread;
};

Watchdog::Watchdog(double seconds, std::function<void(const std::string&)> on_expire) : state_(new State) {
  State* s = state_;
  s->thread = std::thread([s, seconds, on_expire] {
    while (!s->stop) {
      std::this_thread::sleep_for(kPoll);
      std::string step;
      {
        std::lock_guard<std::mutex> lock(s->m);
        if (std::chrono::duration<double>(Clock::now() - s->last).count() < seconds) continue;
        step = s->step;
        s->last = Clock::now();  // once per silence
      }
      std::ostringstream msg;
      msg << "no progress for " << seconds << " s in " << step << " (a peer rank stopped or never came)";
      on_expire(msg.str());
    }
  });
}
Watchdog::~Watchdog() {
  state_->stop = true;
  state_->thread.join();
  delete state_;
}
void Watchdog::progress(const std::string& step) {
  std::lock_guard<std::mutex> lock(state_->m);
  state_->last = Clock::now();
  state_->step = step;
}

// ---- the launcher ------------------------------------------------------------------------------------
int launch_ranks(const std::string& program, const std::vector<std::string>& argv_in, int ranks) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string dir = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/tut40-ranks-XXXXXX";
  std::vector<char> dir_buf(dir.begin(), dir.end());
  dir_buf.push_back('\0');
  if (!mkdtemp(dir_buf.data())) throw BootstrapError("cannot make a folder for the rendezvous in " + dir);
  dir = dir_buf.data();
  const std::string path = dir + "/rendezvous";
  std::vector<pid_t> children;
  for (int r = 0; r < ranks; ++r) {
    const pid_t pid = fork();
    if (pid < 0) throw BootstrapError(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      // The rank form's variables; an inherited launcher's set (mpirun, srun, torchrun) must not win.
      for (const char* v : {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
                            "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "RANK", "WORLD_SIZE", "LOCAL_RANK"})
        unsetenv(v);
      setenv("TUT_RANK", std::to_string(r).c_str(), 1);
      setenv("TUT_WORLD_SIZE", std::to_string(ranks).c_str(), 1);
      setenv("TUT_LOCAL_RANK", std::to_string(r).c_str(), 1);
      setenv("TUT_RENDEZVOUS", ("file:" + path).c_str(), 1);
      std::vector<char*> argv;
      for (const std::string& a : argv_in) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(program.c_str(), argv.data());
      std::fprintf(stderr, "rank %d: cannot start %s: %s\n", r, program.c_str(), std::strerror(errno));
      _exit(127);
    }
    children.push_back(pid);
  }
  int worst = 0;
  for (int r = 0; r < ranks; ++r) {
    int status = 0;
    while (waitpid(children[r], &status, 0) < 0 && errno == EINTR) {
    }
    int code = 0;
    if (WIFEXITED(status)) {
      code = WEXITSTATUS(status);
    } else {
      std::fprintf(stderr, "rank %d: ended by signal %d\n", r, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
      code = 1;
    }
    if (code != 0 && (worst == 0 || code == 2)) worst = code;  // a usage error (2) wins over a failure (1)
  }
  // Whatever records the ranks left (an abort, a timeout), then the folder.
  RankEnv root;
  root.world_size = ranks;
  root.rendezvous.path = path;
  remove_rendezvous_files(root);
  rmdir(dir.c_str());
  return worst;
}

}  // namespace scan_multi_gpu::ranks
