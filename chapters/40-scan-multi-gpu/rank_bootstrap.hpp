// Chapter 40's rank form, the part that is not CUDA: who this process is (rank, world size, local GPU) from
// the launcher's environment, and the rendezvous that carries rank 0's 128-byte ncclUniqueId to every other
// rank, through a file or a TCP connection, with a deadline. Plain C++ and POSIX, host-tested (test_ranks.cpp).
//
// The rendezvous is three messages, each one text line, so a rank that cannot join says why and every rank
// ends with one line instead of waiting in ncclCommInitRank for a rank that never comes:
//   offer   (rank 0 -> all)  the id, rank 0's world size and its options (the "agreement"), or an abort
//   ack     (rank r -> 0)    "ok", or why rank r cannot join (its GPU is missing, its world size or options
//                            differ from rank 0's)
//   verdict (rank 0 -> all)  "go" once every rank 1 .. P-1 said ok, else an abort with the first reason
// Rank 0 alone decides; every other rank only reports, so all ranks agree on the outcome. A record carries a
// random nonce (acks and verdicts of an older run at the same path are ignored) and its writing time (records
// older than 30 s before this process started are ignored).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace scan_multi_gpu::ranks {

// The rendezvous failed or a rank cannot join: one line; the program exits 1.
struct BootstrapError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A launcher variable that is malformed or contradicts another: one line; the program exits 2.
struct RankUsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads one environment variable (nullptr: unset). getenv in the program, a map in the tests.
using EnvLookup = std::function<const char*(const char*)>;
EnvLookup process_environment();

// Where the id travels: a file path (one host, or a file system every host shares) or a TCP address that
// rank 0 listens on (spans hosts).
struct RendezvousAddress {
  enum class Kind { kFile, kTcp } kind = Kind::kFile;
  std::string path;  // kFile
  std::string host;  // kTcp
  int port = 0;      // kTcp
  std::string text() const;  // "file:/tmp/x" or "tcp:host:port"
};

// "file:PATH", "tcp:HOST:PORT", a path starting with '/' or '.', or "HOST:PORT". Throws RankUsageError.
RendezvousAddress parse_rendezvous(const std::string& text);

// This process's place among the ranks.
struct RankEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;  // the GPU this rank uses (its index among the visible GPUs of its host)
  RendezvousAddress rendezvous;
  std::string source;  // which variables gave it: "TUT_RANK", "Open MPI", "Slurm", "torchrun"
};

// The rank form's variables, first match wins:
//   TUT_RANK, TUT_WORLD_SIZE [, TUT_LOCAL_RANK (default TUT_RANK)], TUT_RENDEZVOUS
//   OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK (mpirun)     rendezvous: TUT_RENDEZVOUS, else MASTER_ADDR and
//   SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID (srun)      MASTER_PORT (tcp), else a file in $TMPDIR named
//                                                         after the job (one host only)
//   RANK, WORLD_SIZE [, LOCAL_RANK] (torchrun)            rendezvous: TUT_RENDEZVOUS, else tcp MASTER_ADDR,
//                                                         MASTER_PORT + 1 (torchrun's own store holds MASTER_PORT)
// TUT_LOCAL_RANK, where set, is the GPU with any launcher (0 where the launcher binds one GPU per task).
// nullopt: none is set (the one-process form). Throws RankUsageError for a malformed or partial set.
std::optional<RankEnv> rank_from_environment(const EnvLookup& env);

// Integers of the environment: digits only, within [lo, hi]. Throws RankUsageError naming the variable.
int parse_env_int(const char* name, const char* value, int lo, int hi);

using UniqueId = std::array<unsigned char, 128>;  // sizeof(ncclUniqueId)

struct RendezvousRequest {
  RankEnv me;
  std::string agreement;      // what every rank must have equal to rank 0's (the options): compared as text
  std::string local_problem;  // empty: this rank can join; else why not (one line; the rank is named for it)
  double timeout_s = 60.0;    // every rank ends within this (plus a poll interval) whatever the others do
  std::function<UniqueId()> make_id;  // rank 0 only, called once its own problem is empty
};

// Rank 0: makes the id, offers it, waits for every ack, sends the verdict. Other ranks: wait for the offer,
// ack, wait for the verdict. Returns the id on "go"; throws BootstrapError (one line, naming this rank and the
// cause) on an abort, a timeout, a corrupt record, or this rank's own problem.
UniqueId rendezvous(const RendezvousRequest& request);

// Rank 0, once every rank has passed the rendezvous (inside ncclCommInitRank, which needs them all): removes
// a file rendezvous's records (nothing for TCP).
void remove_rendezvous_files(const RankEnv& me);

// Messages, exposed for the tests. A record is one line:
//   tut40-rendezvous v1 <kind> nonce=<16 hex> time=<unix ms> rank=<r> world=<P> status=<ok|abort> id=<256 hex>
//   agreement=<hex of the text> reason=<hex of the text>
struct Record {
  std::string kind;  // offer, ack, verdict
  std::string nonce;
  std::int64_t time_ms = 0;
  int rank = 0;
  int world = 0;
  bool ok = true;
  UniqueId id{};
  std::string agreement;
  std::string reason;
};
std::string encode(const Record& r);
// nullopt: not a record of this protocol (a corrupt or foreign file).
std::optional<Record> decode(const std::string& line);

// Runs `on_expire(message)` when `seconds` pass without a call to progress(): a rank that waits forever in
// a collective for a peer that died ends with one line (the program's handler prints it and _exits 1).
class Watchdog {
 public:
  Watchdog(double seconds, std::function<void(const std::string&)> on_expire);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  // Restarts the clock; `step` names what this rank waits in, for the message.
  void progress(const std::string& step);

 private:
  struct State;
  State* state_;
};

// The launcher convenience (--ranks N): starts `ranks` copies of `program` with `argv` (argv[0] first), each
// with TUT_RANK,
// TUT_WORLD_SIZE, TUT_LOCAL_RANK and a fresh file rendezvous in $TMPDIR set, waits for all of them, removes
// the rendezvous files, and returns the worst exit status (a rank killed by a signal: 1, and one line).
int launch_ranks(const std::string& program, const std::vector<std::string>& argv, int ranks);

}  // namespace scan_multi_gpu::ranks
