// Host tests of chapter 40's rank form (no GPU, no NCCL): the launcher's environment, the file and TCP
// rendezvous between ranks (threads of this process here, processes in the program), their deadlines and
// refusals, the watchdog, and the shard plan every rank computes for itself.
#include "doctest.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "rank_bootstrap.hpp"
#include "shard_plan.hpp"

namespace {

namespace rk = scan_multi_gpu::ranks;
using Clock = std::chrono::steady_clock;

rk::EnvLookup env_of(std::map<std::string, std::string> vars) {
  auto held = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [held](const char* name) -> const char* {
    const auto it = held->find(name);
    return it == held->end() ? nullptr : it->second.c_str();
  };
}

// The folders the tests made, removed at the end.
struct TempDirs {
  std::vector<std::string> dirs;
  ~TempDirs() {
    for (const std::string& d : dirs) std::filesystem::remove_all(d);
  }
} temp_dirs;

// A folder of its own for each test's rendezvous files.
std::string fresh_path(const std::string& tag) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/tut40-test-XXXXXX";
  std::vector<char> buf(dir.begin(), dir.end());
  buf.push_back('\0');
  REQUIRE(mkdtemp(buf.data()) != nullptr);
  temp_dirs.dirs.push_back(buf.data());
  return std::string(buf.data()) + "/" + tag;
}

// A loopback port nobody listens on now.
int free_port() {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  REQUIRE(bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  REQUIRE(getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  close(s);
  return ntohs(a.sin_port);
}

rk::UniqueId test_id(unsigned char seed) {
  rk::UniqueId id;
  for (std::size_t i = 0; i < id.size(); ++i) id[i] = static_cast<unsigned char>(seed + 7 * i);
  return id;
}

// What one rank's rendezvous ended with: the id, or the error's one line; and how long it took.
struct Outcome {
  bool ok = false;
  rk::UniqueId id{};
  std::string error;
  double seconds = 0;
};

struct RankSpec {
  RankSpec(int r, int w) : rank(r), world(w) {}
  int rank = 0, world = 2;
  std::string problem;
  std::string agreement = "n=1025";
};

// Every rank of `specs` in a thread of its own, meeting at `address` with `timeout_s`.
std::vector<Outcome> meet(const std::string& address, const std::vector<RankSpec>& specs, double timeout_s) {
  std::vector<std::future<Outcome>> running;
  for (const RankSpec& s : specs)
    running.push_back(std::async(std::launch::async, [=] {
      rk::RendezvousRequest q;
      q.me.rank = s.rank;
      q.me.world_size = s.world;
      q.me.rendezvous = rk::parse_rendezvous(address);
      q.agreement = s.agreement;
      q.local_problem = s.problem;
      q.timeout_s = timeout_s;
      q.make_id = [] { return test_id(42); };
      Outcome o;
      const auto t0 = Clock::now();
      try {
        o.id = rk::rendezvous(q);
        o.ok = true;
      } catch (const rk::BootstrapError& e) {
        o.error = e.what();
      }
      o.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      return o;
    }));
  std::vector<Outcome> out;
  for (auto& f : running) out.push_back(f.get());
  return out;
}

std::vector<std::string> both_transports(const std::string& tag) {
  return {"file:" + fresh_path(tag), "tcp:127.0.0.1:" + std::to_string(free_port())};
}

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == std::string::npos; }

}  // namespace

TEST_CASE("40 ranks: no launcher variables is the one-process form") {
  CHECK_FALSE(rk::rank_from_environment(env_of({})).has_value());
  CHECK_FALSE(rk::rank_from_environment(env_of({{"HOME", "/root"}, {"MASTER_ADDR", "x"}})).has_value());
}

TEST_CASE("40 ranks: TUT_RANK, TUT_WORLD_SIZE, TUT_LOCAL_RANK, TUT_RENDEZVOUS") {
  const auto e = rk::rank_from_environment(
      env_of({{"TUT_RANK", "1"}, {"TUT_WORLD_SIZE", "4"}, {"TUT_LOCAL_RANK", "3"}, {"TUT_RENDEZVOUS", "/tmp/x"}}));
  REQUIRE(e.has_value());
  CHECK(e->rank == 1);
  CHECK(e->world_size == 4);
  CHECK(e->local_rank == 3);
  CHECK(e->rendezvous.kind == rk::RendezvousAddress::Kind::kFile);
  CHECK(e->rendezvous.path == "/tmp/x");
  CHECK(e->source == "TUT_RANK");
  // the local rank defaults to the rank
  const auto d = rk::rank_from_environment(
      env_of({{"TUT_RANK", "2"}, {"TUT_WORLD_SIZE", "3"}, {"TUT_RENDEZVOUS", "tcp:node0:29500"}}));
  REQUIRE(d.has_value());
  CHECK(d->local_rank == 2);
  CHECK(d->rendezvous.kind == rk::RendezvousAddress::Kind::kTcp);
  CHECK(d->rendezvous.host == "node0");
  CHECK(d->rendezvous.port == 29500);
}

