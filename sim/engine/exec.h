// Execution state shared by the executor (exec.cpp) and the instruction handlers (ops.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "program.h"

namespace sim::eng {

// Visit the set lanes of a mask; the all-active case is a plain loop the compiler can vectorise.
template <class F>
inline void each_lane(uint32_t m, F&& f) {
  if (m == 0xffffffffu) {
    for (int l = 0; l < 32; ++l) f(l);
  } else {
    for (; m; m &= m - 1) f(__builtin_ctz(m));
  }
}

struct StackEntry {
  int32_t pc;
  int32_t rpc;        // reconvergence pc; -1: none (lanes leave only by exiting)
  uint32_t mask;
  int32_t frame;      // >= 0: this entry is the base of call frame #frame (popped by ret)
};

struct Frame {
  uint32_t reg_base;
  uint32_t local_base;
  int32_t call_site;
  int32_t func;
};

// Sleeping: the warp executed nanosleep, which a spin-wait on another block does; its block then
// gives its host thread to other blocks and runs again later (module.cpp, Launch::worker).
enum class WarpState : uint8_t { Running, AtBarrier, Sleeping, Done };

// A cp.async in flight: its bytes (read from global memory when it was issued) land in shared
// memory when its thread waits for its group.
struct AsyncCopy {
  uint32_t group;               // the lane's commit count when it was issued
  uint32_t dst;                 // shared-memory offset
  int32_t pc;
  uint8_t lane, bytes;
  uint8_t data[16];
};

struct Warp {
  uint64_t* base[3];            // kSlotReg (current frame), kSlotConst, kSlotSpecial
  std::vector<uint64_t> regfile;
  std::vector<uint64_t> special;
  std::vector<StackEntry> stack;
  std::vector<Frame> frames;
  uint32_t id = 0;
  uint32_t live = 0;            // lanes that have not exited
  uint32_t launched = 0;        // lanes that exist (partial last warp)
  WarpState state = WarpState::Running;
  int32_t bar_pc = -1;
  uint32_t bar_id = 0;
  uint64_t insts = 0;
  std::vector<AsyncCopy> copies;  // cp.async not yet landed, in issue order
  uint32_t committed[32] = {};    // cp.async.commit_group count per lane
  // Critical-path estimate (timing.h): when each register's value is ready, the earliest cycle
  // the warp may issue (the last barrier), when it last issued, when its last result lands.
  std::vector<uint32_t> ready;
  uint32_t t_floor = 0, t_arrive = 0, t_done = 0, issued = 0;
  uint32_t t_order = 0, t_fence = 0;  // last store or branch; last forward branch (no load before it)
  std::vector<uint32_t> loads_done;  // completion of the warp's last Latencies::loads global loads (a ring)
  uint32_t loads_next = 0;

