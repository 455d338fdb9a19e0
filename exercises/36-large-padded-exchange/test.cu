// Test of exercise 36: the padded exchange index. On the host: every (t, r) of a signal lands on its own slot
// inside the padded buffer, the slots give the Stockham order, and in the first exchange each half-warp's 16
// writes of one r hit 16 different 8-byte bank pairs. On the GPU: one exchange of seeded random values at
// N = 8192 and 16384 (E = 16, 32; several ns; 1 and 3 signals), output poisoned first, compared exactly with
// the CPU's permutation. The same source tests the exercise and the solution.
#include <large_exchange.cuh>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "device.cuh"
#include "device_buffer.cuh"
#include "exercise_testing.cuh"
#include "gpu_test.cuh"

namespace {

// Unpadded Stockham position of output r of butterfly t after passes of length ns (the specification).
int stockham(int t, int r, int ns, int e) { return (t / ns) * ns * e + t % ns + r * ns; }

template <int N, int E>
void check_host(int ns) {
  constexpr int T = N / E;
  std::vector<int> owner(N + N / E, -1);
  for (int t = 0; t < T; ++t)
    for (int r = 0; r < E; ++r) {
      const int slot = large_exchange::exchange_write_slot<E>(t, r, ns);
      INFO("N = " << N << ", E = " << E << ", ns = " << ns << ", t = " << t << ", r = " << r);
      REQUIRE(slot >= 0);
      REQUIRE(slot < N + N / E);
      REQUIRE_MESSAGE(owner[slot] == -1, "slot " << slot << " written twice");
      owner[slot] = t * E + r;
      REQUIRE(slot == large_exchange::padded<E>(stockham(t, r, ns, E)));
    }
  if (ns != 1) return;
  // The first exchange: threads 16h .. 16h+15 writing output r must use 16 different bank pairs (slot mod 16).
  for (int h = 0; h < T / 16; ++h)
    for (int r = 0; r < E; ++r) {
      std::vector<int> pairs;
      for (int t = 16 * h; t < 16 * h + 16; ++t) pairs.push_back(large_exchange::exchange_write_slot<E>(t, r, 1) % 16);
      std::sort(pairs.begin(), pairs.end());
      REQUIRE_MESSAGE(std::unique(pairs.begin(), pairs.end()) == pairs.end(),
                      "half-warp " << h << ", output " << r << ": two threads on one bank pair");
    }
}

template <int N, int E>
void check_gpu(int ns, int signals) {
  const std::size_t count = static_cast<std::size_t>(N) * signals;
  std::mt19937 rng(static_cast<unsigned>(tut::testing::test_seed() + N + E * 7 + ns * 131 + signals));
  std::vector<int> x(count);
  for (int& value : x) value = static_cast<int>(rng());
  tut::DeviceBuffer<int> in(x), out(count);
  out.poison();
  large_exchange::setup<N, E>();
  large_exchange::exchange<N, E>(in.data(), out.data(), signals, ns, 0);
  TUT_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<int> got = out.download();
  std::vector<int> want(count);
  for (int s = 0; s < signals; ++s)
    for (int t = 0; t < N / E; ++t)
      for (int r = 0; r < E; ++r) want[s * N + stockham(t, r, ns, E)] = x[s * N + t * E + r];
  std::size_t bad = 0, first = count;
  for (std::size_t i = 0; i < count; ++i)
    if (got[i] != want[i]) {
      if (first == count) first = i;
      ++bad;
    }
  INFO("N = " << N << ", E = " << E << ", ns = " << ns << ", signals " << signals);
  CHECK_MESSAGE(bad == 0, bad << " values out of place; first at " << first << " (signal " << first / N << ", index "
                              << first % N << ")");
}

}  // namespace

TEST_CASE("36: the padded write slots are distinct, in Stockham order, and conflict-free in the first exchange") {
  for (int ns : {1, 16, 256}) {
    check_host<8192, 32>(ns);
    check_host<16384, 16>(ns);
  }
  check_host<16384, 32>(1);
  check_host<16384, 32>(32);
  check_host<8192, 16>(4096 / 16);
}

TEST_CASE("36: one exchange at N = 8192 and 16384 puts every value where the Stockham pass says") {
  tut::require_supported_gpu();
  for (int signals : {1, 3})
    for (int ns : {1, 32, 256}) {
      check_gpu<8192, 32>(ns, signals);
      check_gpu<16384, 32>(ns, signals);
      check_gpu<16384, 16>(ns, signals);
    }
}
