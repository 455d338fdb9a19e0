// main() for every GPU test executable: exit 77 (meson's SKIP) when no usable GPU is present,
// so a machine without one reports these tests as skipped, never as passed. Set TUT_REQUIRE_GPU=1
// (docs/getting-started.md) to turn that skip into a failure on a machine that must have a GPU.
//
// Meson runs GPU test executables in parallel: each first takes one of a few GPU slots (test_locks.hpp), and
// a case that needs much memory takes the large-case lock too (claim_memory in gpu_test.cuh). Where several
// GPUs are visible, tools/check has the processes spread over them (TUT_SPREAD_GPUS): the slot picks the GPU.
//
// Every DeviceBuffer has guards (device_guards.cuh). The scaffolding checks them after each run; a test that
// compares outputs itself does not, so a listener fails the program when a buffer freed during a test case had
// a damaged guard, naming the case and the buffer.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cuda_runtime.h>
#include "doctest.hpp"

#include <cstdio>
#include <cstdlib>

#include <string>
#include <vector>

#include "device_guards.cuh"
#include "test_locks.hpp"

namespace {

bool g_guard_damage = false;

// Prints what release() found in buffers freed since the last call, as a doctest-style error (the exercise
// tool shows the first "ERROR" line and the "MISMATCH" one), and remembers it for the exit status.
void report_damage(const std::string& where) {
  for (const std::string& d : tut::guards::take_damage_found_at_release()) {
    std::printf("ERROR: a DeviceBuffer freed %s had a damaged guard: MISMATCH: %s\n", where.c_str(), d.c_str());
    g_guard_damage = true;
  }
}

// After each test case, what its freed buffers' guards showed.
struct GuardListener : doctest::IReporter {
  explicit GuardListener(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData& tc) override { name_ = tc.m_name; }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override { report_damage("in test case '" + name_ + "'"); }
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}

 private:
  std::string name_;
};

DOCTEST_REGISTER_LISTENER("guards", 1, GuardListener);

}  // namespace

int main(int argc, char** argv) {
  // Where tools/check spreads the tests over several GPUs, the slot taken decides which GPU this process sees: it
  // is taken before the first CUDA call (which reads CUDA_VISIBLE_DEVICES). Otherwise after the GPU check, as a
  // machine without a GPU takes no lock.
  const bool spread = !tut::testing::spread_gpus().empty();
  tut::testing::FileLock slot;
  if (spread) slot = tut::testing::acquire_gpu_slot_on_some_gpu();
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  int major = 0, minor = 0;
  if (e == cudaSuccess && count > 0) {
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
  }
  if (e != cudaSuccess || count == 0 || major * 10 + minor < 75) {
    const char* why = e != cudaSuccess ? cudaGetErrorName(e) : count == 0 ? "no device" : "compute capability < 7.5";
    const char* req = std::getenv("TUT_REQUIRE_GPU");
    if (req && *req && req[0] != '0') {
      std::fprintf(stderr, "FAIL: TUT_REQUIRE_GPU is set but no usable CUDA GPU was found (%s)\n", why);
      return 1;
    }
    std::printf("SKIP: no usable CUDA GPU (%s); GPU tests need one of compute capability 7.5+\n", why);
    return 77;
  }
  // Held until the process exits: at most gpu_test_slots() GPU test processes share a GPU at once.
  if (!spread) slot = tut::testing::acquire_gpu_slot();
  doctest::Context context;
  context.setOption("duration", true);  // each case's time in the log: what a slow suite spends it on
  context.applyCommandLine(argc, argv);
  const int status = context.run();
  report_damage("outside the test cases");
  return status != 0 ? status : g_guard_damage ? 1 : 0;
}