TEST_CASE("40 ranks: malformed or partial variables are one-line usage errors") {
  const std::vector<std::map<std::string, std::string>> bad = {
      {{"TUT_RANK", "0"}},                                                            // no world size
      {{"TUT_WORLD_SIZE", "2"}},                                                      // no rank
      {{"TUT_RANK", "2"}, {"TUT_WORLD_SIZE", "2"}, {"TUT_RENDEZVOUS", "/tmp/x"}},     // rank not below size
      {{"TUT_RANK", "-1"}, {"TUT_WORLD_SIZE", "2"}, {"TUT_RENDEZVOUS", "/tmp/x"}},    // negative
      {{"TUT_RANK", "1x"}, {"TUT_WORLD_SIZE", "2"}, {"TUT_RENDEZVOUS", "/tmp/x"}},    // not a number
      {{"TUT_RANK", "0"}, {"TUT_WORLD_SIZE", "0"}, {"TUT_RENDEZVOUS", "/tmp/x"}},     // empty world
      {{"TUT_RANK", "0"}, {"TUT_WORLD_SIZE", "2"}},                                   // no rendezvous
      {{"TUT_RANK", "0"}, {"TUT_WORLD_SIZE", "2"}, {"TUT_RENDEZVOUS", "host:99999"}}, // port out of range
      {{"TUT_RANK", "0"}, {"TUT_WORLD_SIZE", "2"}, {"TUT_RENDEZVOUS", "nohost"}},     // neither path nor address
      {{"TUT_RENDEZVOUS", "/tmp/x"}},                                                 // a rendezvous without ranks
      {{"RANK", "0"}, {"WORLD_SIZE", "2"}},                                           // torchrun without a master
      {{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}},                 // mpirun without a job id
  };
  for (const auto& vars : bad) {
    std::string text;
    for (const auto& [k, v] : vars) text += k + "=" + v + " ";
    CAPTURE(text);
    try {
      (void)rk::rank_from_environment(env_of(vars));
      FAIL("accepted");
    } catch (const rk::RankUsageError& e) {
      CHECK(one_line(e.what()));
    }
  }
}

