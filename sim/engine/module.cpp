// Module: load globals, and run a launch: blocks on host threads, warps to barriers, the SIMT
// stack, the watchdog, and the deterministic merge of counters, samples, printf and errors.
#include <ctime>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "exec.h"
#include "timing.h"

namespace sim::eng {
namespace {

using Clock = std::chrono::steady_clock;

// The watchdog counts the CPU time a worker thread spent on the launch, not wall time: on a busy
// machine (the judge runs the tests, pytest and the probe side by side; a learner's laptop runs other
// things) a correct kernel still gets its watchdog's worth of work done, while a loop that never ends
// burns CPU and is stopped after the same seconds as on an idle machine.
static double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
static thread_local double tl_launch_cpu0 = 0;  // thread_cpu_seconds() when this worker began the launch

enum class Stop { None, Watchdog };

// A block that gave its host thread away while one of its warps sleeps (nanosleep: a spin-wait on
// another block), with everything it needs to run on.
struct ParkedBlock {
  Exec x;
  int pair;
  uint64_t partner;
  std::vector<Warp> warps;
  std::vector<uint8_t> shared, local;
  std::vector<RaceWord> race;
  std::vector<uint64_t> async, partial, pages;
};

// At most this many parked blocks per host thread, whatever the GPU's residency (the resident share
// alone let an endless barrier loop over a large grid outlast the watchdog: tests/test_attacks.py).
constexpr uint64_t kMaxParked = 64;

struct Worker {
  std::vector<InstrCounters> ctr;
  std::vector<SampleSlot> samples;
  std::vector<RaceWord> race;
  std::vector<uint64_t> async;   // cp.async marks, one per shared word
  std::vector<uint8_t> shared, local;
  std::vector<Warp> warps;
  uint32_t epoch = 0;
  std::vector<std::pair<uint64_t, std::string>> printf_out;
  bool has_error = false;
  uint64_t error_block = ~0ull;
  SimError error;
  // For the time model: blocks run, their critical paths, and the partly written store sectors
  // of each pair of launch-order neighbours (first block, and how many of those the second shares).
  uint64_t blocks = 0, cycles_sum = 0, cycles_max = 0, partial_writes = 0, partial_first = 0, partial_next = 0;
  uint64_t pages_next = 0, pages_shared = 0, bytes_scattered = 0;  // the second block's store pages, local ones, bytes to the others
  std::vector<uint64_t> partial_prev, partial_cur, pages_prev, pages_cur;
  uint64_t prev_block = ~0ull;  // the block partial_prev and pages_prev belong to
  std::deque<ParkedBlock> parked;
  uint64_t resident = 1;  // blocks this worker may hold begun at once: its share of LaunchParams::resident_blocks
};

struct Launch {
  const Program& P;
  const Function& K;
  DeviceMemory& mem;
  const LaunchParams& lp;
  std::vector<uint8_t> kparams;
  uint64_t shared_size = 0;
  uint32_t nthreads = 0, nwarps = 0;
  std::vector<uint64_t> order;  // the blocks to run when sampling (LaunchParams::sample_blocks)
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> min_failed{~0ull};
  std::atomic<bool> stop{false};
  std::atomic<size_t> printf_total{0};  // printf bytes of the launch, all blocks (see Exec::kPrintfLimit)

  Launch(const Program& p, const Function& k, DeviceMemory& m, const LaunchParams& l) : P(p), K(k), mem(m), lp(l) {}

  void init_warp(Warp& w, uint32_t id, const Exec& x) {
    w.id = id;
    w.regfile.assign(size_t(K.max_regs) * 32, 0);
    w.special.assign(size_t(kSpecialCount) * 32, 0);
    w.base[0] = w.regfile.data();
    w.base[1] = const_cast<uint64_t*>(P.const_lanes.data());
    w.base[2] = w.special.data();
    uint32_t first = id * 32;
    w.launched = nthreads - first >= 32 ? 0xffffffffu : (1u << (nthreads - first)) - 1;
    w.live = w.launched;
    auto sp = [&](Special s) { return w.special.data() + size_t(s) * 32; };
    for (int l = 0; l < 32; ++l) {
      uint32_t t = first + uint32_t(l);
      sp(kTidX)[l] = t % lp.block.x;
      sp(kTidY)[l] = (t / lp.block.x) % lp.block.y;
      sp(kTidZ)[l] = t / (lp.block.x * lp.block.y);
      sp(kNtidX)[l] = lp.block.x, sp(kNtidY)[l] = lp.block.y, sp(kNtidZ)[l] = lp.block.z;
      sp(kCtaidX)[l] = x.ctaid.x, sp(kCtaidY)[l] = x.ctaid.y, sp(kCtaidZ)[l] = x.ctaid.z;
      sp(kNctaidX)[l] = lp.grid.x, sp(kNctaidY)[l] = lp.grid.y, sp(kNctaidZ)[l] = lp.grid.z;
      sp(kLaneid)[l] = uint32_t(l);
      sp(kWarpid)[l] = id;
      sp(kNwarpid)[l] = nwarps;
      sp(kLanemaskEq)[l] = 1u << l;
      sp(kLanemaskLt)[l] = (1u << l) - 1;
      sp(kLanemaskLe)[l] = uint32_t((2ull << l) - 1);
      sp(kLanemaskGt)[l] = ~uint32_t((2ull << l) - 1);
      sp(kLanemaskGe)[l] = ~((1u << l) - 1);
      sp(kDynSmem)[l] = lp.dynamic_shared_bytes;
      sp(kTotalSmem)[l] = shared_size;
      sp(kGridid)[l] = 1;
      sp(kNsmid)[l] = 132;
    }
    w.stack.clear();
    w.stack.reserve(64);
    w.stack.push_back({K.begin, -1, w.launched, -1});
    w.frames.clear();
    w.frames.push_back({0, 0, -1, int32_t(&K - P.funcs.data())});
    w.state = w.launched ? WarpState::Running : WarpState::Done;
    w.bar_pc = -1;
    w.insts = 0;
    w.copies.clear();
    std::fill(std::begin(w.committed), std::end(w.committed), 0u);
    w.ready.assign(K.max_regs, 0);
    w.t_floor = w.t_arrive = w.t_done = w.issued = w.t_order = w.t_fence = 0;
    w.loads_done.assign(lp.latency.loads, 0);
    w.loads_next = 0;
  }

