// The op log: what a program's host code asked the simulated device to do, in program order.
// The runtime writes it inside the program (oplog.cpp, when DRILLS_SIM_OPLOG is set);
// drills_sim_replay (sim/replay) re-runs it in a process no learner code runs in, with the
// kernels' PTX read from the library file. Little-endian, no padding:
//
//   header   8 bytes "DRLOG1\0\0"
//   record   u32 type, u32 zero, u64 payload_len, payload (payload_len bytes)
//
//   1 ALLOC     u64 addr, u64 size, u32 kind (MemoryKind: 0 device, 1 host_pinned, 2 managed,
//               3 module_global), u32 label_len, label
//   2 FREE      u64 addr
//   3 WRITE     u64 dst, bytes (to the end of the payload)
//   4 COPY      u64 dst, u64 src, u64 n                 (device to device; overlap as memmove)
//   5 MEMSET    u64 dst, u32 value, u32 zero, u64 n
//   6 LAUNCH    u32 name_len, name (mangled), u32 grid[3], u32 block[3], u64 dynamic_shared,
//               u32 nparams, per parameter u32 size + bytes, u32 module
//               (every launch the runtime hands to run_launch, refused ones included: the replay
//               makes the driver's checks again and records the same refusal)
//   7 MARK      u32 len, text                         (drills_sim_mark)
//   8 ATTR      u32 module, u32 attribute (cudaFuncAttribute), i32 value, u32 name_len, name
//               (cudaFuncAttributeMaxDynamicSharedMemorySize only: the others change no launch)
//   9 TRUNCATED (empty) the log reached its size limit; nothing follows
//  10 MODULE    u32 module, u32 zero, u64 ptx_hash (FNV-1a 64 of the PTX text), u64 ptx_bytes:
//               the runtime loaded its module number `module` (registration order); the ALLOC
//               records of its __device__/__constant__ variables (kind 3) follow at once
//  11 RESET     (empty) cudaDeviceReset: clears the sticky error and kernel attributes; its
//               FREE records follow
//
// Host memory the device can address (pinned, registered, managed) changes with plain host
// stores the runtime never sees: before every LAUNCH, WRITE records carry the bytes of such blocks
// that differ from what the replay holds for them (exact byte runs), and a copy out of such memory
// is logged as a WRITE of the bytes copied.
//
// DRILLS_SIM_RECORD_ONLY=1 (with DRILLS_SIM_OPLOG): launches are checked and logged as usual but
// not run, and have no launch record in DRILLS_SIM_REPORT (refusals do, as always). Its replay
// gives a normal run's records unless host code acts on results it reads back (none are computed),
// or stores into pinned memory a kernel wrote a byte equal to the one it had before the kernel
// (the store cannot be told from no store; a normal run's log is exact).
#pragma once

#include <cstdint>

namespace simrt::oplog {

constexpr char kMagic[8] = {'D', 'R', 'L', 'O', 'G', '1', '\0', '\0'};

enum Type : uint32_t {
  kAlloc = 1,
  kFree = 2,
  kWrite = 3,
  kCopy = 4,
  kMemset = 5,
  kLaunch = 6,
  kMark = 7,
  kAttr = 8,
  kTruncated = 9,
  kModule = 10,
  kReset = 11,
};

constexpr uint64_t kRecordHeader = 16;
constexpr uint64_t kDefaultLimit = 1ull << 30;   // bytes; DRILLS_SIM_OPLOG_LIMIT lowers it (tests)
constexpr uint32_t kMaxText = 1u << 16;           // labels, names, marks

inline uint64_t fnv1a64(const char* p, uint64_t n) {
  uint64_t h = 1469598103934665603ull;
  for (uint64_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(p[i]);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace simrt::oplog