TEST_CASE("40 ranks: mpirun, srun and torchrun variables") {
  const auto ompi = rk::rank_from_environment(env_of({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"},
                                                      {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                                      {"PMIX_NAMESPACE", "prterun-host-123@1"}, {"TMPDIR", "/scratch"}}));
  REQUIRE(ompi.has_value());
  CHECK(ompi->source == "Open MPI");
  CHECK(ompi->local_rank == 1);
  CHECK(ompi->rendezvous.path == "/scratch/tut40-rendezvous-prterun-host-123_1");
  const auto slurm = rk::rank_from_environment(env_of({{"SLURM_PROCID", "3"}, {"SLURM_NTASKS", "8"},
                                                       {"SLURM_LOCALID", "1"}, {"MASTER_ADDR", "n01"},
                                                       {"MASTER_PORT", "4000"}}));
  REQUIRE(slurm.has_value());
  CHECK(slurm->rank == 3);
  CHECK(slurm->local_rank == 1);
  CHECK(slurm->rendezvous.text() == "tcp:n01:4000");
  const auto bound = rk::rank_from_environment(env_of({{"SLURM_PROCID", "3"}, {"SLURM_NTASKS", "8"},
                                                       {"SLURM_LOCALID", "1"}, {"TUT_LOCAL_RANK", "0"},
                                                       {"TUT_RENDEZVOUS", "n01:4000"}}));
  CHECK(bound->local_rank == 0);  // one GPU bound per task
  const auto torch = rk::rank_from_environment(env_of({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"},
                                                       {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29500"}}));
  REQUIRE(torch.has_value());
  CHECK(torch->source == "torchrun");
  CHECK(torch->rendezvous.text() == "tcp:127.0.0.1:29501");  // torchrun's own store holds 29500
  // TUT_RENDEZVOUS wins over the launcher's address; TUT_RANK wins over the launcher's ranks
  const auto given = rk::rank_from_environment(env_of({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "a"},
                                                       {"MASTER_PORT", "1"}, {"TUT_RENDEZVOUS", "file:/x"}}));
  CHECK(given->rendezvous.text() == "file:/x");
  const auto tut = rk::rank_from_environment(env_of({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"TUT_RANK", "0"},
                                                     {"TUT_WORLD_SIZE", "3"}, {"TUT_RENDEZVOUS", "file:/x"}}));
  CHECK(tut->world_size == 3);
}

TEST_CASE("40 ranks: rendezvous addresses") {
  CHECK(rk::parse_rendezvous("file:rel/path").path == "rel/path");
  CHECK(rk::parse_rendezvous("./here").path == "./here");
  CHECK(rk::parse_rendezvous("tcp:[::1]:80").host == "::1");
  CHECK(rk::parse_rendezvous("h:1").port == 1);
  for (const char* bad : {"", "file:", "tcp:", "tcp:host", "host:", ":80", "host:0", "host:65536", "host:8o"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(rk::parse_rendezvous(bad), rk::RankUsageError);
  }
}

TEST_CASE("40 ranks: records survive encoding; anything else is not a record") {
  rk::Record r;
  r.kind = "offer";
  r.nonce = "0123456789abcdef";
  r.time_ms = 1234567;
  r.rank = 0;
  r.world = 2;
  r.ok = false;
  r.id = test_id(9);
  r.agreement = "n=2^30 seed=1";
  r.reason = "rank 0 of 2: GPU 0 missing";
  const auto back = rk::decode(rk::encode(r));
  REQUIRE(back.has_value());
  CHECK(back->kind == r.kind);
  CHECK(back->nonce == r.nonce);
  CHECK(back->time_ms == r.time_ms);
  CHECK(back->world == 2);
  CHECK_FALSE(back->ok);
  CHECK(back->id == r.id);
  CHECK(back->agreement == r.agreement);
  CHECK(back->reason == r.reason);
  std::string truncated = rk::encode(r);
  truncated.resize(truncated.size() / 2);
  for (const std::string& bad : {std::string(), std::string("garbage"), truncated,
                                 std::string("tut40-rendezvous v2 offer"), rk::encode(r) + " extra"}) {
    CAPTURE(bad);
    CHECK_FALSE(rk::decode(bad).has_value());
  }
}

TEST_CASE("40 ranks: 2 and 3 ranks meet through a file and through TCP, every rank with rank 0's id") {
  for (int world : {2, 3})
    for (const std::string& address : both_transports("meet")) {
      CAPTURE(address);
      std::vector<RankSpec> specs;
      for (int r = world - 1; r >= 0; --r) specs.push_back({r, world});  // rank 0 last: the others wait for it
      for (const Outcome& o : meet(address, specs, 10.0)) {
        CHECK_MESSAGE(o.ok, o.error);
        CHECK(o.id == test_id(42));
      }
      rk::RankEnv root;
      root.world_size = world;
      root.rendezvous = rk::parse_rendezvous(address);
      rk::remove_rendezvous_files(root);
      if (root.rendezvous.kind == rk::RendezvousAddress::Kind::kFile) {
        const std::filesystem::path dir = std::filesystem::path(root.rendezvous.path).parent_path();
        CHECK(std::filesystem::is_empty(dir));  // the offer, the acks and the verdict are gone
      }
    }
}

TEST_CASE("40 ranks: a rank whose GPU is missing ends every rank with one line, fast") {
  for (const std::string& address : both_transports("gpu")) {
    CAPTURE(address);
    for (int missing : {0, 1}) {
      std::vector<RankSpec> specs = {{0, 2}, {1, 2}};
      specs[missing].problem = "GPU 5 missing (2 visible)";
      for (const Outcome& o : meet(address, specs, 10.0)) {
        CHECK_FALSE(o.ok);
        CHECK(one_line(o.error));
        CHECK(o.error.find("GPU 5 missing") != std::string::npos);
        CHECK(o.seconds < 5.0);  // decided by the messages, not by the deadline
      }
    }
  }
}

TEST_CASE("40 ranks: a mismatched world size or options end every rank with one line") {
  for (const std::string& address : both_transports("world")) {
    CAPTURE(address);
    for (const Outcome& o : meet(address, {{0, 2}, {1, 3}}, 10.0)) {
      CHECK_FALSE(o.ok);
      CHECK(one_line(o.error));
      CHECK(o.error.find("world size 3 but rank 0's is 2") != std::string::npos);
    }
    RankSpec other{1, 2};
    other.agreement = "n=2049";
    for (const Outcome& o : meet(address, {{0, 2}, other}, 10.0)) {
      CHECK_FALSE(o.ok);
      CHECK(o.error.find("options differ") != std::string::npos);
    }
  }
  // rank 0 expects 3 ranks, 2 come: both end at the deadline
  for (const std::string& address : both_transports("short")) {
    CAPTURE(address);
    for (const Outcome& o : meet(address, {{0, 3}, {1, 3}}, 1.0)) {
      CHECK_FALSE(o.ok);
      CHECK(one_line(o.error));
      CHECK(o.seconds < 4.0);
    }
  }
  // A rank outside rank 0's world never runs: it is refused (TCP, when it comes before rank 0 has decided: then
  // every rank ends), or finds rank 0 gone, or a verdict for a world without it.
  for (const std::string& address : both_transports("extra")) {
    CAPTURE(address);
    const auto out = meet(address, {{0, 2}, {1, 2}, {2, 3}}, 1.0);
    CHECK_FALSE(out[2].ok);
    CHECK(one_line(out[2].error));
  }
}

TEST_CASE("40 ranks: a rendezvous that never completes ends within its timeout") {
  for (int r : {0, 1})
    for (const std::string& address : both_transports("alone")) {  // fresh: rank 0's verdict would stay there
      CAPTURE(address);
      const auto out = meet(address, {{r, 2}}, 0.5);
      CHECK_FALSE(out[0].ok);
      CHECK(out[0].error.find("timed out") != std::string::npos);
      CHECK(one_line(out[0].error));
      CHECK(out[0].seconds >= 0.45);
      CHECK(out[0].seconds < 3.0);  // the deadline and a poll interval, on a loaded machine
    }
}

TEST_CASE("40 ranks: a corrupt offer file is named at the deadline; an offer from an old run is replaced") {
  const std::string path = fresh_path("corrupt");
  std::ofstream(path) << "tut40-rendezvous v1 offer nonce=zz\n";
  const auto out = meet("file:" + path, {{1, 2}}, 0.5);
  CHECK_FALSE(out[0].ok);
  CHECK(out[0].error.find("corrupt") != std::string::npos);
  // rank 0 replaces what is there: the ranks meet
  for (const Outcome& o : meet("file:" + path, {{1, 2}, {0, 2}}, 10.0)) CHECK_MESSAGE(o.ok, o.error);
}

TEST_CASE("40 ranks: the watchdog fires after a silence, not while there is progress") {
  std::atomic<int> fired{0};
  std::string message;
  {
    rk::Watchdog dog(1.0, [&](const std::string& m) {
      message = m;
      ++fired;
    });
    for (int i = 0; i < 10; ++i) {
      dog.progress("step " + std::to_string(i));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    CHECK(fired == 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  }
  CHECK(fired >= 1);
  CHECK(message.find("step 9") != std::string::npos);
}

TEST_CASE("40 ranks: each rank's shard is the one-process form's shard of the same index") {
  // The shard plan is the same code for both forms: rank p holds Split{n, P, w}.begin(p) .. begin(p + 1).
  for (int P : {1, 2, 3, 8})
    for (int w : {100, 142})
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1} << 30, std::size_t{1} << 32,
                            (std::size_t{3} << 33) + 5}) {
        CAPTURE(P);
        CAPTURE(n);
        const scan_multi_gpu::Split split{n, P, w};
        std::size_t covered = 0;
        for (int p = 0; p < P; ++p) {
          CHECK(split.begin(p) == covered);
          covered += split.count(p);
        }
        CHECK(covered == n);
        CHECK(split.begin(P) == n);
      }
  CHECK(scan_multi_gpu::Split{std::size_t{1} << 30, 2}.count(1) == std::size_t{1} << 29);
  CHECK(scan_multi_gpu::Split{std::size_t{1} << 32, 2}.largest() == std::size_t{1} << 31);
}