  // Runs one warp until it waits at a barrier, finishes, or fails.
  void run_warp(Exec& x, Warp& w) {
    const Instr* code = P.code.data();
    InstrCounters* ctr = x.ctr;
    // The count lives in the worker thread, not in this call: a warp that stops at a barrier every
    // few instructions, or a grid of many short blocks, returns here long before a per-call count
    // would reach the check, so the clock was never read (issue 16).
    static thread_local uint32_t budget = 1 << 14;
    for (;;) {
      if (--budget == 0) {
        budget = 1 << 14;
        if (stop.load(std::memory_order_relaxed)) return;
        if (thread_cpu_seconds() - tl_launch_cpu0 > lp.watchdog_seconds) {
          stop = true;
          const Instr& in = code[w.stack.back().pc];
          char buf[160];
          snprintf(buf, sizeof buf, "the kernel ran longer than the %.3g s watchdog (a loop that never ends?)", lp.watchdog_seconds);
          x.fail("watchdog", buf, w, __builtin_ctz(w.stack.back().mask | 1), in);
          return;
        }
      }
      if (w.stack.empty()) { w.state = WarpState::Done; return; }
      StackEntry& top = w.stack.back();
      if (top.mask == 0 || top.pc == top.rpc) {
        if (top.frame >= 0) {  // every lane of a call exited inside it: drop the frame too
          w.frames.resize(size_t(top.frame));
          const Frame& caller = w.frames.back();
          w.base[0] = w.regfile.data() + size_t(caller.reg_base) * 32;
          for (int l = 0; l < 32; ++l) w.special[size_t(kDepot) * 32 + l] = caller.local_base;
        }
        w.stack.pop_back();
        continue;
      }
      const int32_t pc = top.pc;
      const Instr& in = code[pc];
      uint32_t m = top.mask;
      if (in.guard != kNoSlot) {
        const uint64_t* g = w.src(in.guard);
        uint32_t gm = 0;
        for (int l = 0; l < 32; ++l) gm |= uint32_t(g[l] != 0) << l;
        m &= in.guard_neg ? ~gm : gm;
      }
      if (in.issue & kIssueIfConverted) {
        // No branch in the SASS: the body is predicated, so a warp whose lanes all skip it
        // still issues it.
        if ((top.mask & ~m) == 0)
          for (int32_t k = pc + 1; k < in.target; ++k) ++ctr[k].idle;
      } else if (m) {
        ++ctr[pc].executed;
      } else {
        ++ctr[pc].idle;
      }
      if (!(in.issue & kIssueIfConverted)) time_instr(w, in, pc, lp.latency);
      ++w.insts;
      switch (in.cls) {
        case kAlu:
          if (m) in.fn(x, w, in, m);
          ++top.pc;
          break;
        case kMem:
        case kWarpSync:
          if (m) {
            in.fn(x, w, in, m);
            if (x.failed) return;
          }
          ++w.stack.back().pc;
          break;
        case kNop:
          ++top.pc;
          break;
        case kSleep:
          ++top.pc;
          if (m) { w.state = WarpState::Sleeping; return; }
          break;
        case kBra: {
          uint32_t nt = top.mask & ~m;
          if (nt == 0) { top.pc = in.target; break; }
          if (m == 0) { ++top.pc; break; }
          int32_t r = in.ipdom;
          if (top.rpc == r) {
            top.pc = pc + 1;
            top.mask = nt;
            w.stack.push_back({in.target, r, m, -1});
          } else {
            top.pc = r;
            w.stack.push_back({pc + 1, r, nt, -1});
            w.stack.push_back({in.target, r, m, -1});
          }
          break;
        }
        case kExit: {
          if (m) {
            w.live &= ~m;
            for (auto& e : w.stack) e.mask &= ~m;
          }
          if (w.live == 0) { w.state = WarpState::Done; w.stack.clear(); return; }
          if (w.stack.back().mask) ++w.stack.back().pc;
          break;
        }
        case kTrap:
          if (m) { x.fail("trap", "trap instruction executed (__trap() or a failed device assert)", w, __builtin_ctz(m), in); return; }
          ++top.pc;
          break;
        case kBar: {
          if (m == 0) { ++top.pc; break; }
          if (m != w.live) {
            char buf[200];
            snprintf(buf, sizeof buf, "bar.sync reached by part of warp %u (lanes 0x%08x) while its other live lanes (0x%08x) are elsewhere",
                     w.id, m, w.live & ~m);
            x.fail("barrier-divergence", buf, w, __builtin_ctz(m), in);
            return;
          }
          ++top.pc;
          w.state = WarpState::AtBarrier;
          w.bar_pc = pc;
          w.bar_id = uint32_t(in.imm);
          return;
        }
        case kCall: {
          if (m == 0) { ++top.pc; break; }
          const CallSite& cs = P.calls[in.target];
          if (cs.callee < 0) {
            x.vprintf(w, in, m, cs);
            if (x.failed) return;
            ++top.pc;
            break;
          }
          const Function& C = P.funcs[cs.callee];
          const Frame cur = w.frames.back();
          uint32_t nb = cur.reg_base + P.funcs[cur.func].nregs;
          uint32_t nl = cur.local_base + (P.funcs[cur.func].depot + 15) / 16 * 16;
          if (size_t(nb + C.nregs) * 32 > w.regfile.size()) {
            x.fail("unsupported", "call nesting deeper than the kernel's call graph", w, __builtin_ctz(m), in);
            return;
          }
          uint64_t* callee_regs = w.regfile.data() + size_t(nb) * 32;
          for (auto& a : cs.args)
            for (uint16_t k = 0; k < a.nslots; ++k) {
              const uint64_t* s = w.src(uint16_t(a.from + k));
              uint64_t* d = callee_regs + size_t(a.to + k) * 32;
              each_lane(m, [&](int l) { d[l] = s[l]; });
            }
          ++top.pc;
          w.frames.push_back({nb, nl, in.target, cs.callee});
          w.stack.push_back({C.begin, -1, m, int32_t(w.frames.size() - 1)});
          w.base[0] = callee_regs;
          for (int l = 0; l < 32; ++l) w.special[size_t(kDepot) * 32 + l] = nl;
          break;
        }
        case kRet: {
          if (top.frame < 0 || w.frames.size() < 2) {
            x.fail("unsupported", "ret outside a call frame", w, __builtin_ctz(top.mask), in);
            return;
          }
          const Frame f = w.frames.back();
          const CallSite& cs = P.calls[f.call_site];
          uint32_t fm = top.mask;
          w.frames.pop_back();
          const Frame& caller = w.frames.back();
          uint64_t* callee_regs = w.regfile.data() + size_t(f.reg_base) * 32;
          w.base[0] = w.regfile.data() + size_t(caller.reg_base) * 32;
          for (auto& r : cs.rets)
            for (uint16_t k = 0; k < r.nslots; ++k) {
              const uint64_t* s = callee_regs + size_t(r.from + k) * 32;
              uint64_t* d = w.reg(uint16_t(r.to + k));
              each_lane(fm, [&](int l) { d[l] = s[l]; });
            }
          for (int l = 0; l < 32; ++l) w.special[size_t(kDepot) * 32 + l] = caller.local_base;
          w.stack.pop_back();
          break;
        }
      }
    }
  }