  uint64_t* reg(uint16_t slot) { return base[slot >> 14] + uint32_t(slot & kSlotIndex) * 32; }
  const uint64_t* src(uint16_t slot) const { return base[slot >> 14] + uint32_t(slot & kSlotIndex) * 32; }
};

// Counters of one instruction, summed over the warps that executed it.
struct InstrCounters {
  uint64_t executed = 0;       // warp-level instructions with >= 1 active lane
  uint64_t idle = 0;           // ... issued with every lane off: predicated off, or in a body
                               // ptxas predicates that the warp's lanes all skip (issue.cpp)
  uint64_t g_inst = 0;         // ... of them that went to global memory
  uint64_t g_requests = 0;
  uint64_t g_sectors = 0;
  uint64_t g_bytes = 0;        // bytes the active lanes move (at most the sectors' bytes)
  uint64_t s_inst = 0;         // ... that went to shared memory
  uint64_t s_wavefronts = 0;
  uint64_t s_ideal = 0;
};

struct SampleSlot {
  uint64_t block = ~0ull;      // linear index of the block the sample came from
  WarpAccessSample sample;
};

// Last writer / reader of one 4-byte shared word, for the race check.
struct RaceWord {
  uint32_t w_epoch = 0, r_epoch = 0;
  int32_t w_pc = -1, r_pc = -1;
  uint8_t w_warp = 0, w_lane = 0, r_warp = 0, r_lane = 0;
};
constexpr uint8_t kManyWarps = 0xff;

// The cp.async that will write a shared word, while it has not landed: 0 when none, else
// (pc + 1) | warp << 32 | lane << 40.
inline uint64_t async_mark(int32_t pc, uint32_t warp, uint32_t lane) {
  return uint64_t(uint32_t(pc + 1)) | uint64_t(warp) << 32 | uint64_t(lane) << 40;
}
struct TranslateCache {
  uint64_t base = 0, size = 0;
  uint8_t* host = nullptr;
};

// AsyncStore: the shared side of cp.async; it marks the words pending instead of written.
enum class Access : uint8_t { Load, Store, Atomic, AsyncStore };

// One block in flight on one host thread.
struct Exec {
  const Program* P = nullptr;
  const Function* K = nullptr;
  DeviceMemory* mem = nullptr;
  const uint8_t* kparams = nullptr;
  uint8_t* shared = nullptr;
  uint64_t shared_size = 0;
  RaceWord* race = nullptr;
  uint64_t* async = nullptr;     // per shared word: the cp.async not yet landed (async_mark)
  uint32_t async_words = 0;      // words marked there now: 0 spares every access the lookup
  uint32_t epoch = 0;
  uint8_t* local = nullptr;      // per warp: 32 lanes x local_per_lane
  uint32_t local_per_lane = 0;
  Dim3 grid, block, ctaid;
  uint64_t block_linear = 0;
  InstrCounters* ctr = nullptr;
  SampleSlot* samples = nullptr; // per line
  bool failed = false;
  SimError err;
  std::string printf_out;
  static constexpr size_t kPrintfLimit = size_t(1) << 20;  // bytes of printf kept per launch
  TranslateCache cache[4];
  unsigned cache_next = 0;
  const Latencies* latency = nullptr;
  uint64_t shared_busy = 0;      // wavefronts since the last barrier: the SM's shared pipe serves one a cycle
  uint32_t interval_start = 0;   // when the block's last barrier released (timing.h); travels with a parked block
  std::vector<uint64_t>* partial = nullptr;  // sectors this block's global stores write in part (exec.cpp)
  std::vector<uint64_t>* pages = nullptr;    // 2 KB pages this block's global stores write
  uint8_t* hptr[32];             // scratch: host pointers of the current access, per lane
  uint64_t addr[32];             // scratch: addresses of the current access, per lane
  uint64_t async_line[32];       // scratch: cp.async's source line per lane (~0: the lane reads nothing)
  Space resolved = Space::Global;

  // Resolve the addresses of one warp-level access (addresses already in addr[]), run the checks,
  // count it, and fill hptr[]. Returns false (and sets err) when the access is illegal.
  // `space` overrides the instruction's state space (cp.async has two); `lane_bytes`, when given,
  // is what each lane really reads (cp.async's src-size), for the bounds check and the sectors.
  bool access(Warp& w, const Instr& in, uint32_t m, uint32_t bytes, Access kind, Space space = Space(0xff),
              const uint8_t* lane_bytes = nullptr);
  // cp.async bookkeeping: land the lane's copies of groups older than its newest `keep` committed
  // ones (all of them when keep < 0), or every copy of the warp (block end).
  void land_copies(Warp& w, uint32_t lanes, int keep);
  void drop_copies(Warp& w);
  void fail(const std::string& kind, const std::string& msg, Warp& w, int lane, const Instr& in);
  void vprintf(Warp& w, const Instr& in, uint32_t m, const CallSite& cs);
  uint8_t* global_ptr(uint64_t a, uint64_t size);
};

// Handlers that only the executor dispatches (declared here so ops.cpp can name them in the table).
void decode_error(const std::string& what);

}  // namespace sim::eng
