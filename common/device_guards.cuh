// Guard regions around every DeviceBuffer, and inputs that must not change: the checks that catch a kernel
// writing outside its output (one element past the end of a batch's last partial block, one before the start)
// or into its input, which a comparison of the output alone cannot see.
//
// Every DeviceBuffer allocation is laid out as
//     [front guard: kGuardFrontBytes][payload: count * sizeof(T)][back guard: guard_back_bytes(payload)]
// with data() pointing at the payload (so it stays 256-byte aligned, as cudaMalloc's pointers are). Both
// guards are filled with kGuardByte when the buffer is made, and every live buffer is in one process-wide
// registry. check_device_buffers() reads back every guard (about 68 KiB per buffer, on the buffer's own device) and recomputes the checksum of every watched input (one pass on the GPU, 8 bytes back), and says
// which buffer was damaged and how. The runner's checked run and the test scaffolding call it after every
// checked run (with_buffer_checks); timed runs never pay for it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "verify.hpp"

namespace tut {

// Guard bytes before the payload: a multiple of 256 keeps data() aligned as cudaMalloc's own pointers are;
// 4 KiB holds a row of 1024 floats written one row too early.
constexpr std::size_t kGuardFrontBytes = 4096;
// The back guard holds at least this many bytes and ends on a 256-byte boundary (so vector accesses of the
// payload, up to 256-byte aligned ones, stay inside the allocation). 64 KiB holds a whole extra row of an SGEMM
// C up to 16384 columns, or one extra FFT signal of up to 8192 points, so that the planted-bug tests, which
// really write past the end, write only into the guard. Read back after each check: tens of microseconds.
constexpr std::size_t kGuardMinBackBytes = std::size_t{64} << 10;
// The guard pattern: not the poison byte (an output the kernel left unwritten must not look like a guard), not
// zero, and of moderate size in every element type (12.1 as a float, 2.3e6 as a double, 1.1e9 as an int32), so
// that a value written there by mistake, say a sum with a guard read, changes its bits. No pattern survives
// every operator (max(prefix, guard) may return the guard): a planted overrun test gives its input real
// elements past n (chapter 18's does), so that what the overrun writes is a real result.
constexpr unsigned char kGuardByte = 0x41;
static_assert(kGuardByte != kPoisonByte, "guards and poison must differ");
static_assert(kGuardFrontBytes % 256 == 0, "data() must stay 256-byte aligned");

constexpr std::size_t guard_back_bytes(std::size_t payload_bytes) {
  return (256 - payload_bytes % 256) % 256 + kGuardMinBackBytes;
}

// A name for an element type in messages ("int32", "float2"); nullptr: described by its size.
template <class T>
constexpr const char* element_type_name() {
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, unsigned long long>) return "uint64";
  else if constexpr (std::is_same_v<T, unsigned char> || std::is_same_v<T, std::byte>) return "byte";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, float2>) return "float2";
  else if constexpr (std::is_same_v<T, float4>) return "float4";
  else return nullptr;
}

namespace guards {

// What DeviceBuffer calls; nothing else needs these.
//
// Allocates payload_bytes (0 allowed: the guards alone, so a write to a 0-element output is caught too) with
// guards on the current device, fills the guards, registers the buffer and returns the payload's address.
// Throws DeviceOutOfMemory like cudaMalloc's check.
void* allocate(std::size_t count, std::size_t element_bytes, const char* element_type);
// Unregisters and frees (on the device it was allocated on, whichever is current), reading its guards first
// (take_damage_found_at_release). Never throws.
void release(void* data) noexcept;
// What release() found in the guards of buffers freed since the last call (a kernel wrote there after the
// buffer's last check, or it was never checked), and forgets it. gpu_test_main.cu fails the test case whose
// buffers these were.
std::vector<std::string> take_damage_found_at_release();
// A name for the buffer in messages ("input", "C", "workspace").
void set_label(const void* data, const std::string& label);
// Records the checksum of the payload now; every later check fails if it changed. upload() calls
// refresh_if_watched(), so a new input uploaded by the host is the new reference.
void watch(const void* data);
void refresh_if_watched(const void* data);

}  // namespace guards

// Checks every live DeviceBuffer: both guards still hold kGuardByte, every watched buffer's checksum is
// unchanged. Returns one line per problem, e.g.
//   "wrote 4 bytes past the end of the 1025-element int32 buffer 'output' (changed bytes 0 .. 3 past its end)"
//   "the input 'input' (a 1025-element int32 buffer) changed during the run (its checksum differs)"
// and re-arms what it found (refills the guard, records the new checksum), so each problem is reported once
// and the next check judges the next run only. Empty: all intact. Synchronises the device.
std::vector<std::string> check_device_buffers();

// `c`, failed (with the problems of check_device_buffers() added to its detail) if any buffer was damaged: the
// one call the runner and the test scaffolding make after each checked run.
CheckResult with_buffer_checks(CheckResult c);

// The number of live DeviceBuffers (for tests of the registry).
std::size_t live_device_buffers();

}  // namespace tut