  // Sets up block b on the worker. A parked block took the worker's buffers with it: those are
  // allocated again.
  void begin_block(Worker& wk, Exec& x, uint64_t b) {
    x = Exec{};
    x.P = &P;
    x.K = &K;
    x.mem = &mem;
    x.kparams = kparams.data();
    x.grid = lp.grid;
    x.block = lp.block;
    x.ctaid.x = uint32_t(b % lp.grid.x);
    x.ctaid.y = uint32_t((b / lp.grid.x) % lp.grid.y);
    x.ctaid.z = uint32_t(b / (uint64_t(lp.grid.x) * lp.grid.y));
    x.block_linear = b;
    x.latency = &lp.latency;
    wk.partial_cur.clear();
    x.partial = &wk.partial_cur;  // the members, whose contents travel with a parked block
    wk.pages_cur.clear();
    x.pages = &wk.pages_cur;
    x.ctr = wk.ctr.data();
    x.samples = wk.samples.data();
    // Shared memory starts as a poison pattern, so reading it before writing is visible.
    wk.shared.assign(shared_size, uint8_t(0xff));
    x.shared = wk.shared.data();
    x.shared_size = shared_size;
    const size_t words = (shared_size + 3) / 4 + 4;
    if (wk.race.size() != words) wk.race.assign(words, RaceWord{});
    x.race = wk.race.data();
    if (wk.async.size() != words) wk.async.assign(words, 0);
    x.async = wk.async.data();
    x.async_words = 0;  // the last block dropped its copies
    x.epoch = ++wk.epoch;
    x.local_per_lane = K.max_depot;
    wk.local.assign(size_t(nwarps) * 32 * K.max_depot, 0);
    x.local = wk.local.data();
    wk.warps.resize(nwarps);
    for (uint32_t i = 0; i < nwarps; ++i) init_warp(wk.warps[i], i, x);
    x.interval_start = 0;
  }

