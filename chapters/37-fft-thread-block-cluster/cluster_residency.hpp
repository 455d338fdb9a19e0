// What set-up finds for one cluster configuration at one length on one device, and the row of the residency
// table (main.cu's cluster_residencies(): the program's summary and the test read it). Plain C++, so that the
// test can read the table without including the kernel header (which would compile every kernel again).
#pragma once

#include <cstddef>
#include <string>

namespace fft_cluster {

struct Residency {
  bool ready = false;       // set up on this device
  bool fits = false;        // clusters and shared memory: false runs chapter 35's four-step
  int active_clusters = 0;  // cudaOccupancyMaxActiveClusters: clusters resident at once on the GPU
};

struct ClusterResidency {
  std::string name;  // the variant it runs as
  int log2n = 0;
  Residency residency;
  int blocks_per_cluster = 0, threads_per_block = 0;
  std::size_t shared_bytes_per_block = 0;
};

}  // namespace fft_cluster
