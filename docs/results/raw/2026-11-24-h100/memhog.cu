// Simulates a small machine on a large one: holds device memory until only --device-free GiB are free and
// touches host memory until MemAvailable is --host-avail GiB, writes --ready, then waits for SIGTERM.
#include <cuda_runtime.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>
static double gib(std::size_t b) { return double(b) / (1ull << 30); }
static std::size_t mem_available() {
  std::ifstream f("/proc/meminfo"); std::string k; std::size_t v; std::string unit;
  while (f >> k >> v >> unit) if (k == "MemAvailable:") return v * 1024;
  return 0;
}
int main(int argc, char** argv) {
  double dev_free = 7, host_avail = 14; const char* ready = "/tmp/memhog.ready";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--device-free")) dev_free = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--host-avail")) host_avail = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--ready")) ready = argv[i + 1];
  }
  const std::size_t chunk = 256ull << 20;
  std::size_t fr, tot; std::size_t held_dev = 0;
  if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) { fprintf(stderr, "memhog: no GPU\n"); return 1; }
  while (fr > std::size_t(dev_free * (1ull << 30)) + chunk) {
    void* p; if (cudaMalloc(&p, chunk) != cudaSuccess) break;
    held_dev += chunk; cudaMemGetInfo(&fr, &tot);
  }
  std::vector<char*> host; std::size_t held_host = 0;
  while (mem_available() > std::size_t(host_avail * (1ull << 30)) + chunk) {
    char* p = static_cast<char*>(malloc(chunk)); if (!p) break;
    memset(p, 0x5a, chunk); host.push_back(p); held_host += chunk;
  }
  printf("memhog: holds %.2f GiB of device memory (free now %.2f of %.2f GiB) and %.2f GiB of host memory "
         "(MemAvailable now %.2f GiB)\n", gib(held_dev), gib(fr), gib(tot), gib(held_host), gib(mem_available()));
  fflush(stdout);
  { std::ofstream(ready) << "ready\n"; }
  for (;;) pause();
}