  // Runs the worker's current block until it finishes, fails, or parks (returns false): a warp
  // sleeps and no warp can run, so the block waits for something another block must do.
  bool run_block(Worker& wk, Exec& x) {
    for (;;) {
      for (uint32_t i = 0; i < nwarps; ++i) {
        Warp& w = wk.warps[i];
        if (w.state != WarpState::Running) continue;
        run_warp(x, w);
        if (x.failed || stop) break;
      }
      if (x.failed || stop) break;
      // Every warp now waits at a barrier, sleeps or is done.
      bool sleeping = false;
      for (uint32_t i = 0; i < nwarps; ++i)
        if (wk.warps[i].state == WarpState::Sleeping) {
          wk.warps[i].state = WarpState::Running;  // it runs again when the block is resumed
          sleeping = true;
        }
      if (sleeping) return false;
      Warp* waiting = nullptr;
      bool mixed_id = false, mixed_pc = false;
      Warp* done = nullptr;
      for (uint32_t i = 0; i < nwarps; ++i) {
        Warp& w = wk.warps[i];
        if (w.state == WarpState::AtBarrier) {
          if (!waiting) waiting = &w;
          else {
            mixed_id |= w.bar_id != waiting->bar_id;
            mixed_pc |= w.bar_pc != waiting->bar_pc;
          }
        } else if (w.state == WarpState::Done && w.launched && !done) {
          done = &w;
        }
      }
      if (!waiting) break;
      const Instr& bin = P.code[waiting->bar_pc];
      if (mixed_id) {
        x.fail("deadlock", "deadlock: every live warp of the block waits at a barrier, but not at the same one", *waiting, 0, bin);
        break;
      }
      if (done) {
        x.fail("barrier-divergence",
               "bar.sync reached by part of the block: warp " + std::to_string(done->id) +
                   " exited without reaching the barrier the other warps wait at",
               *waiting, 0, bin);
        break;
      }
      if (mixed_pc) {
        x.fail("barrier-divergence", "bar.sync reached by part of the block: the warps wait at different bar.sync instructions",
               *waiting, 0, bin);
        break;
      }
      x.epoch = ++wk.epoch;
      // The barrier releases after its last warp arrives, and not before the shared pipe has
      // served this interval's wavefronts (one a cycle: a conflicted tile takes its time).
      uint32_t release = uint32_t(std::min<uint64_t>(x.interval_start + x.shared_busy, UINT32_MAX));
      for (uint32_t i = 0; i < nwarps; ++i)
        if (wk.warps[i].state == WarpState::AtBarrier) release = std::max(release, wk.warps[i].t_arrive);
      release += lp.latency.barrier;
      x.interval_start = release;
      x.shared_busy = 0;
      for (uint32_t i = 0; i < nwarps; ++i)
        if (wk.warps[i].state == WarpState::AtBarrier) {
          wk.warps[i].state = WarpState::Running;
          wk.warps[i].t_floor = wk.warps[i].t_arrive = wk.warps[i].t_order = wk.warps[i].t_fence = release;
        }
    }
    return true;
  }

  // A finished (or failed) block's time, partly written sectors, printf output and error, kept for
  // the merge. pair: 0 for the first block of a pair of launch-order neighbours, 1 for the second,
  // whose partner is the first. (When blocks park, the second may finish first: its sectors are
  // then compared with no neighbour's.)
  void finish_block(Worker& wk, Exec& x, int pair, uint64_t partner) {
    const uint64_t b = x.block_linear;
    uint32_t cycles = uint32_t(std::min<uint64_t>(x.interval_start + x.shared_busy, UINT32_MAX));
    for (uint32_t i = 0; i < nwarps; ++i)
      cycles = std::max({cycles, wk.warps[i].t_done, wk.warps[i].t_arrive, wk.warps[i].issued});
    ++wk.blocks;
    wk.cycles_sum += cycles;
    wk.cycles_max = std::max<uint64_t>(wk.cycles_max, cycles);
    // Sectors the block leaves incomplete: what its stores write of them adds up to less than 32.
    wk.partial_writes += wk.partial_cur.size();
    std::sort(wk.partial_cur.begin(), wk.partial_cur.end());
    size_t kept = 0;
    for (size_t i = 0; i < wk.partial_cur.size();) {
      const uint64_t sector = wk.partial_cur[i] >> 6;
      uint32_t bytes = 0;
      for (; i < wk.partial_cur.size() && wk.partial_cur[i] >> 6 == sector; ++i) bytes += uint32_t(wk.partial_cur[i] & 63);
      if (bytes < 32) wk.partial_cur[kept++] = sector;
    }
    wk.partial_cur.resize(kept);
    // Pages and the bytes the block stores to each (page << 16 | bytes, bytes capped).
    std::sort(wk.pages_cur.begin(), wk.pages_cur.end());
    size_t npages = 0;
    for (size_t i = 0; i < wk.pages_cur.size();) {
      const uint64_t page = wk.pages_cur[i] >> 16;
      uint64_t bytes = 0;
      for (; i < wk.pages_cur.size() && wk.pages_cur[i] >> 16 == page; ++i) bytes += wk.pages_cur[i] & 0xffff;
      wk.pages_cur[npages++] = page << 16 | std::min<uint64_t>(bytes, 0xffff);
    }
    wk.pages_cur.resize(npages);
    if (pair == 0) {
      wk.partial_first += wk.partial_cur.size();
      wk.partial_prev.swap(wk.partial_cur);
      wk.pages_prev.swap(wk.pages_cur);
      wk.prev_block = b;
    } else {
      const bool neighbour = wk.prev_block == partner;
      if (!neighbour) wk.pages_prev.clear();
      if (neighbour)
        for (uint64_t sector : wk.partial_cur)
          wk.partial_next += std::binary_search(wk.partial_prev.begin(), wk.partial_prev.end(), sector);
      wk.pages_next += wk.pages_cur.size();
      // A page is written locally when this block fills half of it or more, or when the first
      // block writes it too; otherwise its bytes count as scattered.
      auto shares = [&](uint64_t page) {
        auto it = std::lower_bound(wk.pages_prev.begin(), wk.pages_prev.end(), page << 16);
        return it != wk.pages_prev.end() && (*it >> 16) == page;
      };
      for (uint64_t entry : wk.pages_cur) {
        const uint64_t bytes = entry & 0xffff;
        if (bytes >= 1024 || shares(entry >> 16)) ++wk.pages_shared;
        else wk.bytes_scattered += bytes;
      }
      wk.partial_prev.clear();
      wk.pages_prev.clear();
      wk.prev_block = ~0ull;
    }
    // Copies never waited for leave no marks for the next block's race check.
    for (uint32_t i = 0; i < nwarps; ++i) x.drop_copies(wk.warps[i]);
    if (!x.printf_out.empty() &&
        printf_total.fetch_add(x.printf_out.size()) + x.printf_out.size() <= Exec::kPrintfLimit)
      wk.printf_out.push_back({b, std::move(x.printf_out)});
    if (x.failed && b < wk.error_block) {
      wk.has_error = true;
      wk.error_block = b;
      wk.error = x.err;
      uint64_t cur = min_failed.load();
      while (b < cur && !min_failed.compare_exchange_weak(cur, b)) {}
    }
  }

