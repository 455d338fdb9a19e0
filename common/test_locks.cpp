#include "test_locks.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace tut::testing {

FileLock FileLock::acquire(const std::string& path, bool blocking) {
  FileLock lock;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return lock;
  int rc;
  do rc = ::flock(fd, LOCK_EX | (blocking ? 0 : LOCK_NB));
  while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    ::close(fd);
    return lock;
  }
  lock.fd_ = fd;
  return lock;
}

FileLock::FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the only descriptor releases the flock
}

std::string lock_directory() {
  const char* off = std::getenv("TUT_TEST_LOCKS");
  if (off && std::string(off) == "0") return "";
  std::string dir;
  if (const char* d = std::getenv("TUT_TEST_LOCK_DIR"); d && *d) {
    dir = d;
  } else {
    const char* tmp = std::getenv("TMPDIR");
    dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/cuda-tutorial-test-locks-" + std::to_string(::getuid());
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    static bool warned = false;
    if (!warned)
      std::cerr << "note: cannot make the test lock directory " << dir << " (" << std::strerror(errno)
                << "); GPU tests run uncoordinated\n";
    warned = true;
    return "";
  }
  return dir;
}

int gpu_test_slots() {
  const char* s = std::getenv("TUT_GPU_TEST_SLOTS");
  const int slots = s ? std::atoi(s) : 4;
  return slots >= 1 ? slots : 1;
}

FileLock acquire_gpu_slot() {
  const std::string dir = lock_directory();
  if (dir.empty()) return {};
  const int slots = gpu_test_slots();
  for (int i = 0; i < slots; ++i) {  // the first free slot, if any
    FileLock lock = FileLock::acquire(dir + "/gpu-slot-" + std::to_string(i), false);
    if (lock.held()) return lock;
  }
  // All taken: wait on one, chosen by process id so that the waiters spread over the slots.
  return FileLock::acquire(dir + "/gpu-slot-" + std::to_string(::getpid() % slots), true);
}

namespace {

std::string g_spread_gpu;  // the GPU acquire_gpu_slot_on_some_gpu() chose; empty where the tests do not spread

// A CUDA_VISIBLE_DEVICES value ("3", "GPU-8f2c...") as part of a file name.
std::string file_name_part(const std::string& gpu) {
  std::string s = gpu;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '_';
  return s;
}

}  // namespace

std::vector<std::string> spread_gpus() {
  const char* all = std::getenv("TUT_TEST_ALL_GPUS");
  const char* list = std::getenv("TUT_SPREAD_GPUS");
  if ((all && *all && all[0] != '0') || !list) return {};
  std::vector<std::string> gpus;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) gpus.push_back(item);
  }
  return gpus.size() >= 2 ? gpus : std::vector<std::string>{};
}

FileLock acquire_gpu_slot_on_some_gpu() {
  const std::vector<std::string> gpus = spread_gpus();
  if (gpus.empty()) return acquire_gpu_slot();
  const std::string dir = lock_directory();
  const auto n = static_cast<int>(gpus.size());
  const auto slot_path = [&](int g, int i) {
    return dir + "/gpu-" + file_name_part(gpus[g]) + "-slot-" + std::to_string(i);
  };
  FileLock lock;
  int chosen = ::getpid() % n;  // uncoordinated (no lock directory): spread by process id
  if (!dir.empty()) {
    const int slots = gpu_test_slots();
    for (int i = 0; i < slots && !lock.held(); ++i)  // slot i of every GPU before slot i + 1 of any
      for (int g = 0; g < n && !lock.held(); ++g) {
        lock = FileLock::acquire(slot_path(g, i), false);
        if (lock.held()) chosen = g;
      }
    if (!lock.held()) lock = FileLock::acquire(slot_path(chosen, ::getpid() / n % slots), true);  // all taken: wait
  }
  g_spread_gpu = gpus[chosen];
  ::setenv("CUDA_VISIBLE_DEVICES", g_spread_gpu.c_str(), 1);
  return lock;
}

FileLock acquire_large_case_lock() {
  const std::string dir = lock_directory();
  if (dir.empty()) return {};
  return FileLock::acquire(dir + "/large-case" + (g_spread_gpu.empty() ? "" : "-gpu-" + file_name_part(g_spread_gpu)),
                           true);
}

namespace {
// The GPU test processes that may run beside this one: the GPU's other slots; on the host, every other slot of
// every GPU the tests spread over.
int others_beside(bool host) {
  const int gpus = host && !g_spread_gpu.empty() ? static_cast<int>(spread_gpus().size()) : 1;
  return gpu_test_slots() * gpus - 1;
}
}  // namespace

std::size_t large_case_margin_bytes(bool host) {
  if (lock_directory().empty()) return 0;  // uncoordinated: nothing is known to run beside this case
  constexpr std::size_t kContextBytes = std::size_t{1} << 29;  // a CUDA context's own device memory, roughly
  const std::size_t per_slot = kLargeCaseBytes + (host ? kLargeCaseBytes : kContextBytes);
  return static_cast<std::size_t>(others_beside(host)) * per_slot;
}

bool is_large_case(std::size_t device_bytes, std::size_t host_bytes) {
  return device_bytes > kLargeCaseBytes || host_bytes > kLargeCaseBytes;
}

std::string memory_shortfall(const std::string& what, std::size_t device_bytes, std::size_t host_bytes,
                             std::size_t device_free, std::uint64_t host_free) {
  const bool large = is_large_case(device_bytes, host_bytes);
  const double gib = 1024.0 * 1024.0 * 1024.0;
  // A large case leaves room for the small cases that the other GPU test processes may start beside it.
  const double device_room =
      0.9 * static_cast<double>(device_free) - static_cast<double>(large ? large_case_margin_bytes(false) : 0);
  const double host_room =
      0.9 * static_cast<double>(host_free) - static_cast<double>(large ? large_case_margin_bytes(true) : 0);
  std::ostringstream why;
  why << std::fixed << std::setprecision(1);
  // "needs X GiB of device memory[ and Y GiB kept for the N other GPU tests beside it], Z GiB free on this GPU":
  // the margin is named only where it, not the case alone, is what does not fit.
  const auto line = [&](const char* kind, std::size_t need, double room, std::size_t margin, std::uint64_t free,
                        const char* free_where) {
    why << what << " skipped: needs " << need / gib << " GiB of " << kind << " memory";
    if (static_cast<double>(need) <= room + static_cast<double>(margin))
      why << " and " << margin / gib << " GiB kept for the " << others_beside(kind[0] == 'h')
          << " other GPU tests that may run beside it";
    why << ", " << free / gib << " GiB " << free_where;
  };
  if (static_cast<double>(device_bytes) > device_room)
    line("device", device_bytes, device_room, large ? large_case_margin_bytes(false) : 0, device_free,
         "free on this GPU");
  else if (host_free != UINT64_MAX && static_cast<double>(host_bytes) > host_room)
    line("host", host_bytes, host_room, large ? large_case_margin_bytes(true) : 0, host_free,
         "available on this machine");
  return why.str();
}

}  // namespace tut::testing