  void park(Worker& wk, Exec& x, int pair, uint64_t partner) {
    wk.parked.push_back(ParkedBlock{x, pair, partner, std::move(wk.warps), std::move(wk.shared), std::move(wk.local),
                                    std::move(wk.race), std::move(wk.async), std::move(wk.partial_cur),
                                    std::move(wk.pages_cur)});
  }

  void resume(Worker& wk, Exec& x, int& pair, uint64_t& partner) {
    ParkedBlock& pb = wk.parked.front();
    x = pb.x;  // its pointers still name pb's buffers, which move back unchanged
    pair = pb.pair;
    partner = pb.partner;
    wk.warps = std::move(pb.warps);
    wk.shared = std::move(pb.shared);
    wk.local = std::move(pb.local);
    wk.race = std::move(pb.race);
    wk.async = std::move(pb.async);
    wk.partial_cur = std::move(pb.partial);
    wk.pages_cur = std::move(pb.pages);
    wk.parked.pop_front();
  }

  // Blocks come two at a time (a pair of launch-order neighbours runs on one worker). New blocks
  // first while there are any (one of them may be what a parked block waits for), then the parked
  // blocks in turn. A block that only ever parks is caught by the watchdog here, since its warps
  // never run long enough to reach the check in run_warp.
  void worker(Worker& wk, uint64_t nblocks) {
    tl_launch_cpu0 = thread_cpu_seconds();
    wk.ctr.assign(P.code.size(), InstrCounters{});
    wk.samples.assign(P.lines.size(), SampleSlot{});
    const uint64_t count = order.empty() ? nblocks : order.size();
    uint64_t k = 0, k_end = 0;  // the fetched pair's launch-order indices not begun yet
    bool more = true;
    Exec x;
    int pair = 0;
    uint64_t partner = ~0ull;
    for (;;) {
      if (stop) break;
      // A worker fetches a pair only while it holds fewer blocks than its share, and begins the
      // second block of a fetched pair even past its share: no block waits fetched but unbegun
      // behind blocks that wait for it. On one host thread (an even share) it holds exactly the
      // resident blocks at most; on several, up to one more each.
      if (more && (k != k_end || wk.parked.size() < std::min<uint64_t>(wk.resident, kMaxParked))) {
        if (k == k_end) {
          k = next.fetch_add(2);
          k_end = std::min(k + 2, count);
          if (k >= count) {
            more = false;
            continue;
          }
        }
        const uint64_t b = order.empty() ? k : order[k];
        pair = (k & 1) ? 1 : 0;
        partner = pair ? (order.empty() ? k - 1 : order[k - 1]) : ~0ull;
        ++k;
        if (b > min_failed.load()) {
          more = false;
          continue;
        }
        begin_block(wk, x, b);
      } else if (!wk.parked.empty()) {
        resume(wk, x, pair, partner);
        if (x.block_linear > min_failed.load()) continue;  // a lower block failed: its error is the one reported
        if (thread_cpu_seconds() - tl_launch_cpu0 > lp.watchdog_seconds) {
          stop = true;
          char buf[160];
          snprintf(buf, sizeof buf, "the kernel ran longer than the %.3g s watchdog (blocks wait for each other forever?)",
                   lp.watchdog_seconds);
          for (uint32_t i = 0; i < nwarps; ++i)
            if (wk.warps[i].state == WarpState::Running && !wk.warps[i].stack.empty()) {
              x.fail("watchdog", buf, wk.warps[i], __builtin_ctz(wk.warps[i].stack.back().mask | 1),
                     P.code[wk.warps[i].stack.back().pc]);
              break;
            }
          if (!x.failed) x.fail("watchdog", buf, wk.warps[0], 0, P.code[K.begin]);
          finish_block(wk, x, pair, partner);
          break;
        }
      } else {
        break;
      }
      if (run_block(wk, x)) finish_block(wk, x, pair, partner);
      else park(wk, x, pair, partner);
    }
  }
};


const char* kMetricNames[] = {
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",  "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",   "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum", "smsp__inst_executed_op_shared_atom.sum",
    "smsp__inst_executed_op_global_ld.sum", "smsp__inst_executed_op_global_st.sum", "smsp__inst_executed.sum",
    // tensor-core programs (sim/engine/README.md, "Tensor cores")
    "smsp__inst_executed_pipe_tensor_op_hmma.sum",
    "smsp__sass_inst_executed_op_ldsm.sum", "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum",
    "smsp__sass_inst_executed_op_shared_stsm.sum", "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum",
    "smsp__sass_inst_executed_op_ldgsts.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_access.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access.sum",
    "smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum",
    "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum"};

// The Nsight Compute metrics one instruction contributes.
// Instructions count as the SASS issues them (issue.cpp): with their idle issues, and not at all
// when ptxas merged them into their neighbour. Requests, sectors and wavefronts come from active
// lanes only.
void instr_metrics(const Instr& in, const InstrCounters& c, Metrics& m) {
  if (!(c.executed + c.idle) || (in.issue & kIssuePaired)) return;
  m["smsp__inst_executed.sum"] += c.executed + c.idle;
  if (in.flags & kTensor) m["smsp__inst_executed_pipe_tensor_op_hmma.sum"] += c.executed * in.vec;
  if (in.cls != kMem) return;
  // LDSM, STSM, LDGSTS: SASS-level names (H200 ncu --query-metrics). The H200 also counts LDSM's
  // wavefronts and conflicts in the shared op_ld counters and STSM's in op_st (not their
  // instructions), and LDGSTS's global requests and sectors in the global op_ld ones; LDGSTS's
  // shared wavefronts are in neither (sim/validation/README.md, measured 2026-12-01).
  auto shared = [&](const char* op, const char* aggregate) {
    const std::string o = op;
    m[o == "stsm" ? "smsp__sass_inst_executed_op_shared_stsm.sum" : "smsp__sass_inst_executed_op_" + o + ".sum"] += c.s_inst;
    m["smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_" + o + ".sum"] += c.s_wavefronts;
    m["smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_" + o + ".sum"] += c.s_wavefronts - c.s_ideal;
    if (aggregate) {
      m[std::string("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_") + aggregate + ".sum"] += c.s_wavefronts;
      m[std::string("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_") + aggregate + ".sum"] += c.s_wavefronts - c.s_ideal;
    }
  };
  if (in.memop == kOpLdsm) { shared("ldsm", "ld"); return; }
  if (in.memop == kOpStsm) { shared("stsm", "st"); return; }
  if (in.memop == kOpLdgsts) {
    if (in.flags & kBypass) {
      m["smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum"] += c.g_requests;
      m["smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum"] += c.g_sectors;
    } else {
      m["l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_access.sum"] += c.g_requests;
      m["l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access.sum"] += c.g_sectors;
    }
    m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] += c.g_requests;
    m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] += c.g_sectors;
    shared("ldgsts", nullptr);
    return;
  }
  static const char* ops[] = {"ld", "st", "atom", "red"};
  const std::string op = ops[in.memop];
  // An idle issue has no address: it belongs to the instruction's state space, or to the one its
  // executions resolved to (generic).
  const bool in_shared = in.space == Space::Shared || (in.space == Space::Generic && c.s_inst && !c.g_inst);
  const bool in_global = in.space == Space::Global || (in.space == Space::Generic && !in_shared);
  const uint64_t g_inst = c.g_inst + (in_global ? c.idle : 0), s_inst = c.s_inst + (in_shared ? c.idle : 0);
  if (g_inst) {
    m["l1tex__t_requests_pipe_lsu_mem_global_op_" + op + ".sum"] += c.g_requests;
    m["l1tex__t_sectors_pipe_lsu_mem_global_op_" + op + ".sum"] += c.g_sectors;
    if (in.memop <= kOpSt) m["smsp__inst_executed_op_global_" + op + ".sum"] += g_inst;
  }
  if (s_inst) {
    if (in.flags & kMatrixLoad) {  // wmma.load.a/.b from shared memory: one LDSM
      shared("ldsm", "ld");
    } else if (in.memop >= kOpAtom) {
      m["smsp__inst_executed_op_shared_atom.sum"] += s_inst;
    } else {
      m["smsp__inst_executed_op_shared_" + op + ".sum"] += s_inst;
      m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + op + ".sum"] += c.s_wavefronts;
      m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + op + ".sum"] += c.s_wavefronts - c.s_ideal;
    }
  }
}

class PtxModule : public Module {
 public:
  explicit PtxModule(const std::string& text) { build_program(text, P_); }

  const Function* kernel(const std::string& name) const {
    for (auto& f : P_.funcs)
      if (f.is_entry && f.name == name) return &f;
    return nullptr;
  }
  bool has_kernel(const std::string& name) const override { return kernel(name) != nullptr; }
  std::string unsupported(const std::string& name) const override {
    const Function* k = kernel(name);
    return k ? k->unsupported : "";
  }
  std::vector<uint64_t> param_sizes(const std::string& name) const override {
    const Function* k = kernel(name);
    if (!k) throw std::runtime_error("no kernel named " + name);
    std::vector<uint64_t> s;
    for (auto& p : k->params) s.push_back(p.size);
    return s;
  }
  void load_globals(DeviceMemory& memory) override {
    if (loaded_) return;
    for (auto& g : P_.globals) {
      g.address = memory.allocate(std::max<uint64_t>(g.size, 1), (g.is_const ? "__constant__ " : "__device__ ") + g.name);
      uint8_t* h = memory.translate(g.address, g.size);
      if (h && g.size) {
        memset(h, 0, g.size);
        memcpy(h, g.init.data(), std::min<size_t>(g.init.size(), g.size));
      }
    }
    for (auto& f : P_.fixups) {
      uint64_t v = P_.globals[f.global].address + uint64_t(f.offset);
      P_.consts[f.pool_index] = v;
      for (int l = 0; l < 32; ++l) P_.const_lanes[size_t(f.pool_index) * 32 + l] = v;
    }
    loaded_ = true;
  }
  std::vector<Symbol> symbols() const override {
    std::vector<Symbol> s;
    for (auto& g : P_.globals) s.push_back({g.name, g.address, g.size});
    return s;
  }
  LaunchReport launch(const LaunchParams& lp, DeviceMemory& memory) override;

 private:
  Program P_;
  bool loaded_ = false;
  std::mutex mu_;
};

LaunchReport PtxModule::launch(const LaunchParams& lp, DeviceMemory& memory) {
  std::lock_guard<std::mutex> lock(mu_);
  auto t0 = Clock::now();
  LaunchReport rep;
  rep.kernel = lp.kernel;
  rep.grid = lp.grid;
  rep.block = lp.block;
  for (const char* n : kMetricNames) rep.metrics[n] = 0;
  auto early_error = [&](const std::string& kind, const std::string& msg) {
    SimError e;
    e.kind = kind;
    e.message = msg;
    rep.errors.push_back(e);
    rep.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return rep;
  };
  const Function* K = kernel(lp.kernel);
  if (!K) return early_error("unsupported", "no kernel named " + lp.kernel + " in the module");
  if (!K->unsupported.empty()) return early_error("unsupported", K->unsupported + " (in kernel " + K->name + ")");
  uint64_t nthreads = uint64_t(lp.block.x) * lp.block.y * lp.block.z;
  uint64_t nblocks = uint64_t(lp.grid.x) * lp.grid.y * lp.grid.z;
  if (nthreads == 0 || nthreads > 1024 || nblocks == 0)
    return early_error("unsupported", "invalid launch configuration: block " + std::to_string(nthreads) + " threads, grid " +
                                          std::to_string(nblocks) + " blocks");
  load_globals(memory);

  Launch L(P_, *K, memory, lp);
  L.nthreads = uint32_t(nthreads);
  L.nwarps = uint32_t((nthreads + 31) / 32);
  L.kparams.assign(K->param_bytes + 8, 0);
  for (size_t i = 0; i < K->params.size(); ++i) {
    if (!lp.args || !lp.args[i]) return early_error("unsupported", "kernel argument " + std::to_string(i) + " missing");
    memcpy(L.kparams.data() + K->params[i].offset, lp.args[i], K->params[i].size);
  }
  uint64_t dyn_start = (K->shared_static + K->shared_align - 1) / K->shared_align * K->shared_align;
  L.shared_size = lp.dynamic_shared_bytes ? dyn_start + lp.dynamic_shared_bytes : K->shared_static;

  if (lp.sample_blocks > 0 && lp.sample_blocks + 2 < nblocks) {
    // Pairs of neighbours spread evenly from the first block to the last.
    const uint64_t pairs = std::max<uint64_t>(1, lp.sample_blocks / 2);
    for (uint64_t j = 0; j < pairs; ++j) {
      const uint64_t first = pairs == 1 ? 0 : (nblocks - 2) * j / (pairs - 1);
      if (!L.order.empty() && first <= L.order.back()) continue;
      L.order.push_back(first);
      L.order.push_back(first + 1);
    }
  }
  const uint64_t to_run = L.order.empty() ? nblocks : L.order.size();
  int threads = lp.host_threads > 0 ? lp.host_threads : int(std::max(1u, std::thread::hardware_concurrency()));
  threads = int(std::min<uint64_t>(uint64_t(threads), (to_run + 1) / 2));
  std::vector<Worker> workers(static_cast<size_t>(threads));
  // Each worker's share of the resident blocks, rounded up (worker() says why a kernel whose blocks
  // wait for each other finishes whenever the whole grid is resident).
  const uint64_t share = (std::max<uint64_t>(1, lp.resident_blocks) + uint64_t(threads) - 1) / uint64_t(threads);
  for (auto& w : workers) w.resident = share;
  if (threads == 1) {
    L.worker(workers[0], nblocks);
  } else {
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) pool.emplace_back([&, i] { L.worker(workers[size_t(i)], nblocks); });
    for (auto& t : pool) t.join();
  }

  // Merge in a fixed order: counters are sums, samples come from the lowest block, the reported
  // error is the lowest-numbered failing block's, printf output is in block order.
  std::vector<InstrCounters> ctr(P_.code.size());
  std::vector<SampleSlot> samples(P_.lines.size());
  std::vector<std::pair<uint64_t, std::string>> out;
  const Worker* err = nullptr;
  for (auto& w : workers) {
    for (size_t i = 0; i < ctr.size() && i < w.ctr.size(); ++i) {
      ctr[i].executed += w.ctr[i].executed;
      ctr[i].idle += w.ctr[i].idle;
      ctr[i].g_inst += w.ctr[i].g_inst;
      ctr[i].g_requests += w.ctr[i].g_requests;
      ctr[i].g_sectors += w.ctr[i].g_sectors;
      ctr[i].g_bytes += w.ctr[i].g_bytes;
      ctr[i].s_inst += w.ctr[i].s_inst;
      ctr[i].s_wavefronts += w.ctr[i].s_wavefronts;
      ctr[i].s_ideal += w.ctr[i].s_ideal;
    }
    for (size_t i = 0; i < samples.size() && i < w.samples.size(); ++i)
      if (w.samples[i].block < samples[i].block) samples[i] = w.samples[i];
    for (auto& p : w.printf_out) out.push_back(p);
    if (w.has_error && (!err || w.error_block < err->error_block)) err = &w;
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (auto& p : out) fwrite(p.second.data(), 1, p.second.size(), stdout);
  if (!out.empty()) fflush(stdout);
  if (err) rep.errors.push_back(err->error);

  uint64_t blocks = 0, cycles_sum = 0, cycles_max = 0, partial_writes = 0, partial_first = 0, partial_next = 0;
  uint64_t pages_next = 0, pages_shared = 0, bytes_scattered = 0;
  for (auto& w : workers) {
    blocks += w.blocks, cycles_sum += w.cycles_sum, cycles_max = std::max(cycles_max, w.cycles_max);
    partial_writes += w.partial_writes, partial_first += w.partial_first, partial_next += w.partial_next;
    pages_next += w.pages_next, pages_shared += w.pages_shared, bytes_scattered += w.bytes_scattered;
  }
  rep.metrics["sim__st_pages_next.sum"] = pages_next;
  rep.metrics["sim__st_pages_shared.sum"] = pages_shared;
  rep.metrics["sim__st_bytes_scattered.sum"] = bytes_scattered;
  rep.metrics["sim__st_partial_writes.sum"] = partial_writes;
  rep.metrics["sim__blocks.sum"] = blocks;
  rep.metrics["sim__block_cycles.sum"] = cycles_sum;
  rep.metrics["sim__block_cycles.max"] = cycles_max;
  rep.metrics["sim__st_partial_sectors.sum"] = partial_first;
  rep.metrics["sim__st_partial_sectors_next.sum"] = partial_next;
  uint64_t ld_bytes = 0, st_bytes = 0;
  for (size_t pc = 0; pc < ctr.size(); ++pc) {
    const Instr& in = P_.code[pc];
    if (in.cls != kMem || !ctr[pc].g_inst) continue;
    if (in.memop == kOpLd) ld_bytes += ctr[pc].g_bytes;
    if (in.memop == kOpSt) st_bytes += ctr[pc].g_bytes;
  }
  rep.metrics["sim__global_ld_bytes.sum"] = ld_bytes;
  rep.metrics["sim__global_st_bytes.sum"] = st_bytes;

  std::map<int, Metrics> by_line;
  for (int pc = K->begin; pc < int(P_.code.size()); ++pc) {
    const Instr& in = P_.code[pc];
    if (!ctr[pc].executed && !ctr[pc].idle) continue;
    instr_metrics(in, ctr[pc], rep.metrics);
    instr_metrics(in, ctr[pc], by_line[in.line_id]);
  }
  for (int pc = 0; pc < K->begin; ++pc) {
    const Instr& in = P_.code[pc];
    if (!ctr[pc].executed && !ctr[pc].idle) continue;
    instr_metrics(in, ctr[pc], rep.metrics);
    instr_metrics(in, ctr[pc], by_line[in.line_id]);
  }
  for (auto& [id, m] : by_line) {
    LineReport lr;
    lr.file = P_.lines[id].file;
    lr.line = P_.lines[id].line;
    lr.metrics = m;
    if (samples[id].block != ~0ull) lr.sample = samples[id].sample;
    rep.lines.push_back(std::move(lr));
  }
  std::sort(rep.lines.begin(), rep.lines.end(),
            [](const LineReport& a, const LineReport& b) { return std::tie(a.file, a.line) < std::tie(b.file, b.line); });
  rep.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return rep;
}

}  // namespace

void build_program(const std::string& ptx, Program& out);

}  // namespace sim::eng

namespace sim {
std::unique_ptr<Module> Module::parse(const std::string& ptx_text) { return std::make_unique<eng::PtxModule>(ptx_text); }
}  // namespace sim
