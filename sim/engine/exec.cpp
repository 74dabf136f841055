// The SIMT executor: blocks on host threads, warps in lockstep with an IPDOM reconvergence stack,
// bar.sync, memory access resolution with its checks and Nsight Compute counters, and the Module.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "exec.h"
#include "values.h"

namespace sim::eng {
namespace {

using Clock = std::chrono::steady_clock;

std::string hex(uint64_t v) {
  char b[32];
  snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}
std::string dim(const Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}
Dim3 thread_of(const Dim3& block, uint32_t linear) {
  Dim3 t;
  t.x = linear % block.x;
  t.y = (linear / block.x) % block.y;
  t.z = linear / (block.x * block.y);
  return t;
}

// Distinct 32-byte sectors touched by the active lanes; each reads `bytes`, or size(l) bytes.
template <class Size>
uint32_t sectors_of(const uint64_t* addr, uint32_t m, Size size) {
  uint64_t lo = ~0ull, hi = 0;
  each_lane(m, [&](int l) {
    lo = std::min(lo, addr[l] >> 5);
    hi = std::max(hi, (addr[l] + size(l) - 1) >> 5);
  });
  if (hi - lo < 256) {
    uint64_t bits[4] = {0, 0, 0, 0};
    each_lane(m, [&](int l) {
      for (uint64_t s = addr[l] >> 5, e = (addr[l] + size(l) - 1) >> 5; s <= e; ++s) bits[(s - lo) >> 6] |= 1ull << ((s - lo) & 63);
    });
    return uint32_t(__builtin_popcountll(bits[0]) + __builtin_popcountll(bits[1]) + __builtin_popcountll(bits[2]) +
                    __builtin_popcountll(bits[3]));
  }
  uint64_t s[64];
  int n = 0;
  each_lane(m, [&](int l) {
    for (uint64_t a = addr[l] >> 5, e = (addr[l] + size(l) - 1) >> 5; a <= e && n < 64; ++a) s[n++] = a;
  });
  std::sort(s, s + n);
  return uint32_t(std::unique(s, s + n) - s);
}
uint32_t distinct_sectors(const uint64_t* addr, uint32_t m, uint32_t bytes, const uint8_t* lane_bytes = nullptr) {
  if (lane_bytes) return sectors_of(addr, m, [&](int l) { return uint32_t(lane_bytes[l]); });
  return sectors_of(addr, m, [&](int) { return bytes; });
}

// Sectors of a global atomic, as an H200 counts them (sim/validation/h200-ncu.json):
// - every active lane on one address: ptxas aggregates the warp into one lane's RED (1 sector);
// - otherwise lanes on the same address are serialised: the k-th lane on an address goes in
//   round k, and each round costs its own distinct sectors (without repeats: distinct_sectors).
// Scattered 256-bin RED (histogram.cu): ncu 736,309, this model 726,308 (-1.4%), distinct 600,636.
uint32_t atomic_sectors(const uint64_t* addr, uint32_t m, uint32_t bytes) {
  const uint64_t first = addr[__builtin_ctz(m)];
  bool uniform = true;
  each_lane(m, [&](int l) { uniform = uniform && addr[l] == first; });
  if (uniform) return distinct_sectors(addr, m & -m, bytes);
  uint32_t pending = m, total = 0;
  while (pending) {
    uint32_t round = 0;  // the first pending lane on each address
    each_lane(pending, [&](int l) {
      bool new_address = true;
      each_lane(round, [&](int k) { new_address = new_address && addr[k] != addr[l]; });
      if (new_address) round |= 1u << l;
    });
    total += distinct_sectors(addr, round, bytes);
    pending &= ~round;
  }
  return total;
}

// Sectors a store writes only in part (fewer than 32 of its bytes), appended to `out` as
// sector << 6 | bytes written: the time model's evidence of sectors that other stores, of this
// block or of its neighbours, complete (module.cpp).
void partial_sectors(const uint64_t* addr, uint32_t m, uint32_t bytes, std::vector<uint64_t>& out) {
  // Lanes l..h writing one contiguous run (a coalesced store): only its two ends can be partial.
  const int lo = __builtin_ctz(m), hi = 31 - __builtin_clz(m);
  bool run = (m >> lo) == (hi - lo == 31 ? 0xffffffffu : (1u << (hi - lo + 1)) - 1);
  for (int l = lo + 1; run && l <= hi; ++l) run = addr[l] == addr[lo] + uint64_t(l - lo) * bytes;
  if (run) {
    const uint64_t a = addr[lo], e = addr[hi] + bytes;
    if (a & 31) out.push_back((a >> 5) << 6 | uint32_t(std::min<uint64_t>(e, (a | 31) + 1) - a));
    if ((e & 31) && (e >> 5) != (a >> 5)) out.push_back(((e >> 5) << 6) | uint32_t(e & 31));
    else if ((e & 31) && !(a & 31)) out.push_back((a >> 5) << 6 | uint32_t(e - a));
    return;
  }
  std::pair<uint64_t, uint32_t> pieces[64];
  int n = 0;
  each_lane(m, [&](int l) {
    for (uint64_t a = addr[l], e = addr[l] + bytes; a < e && n < 64;) {
      const uint64_t next = std::min(e, (a | 31) + 1);
      pieces[n++] = {a >> 5, uint32_t(next - a)};
      a = next;
    }
  });
  std::sort(pieces, pieces + n);
  for (int i = 0; i < n;) {
    uint32_t sum = 0;
    int j = i;
    for (; j < n && pieces[j].first == pieces[i].first; ++j) sum += pieces[j].second;
    if (sum < 32) out.push_back(pieces[i].first << 6 | sum);
    i = j;
  }
}

// Shared-memory wavefronts (sim-notes §4): 32-bit accesses are served for the whole warp at once,
// 64-bit in two half-warp phases, 128-bit in four quarter-warp phases; a phase costs the largest
// number of distinct 4-byte words one bank must deliver (the same word to many lanes is free).
void shared_wavefronts(const uint64_t* off, uint32_t m, uint32_t bytes, uint64_t& wavefronts, uint64_t& ideal) {
  int phases = bytes <= 4 ? 1 : bytes == 8 ? 2 : 4;
  int per = 32 / phases;
  int words_per_lane = bytes <= 4 ? 1 : int(bytes / 4);
  for (int ph = 0; ph < phases; ++ph) {
    uint32_t pm = m & (per == 32 ? 0xffffffffu : (((1u << per) - 1) << (ph * per)));
    if (!pm) continue;
    ++ideal;
    uint32_t words[32];
    int n = 0;
    uint32_t banks = 0;
    bool clash = false;
    for (uint32_t mm = pm; mm; mm &= mm - 1) {
      int l = __builtin_ctz(mm);
      for (int k = 0; k < words_per_lane; ++k) {
        uint32_t w = uint32_t(off[l] >> 2) + k;
        words[n++] = w;
        uint32_t b = 1u << (w & 31);
        clash |= (banks & b) != 0;
        banks |= b;
      }
    }
    if (!clash) { wavefronts += 1; continue; }
    std::sort(words, words + n);
    n = int(std::unique(words, words + n) - words);
    int count[32] = {0};
    int worst = 0;
    for (int i = 0; i < n; ++i) worst = std::max(worst, ++count[words[i] & 31]);
    wavefronts += uint64_t(worst);
  }
}

// An LDGSTS's shared-memory wavefronts, as the H200 counts them (sim/validation/README.md): the
// data stage writes one 128-byte global line's lanes at a time, so the lanes are grouped by their
// source line and each group costs its own wavefronts; a lane that reads nothing (src-size 0,
// ignore-src) is a group of its own. The ideal is counted the same way: grouping is no conflict.
void async_store_wavefronts(const uint64_t* off, const uint64_t* line, uint32_t m, uint32_t bytes, uint64_t& wavefronts,
                            uint64_t& ideal) {
  while (m) {
    const int first = __builtin_ctz(m);
    uint32_t group = 0;
    if (line[first] == ~0ull) {
      group = 1u << first;
    } else {
      for (uint32_t mm = m; mm; mm &= mm - 1)
        if (line[__builtin_ctz(mm)] == line[first]) group |= 1u << __builtin_ctz(mm);
    }
    shared_wavefronts(off, group, bytes, wavefronts, ideal);
    m &= ~group;
  }
}

// The variable a shared-memory byte belongs to, for messages.
std::string shared_var_at(const Exec& x, uint64_t off) {
  std::string var = "shared memory";
  auto name = [&](const std::vector<SharedVar>& vs) {
    for (auto& v : vs)
      if (off >= v.offset && (v.dynamic || off < v.offset + v.size)) var = v.name + " (byte " + std::to_string(off - v.offset) + ")";
  };
  name(x.P->module_shared_vars);
  name(x.K->shared_vars);
  return var;
}
int line_of(const Program* P, int32_t pc) { return pc >= 0 ? P->lines[P->code[pc].line_id].line : 0; }

// An access to a word a cp.async will write, before the copy has landed.
[[gnu::noinline, gnu::cold]] void fail_pending(Exec& x, Warp& w, const Instr& in, int l, uint32_t word, const char* what) {
  const uint64_t a = x.async[word];
  const int32_t a_pc = int32_t(uint32_t(a)) - 1;
  const uint32_t a_warp = uint32_t(a >> 32) & 0xff, a_lane = uint32_t(a >> 40) & 0xff;
  const uint64_t off = uint64_t(word) * 4;
  const std::string var = shared_var_at(x, off);
  const bool mine = a_warp == w.id && a_lane == uint32_t(l);
  const std::string who = mine ? "this thread" : "thread " + dim(thread_of(x.block, a_warp * 32 + a_lane)) +
                                                    " (warp " + std::to_string(a_warp) + ")";
  const std::string copy = "the cp.async at line " + std::to_string(line_of(x.P, a_pc)) + " by " + who;
  x.fail("shared-race", std::string("shared-memory race on ") + var + ": this " + what + " by warp " + std::to_string(w.id) +
                            " touches it before " + copy + " has landed (" +
                            (mine ? "cp.async.wait_group / wait_all first" : "its thread must wait for the copy's group, then a barrier") + ")",
         w, l, in);
  x.err.address = off;
  x.err.allocation = var;
  x.err.offset = int64_t(off);
  x.err.detail = copy + " has not landed";
}

// An access racing with another warp's write or read since the last barrier.
[[gnu::noinline, gnu::cold]] void fail_race(Exec& x, Warp& w, const Instr& in, int l, uint32_t word, const char* what,
                                            const RaceWord& r, int other_warp, int other_lane, int other_pc, const char* other_what) {
  const uint64_t off = uint64_t(word) * 4;
  const std::string var = shared_var_at(x, off);
  std::string who = "another warp";
  const int oline = line_of(x.P, other_pc);
  if (other_warp >= 0) {
    Dim3 t = thread_of(x.block, uint32_t(other_warp) * 32 + uint32_t(other_lane));
    who = "thread " + dim(t) + " (warp " + std::to_string(other_warp) + ")";
  } else if (r.r_warp == kManyWarps) {
    who = "threads of several warps, first " + dim(thread_of(x.block, uint32_t(r.r_lane)));
  }
  x.fail("shared-race", std::string("shared-memory race on ") + var + ": this " + what + " by warp " + std::to_string(w.id) +
                            " and " + who + " that " + other_what + " it at line " + std::to_string(oline) +
                            " with no barrier between",
         w, l, in);
  x.err.address = off;
  x.err.allocation = var;
  x.err.offset = int64_t(off);
  x.err.detail = who + " " + other_what + " it at line " + std::to_string(oline);
}

// A global access outside every allocation: names the allocation it missed.
[[gnu::noinline, gnu::cold]] void fail_global_bounds(Exec& x, Warp& w, const Instr& in, int l, uint32_t n, const char* sname,
                                                     const char* what) {
  const uint64_t a = x.addr[l];
  const Allocation* al = x.mem->nearest(a);
  std::string msg = std::string("out-of-bounds ") + sname + " " + what + " of " + std::to_string(n) + " bytes at " + hex(a);
  if (al) {
    int64_t off = int64_t(a - al->base);
    uint64_t end = al->base + al->size;
    msg += a >= end ? ": " + std::to_string(a + n - end) + " bytes past the end of " + al->label
                    : ": offset " + std::to_string(off) + " of " + al->label + " (" + std::to_string(al->size) + " bytes)";
    x.fail("out-of-bounds", msg, w, l, in);
    x.err.allocation = al->label;
    x.err.offset = off;
  } else {
    x.fail("out-of-bounds", msg + ": no allocation there", w, l, in);
  }
  x.err.address = a;
}

// The race check of one shared access (addresses in x.addr[]): a word written by another warp, or
// read by another warp before this write, since the block's last barrier (atomics are exempt);
// with Async, also any access to a word that a cp.async will write but that has not landed, and
// the marking of a cp.async's words. Returns false (and fails) on a race.
template <bool Async>
bool shared_races(Exec& x, Warp& w, const Instr& in, uint32_t m, uint32_t bytes, Access kind, const char* what, int32_t ipc) {
  const uint8_t me = uint8_t(w.id);
  const int nw = int((bytes + 3) / 4);
  const bool writes = kind == Access::Store || kind == Access::AsyncStore;
  const uint32_t epoch = x.epoch;
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    const int l = __builtin_ctz(mm);
    for (int k = 0; k < nw; ++k) {
      const uint32_t word = uint32_t(x.addr[l] >> 2) + uint32_t(k);
      RaceWord& r = x.race[word];
      if (Async && x.async[word]) {
        fail_pending(x, w, in, l, word, what);
        return false;
      }
      if (Async && kind == Access::Atomic) continue;
      if (r.w_epoch == epoch && r.w_warp != me) {
        fail_race(x, w, in, l, word, what, r, r.w_warp, r.w_lane, r.w_pc, "wrote");
        return false;
      }
      if (writes && r.r_epoch == epoch && r.r_warp != me) {
        fail_race(x, w, in, l, word, what, r, r.r_warp == kManyWarps ? -2 : r.r_warp, r.r_lane, r.r_pc, "read");
        return false;
      }
      if (Async && kind == Access::AsyncStore) {
        x.async[word] = async_mark(ipc, me, uint32_t(l));
        ++x.async_words;
      } else if (kind == Access::Store) {
        r.w_epoch = epoch, r.w_warp = me, r.w_lane = uint8_t(l), r.w_pc = ipc;
      } else if (r.r_epoch != epoch) {
        r.r_epoch = epoch, r.r_warp = me, r.r_lane = uint8_t(l), r.r_pc = ipc;
      } else if (r.r_warp != me && r.r_warp != kManyWarps) {
        r.r_lane = uint8_t(r.r_warp * 32 + r.r_lane > 255 ? 0 : r.r_warp * 32 + r.r_lane);
        r.r_warp = kManyWarps;
      }
    }
  }
  return true;
}

}  // namespace

uint8_t* Exec::global_ptr(uint64_t a, uint64_t size) {
  for (auto& c : cache)
    if (c.host && a >= c.base && a - c.base <= c.size && size <= c.size - (a - c.base)) return c.host + (a - c.base);
  const Allocation* al = mem->nearest(a);
  if (al && a >= al->base && a - al->base <= al->size && size <= al->size - (a - al->base)) {
    if (uint8_t* h = mem->translate(al->base, al->size)) {
      cache[cache_next++ & 3] = {al->base, al->size, h};
      return h + (a - al->base);
    }
  }
  return mem->translate(a, size);
}

void Exec::fail(const std::string& kind, const std::string& msg, Warp& w, int lane, const Instr& in) {
  if (failed) return;
  failed = true;
  err = SimError{};
  err.kind = kind;
  err.block = ctaid;
  err.thread = thread_of(block, w.id * 32 + uint32_t(lane));
  const LineKey& lk = P->lines[in.line_id];
  err.file = lk.file;
  err.line = lk.line;
  size_t slash = lk.file.rfind('/');
  std::string where = (slash == std::string::npos ? lk.file : lk.file.substr(slash + 1)) + ":" + std::to_string(lk.line);
  err.message = msg + " at " + where + ", block " + dim(ctaid) + " thread " + dim(err.thread) + " (`" +
                P->text[&in - P->code.data()] + "`)";
}

static const char* op_name(const Instr& in, Access kind) {
  if (kind == Access::Atomic) return (in.flags & kResultUnused) ? "red" : "atom";
  return kind == Access::Load ? "ld" : "st";
}

bool Exec::access(Warp& w, const Instr& in, uint32_t m, uint32_t bytes, Access kind, Space space, const uint8_t* lane_bytes) {
  Space s = space == Space(0xff) ? in.space : space;
  const int first = __builtin_ctz(m);
  if (s == Space::Generic) {
    auto space_of = [](uint64_t a) {
      return a - kSharedWindow < (1ull << 32) ? Space::Shared : a - kLocalWindow < (1ull << 32) ? Space::Local : Space::Global;
    };
    s = space_of(addr[first]);
    bool mixed = false;
    each_lane(m, [&](int l) { mixed |= space_of(addr[l]) != s; });
    if (mixed) {
      fail("unsupported", "one generic access that mixes state spaces across lanes", w, first, in);
      return false;
    }
    uint64_t window = s == Space::Shared ? kSharedWindow : s == Space::Local ? kLocalWindow : 0;
    if (window) each_lane(m, [&](int l) { addr[l] -= window; });
  }
  resolved = s;
  const char* what = kind == Access::Load ? "load" : kind == Access::Store ? "store" : kind == Access::AsyncStore ? "cp.async store" : "atomic";
  // Alignment: every access must be aligned to its own size.
  uint64_t bad_align = 0;
  int bad_lane = -1;
  each_lane(m, [&](int l) {
    if ((addr[l] & (bytes - 1)) && bad_lane < 0) { bad_lane = l; bad_align = addr[l]; }
  });
  const char* sname = s == Space::Shared ? "shared" : s == Space::Local ? "local" : s == Space::Const ? "constant" : "global";
  if (bad_lane >= 0) {
    fail("misaligned", std::string("misaligned ") + sname + " " + what + " of " + std::to_string(bytes) + " bytes at address " +
                           hex(bad_align) + " (not a multiple of " + std::to_string(bytes) + ")",
         w, bad_lane, in);
    err.address = bad_align;
    if (s == Space::Global || s == Space::Const) {
      if (const Allocation* al = mem->nearest(bad_align)) { err.allocation = al->label; err.offset = int64_t(bad_align - al->base); }
    }
    return false;
  }
  const size_t pc = size_t(&in - P->code.data());
  InstrCounters& c = ctr[pc];
  SampleSlot& smp = samples[in.line_id];
  auto sample = [&](const char* space, bool shared_offsets) {
    if (block_linear >= smp.block) return;
    smp.block = block_linear;
    WarpAccessSample& S = smp.sample;
    S.space = space;
    S.op = op_name(in, kind);
    S.bytes_per_lane = bytes;
    S.active_mask = m;
    for (int l = 0; l < 32; ++l) S.address[l] = (m >> l & 1) ? addr[l] : 0;
    (void)shared_offsets;
    S.block = ctaid;
    S.warp = w.id;
  };
  if (s == Space::Global || s == Space::Const) {
    // The usual warp access lies inside one allocation: one lookup for the whole span of its lanes
    // instead of one per lane. Anything else (lanes in several allocations, a lane out of bounds,
    // cp.async's per-lane sizes) takes the per-lane path, which names the first bad lane.
    uint8_t* span = nullptr;
    uint64_t lo = ~0ull, hi = 0;
    if (lane_bytes == nullptr) {
      each_lane(m, [&](int l) {
        lo = std::min(lo, addr[l]);
        hi = std::max(hi, addr[l]);
      });
      if (hi + bytes > hi) span = global_ptr(lo, hi + bytes - lo);
    }
    bool ok = true;
    if (span) each_lane(m, [&](int l) { hptr[l] = span + (addr[l] - lo); });
    else each_lane(m, [&](int l) {
      if (!ok) return;
      const uint32_t n = lane_bytes == nullptr ? bytes : lane_bytes[l];
      uint8_t* h = global_ptr(addr[l], n);
      if (!h) {
        ok = false;
        fail_global_bounds(*this, w, in, l, n, sname, what);
      }
      hptr[l] = h;
    });
    if (!ok) return false;
    if (s == Space::Global) {
      ++c.g_inst;
      ++c.g_requests;
      const uint32_t sectors = kind == Access::Atomic ? atomic_sectors(addr, m, bytes) : distinct_sectors(addr, m, bytes, lane_bytes);
      c.g_sectors += sectors;
      c.g_bytes += std::min<uint64_t>(uint64_t(__builtin_popcount(m)) * bytes, uint64_t(sectors) * 32);
      if (partial && kind == Access::Store) {
        partial_sectors(addr, m, bytes, *partial);
        // The 2 KB DRAM page the store writes (its lowest address) and how many bytes: whether
        // a block's writes fill pages, alone or with its launch-order neighbour (module.cpp).
        uint64_t lo = ~0ull;
        each_lane(m, [&](int l) { lo = std::min(lo, addr[l]); });
        pages->push_back((lo >> 11) << 16 | std::min<uint64_t>(uint64_t(__builtin_popcount(m)) * bytes, 0xffff));
      }
      sample("global", false);
    }
    return true;
  }
  if (s == Space::Shared) {
    bool ok = true;
    each_lane(m, [&](int l) {
      if (ok && (addr[l] >= shared_size || shared_size - addr[l] < bytes)) {
        // A .shared address is 32 bits wide: [%r + 1536] wraps like the register arithmetic before it.
        const uint64_t a32 = uint32_t(addr[l]);
        if (in.space == Space::Shared && a32 < shared_size && shared_size - a32 >= bytes) {
          addr[l] = a32;
          return;
        }
        ok = false;
        fail("out-of-bounds", std::string("out-of-bounds shared ") + what + " of " + std::to_string(bytes) + " bytes at offset " +
                                  std::to_string(int64_t(addr[l])) + " (the block has " + std::to_string(shared_size) + " bytes of shared memory)",
             w, l, in);
        err.address = addr[l];
        err.allocation = "shared memory";
        err.offset = int64_t(addr[l]);
      }
    });
    if (!ok) return false;
    // Race check (shared_races): every access against the last writer and readers since the
    // block's last barrier, and against cp.async copies that have not landed.
    const bool async = async_words != 0 || kind == Access::AsyncStore;
    if (!(async ? shared_races<true>(*this, w, in, m, bytes, kind, what, int32_t(pc))
                : kind == Access::Atomic || shared_races<false>(*this, w, in, m, bytes, kind, what, int32_t(pc))))
      return false;
    each_lane(m, [&](int l) { hptr[l] = shared + addr[l]; });
    // A pair ptxas merges (issue.cpp) is one access of twice the width, counted on its first half.
    if (!(in.issue & kIssuePaired)) {
      ++c.s_inst;
      const uint32_t counted = (in.issue & kIssuePairLead) ? 2 * bytes : bytes;
      const uint64_t before = c.s_wavefronts;
      if (kind == Access::AsyncStore) async_store_wavefronts(addr, async_line, m, counted, c.s_wavefronts, c.s_ideal);
      else if (kind != Access::Atomic) shared_wavefronts(addr, m, counted, c.s_wavefronts, c.s_ideal);
      shared_busy += c.s_wavefronts - before;
      sample("shared", true);
    }
    return true;
  }
  if (s == Space::Local) {
    bool ok = true;
    each_lane(m, [&](int l) {
      if (ok && (addr[l] >= local_per_lane || local_per_lane - addr[l] < bytes)) {
        ok = false;
        fail("out-of-bounds", std::string("out-of-bounds local ") + what + " of " + std::to_string(bytes) + " bytes at offset " +
                                  std::to_string(int64_t(addr[l])) + " of a thread's " + std::to_string(local_per_lane) + "-byte local frame",
             w, l, in);
        err.address = addr[l];
        err.allocation = "local memory";
        err.offset = int64_t(addr[l]);
      }
      hptr[l] = local + (size_t(w.id) * 32 + size_t(l)) * local_per_lane + addr[l];
    });
    return ok;
  }
  fail("unsupported", "access to this state space", w, first, in);
  return false;
}

// --------------------------------------------------------------------------------------------
// cp.async completion: a landed copy writes shared memory and counts as its thread's write from now
// on, so other warps see it only after a barrier (the ordinary race check).

void Exec::land_copies(Warp& w, uint32_t lanes, int keep) {
  size_t out = 0;
  for (size_t i = 0; i < w.copies.size(); ++i) {
    AsyncCopy& c = w.copies[i];
    const bool due = (lanes >> c.lane & 1) && (keep < 0 || int64_t(c.group) < int64_t(w.committed[c.lane]) - keep);
    if (!due) { w.copies[out++] = c; continue; }
    memcpy(shared + c.dst, c.data, c.bytes);
    for (uint32_t k = 0; k < (c.bytes + 3u) / 4; ++k) {
      RaceWord& r = race[c.dst / 4 + k];
      async[c.dst / 4 + k] = 0;
      --async_words;
      r.w_epoch = epoch, r.w_warp = uint8_t(w.id), r.w_lane = c.lane, r.w_pc = c.pc;
    }
  }
  w.copies.resize(out);
}

void Exec::drop_copies(Warp& w) {
  for (const AsyncCopy& c : w.copies)
    for (uint32_t k = 0; k < (c.bytes + 3u) / 4; ++k) async[c.dst / 4 + k] = 0, --async_words;
  w.copies.clear();
}

// --------------------------------------------------------------------------------------------
// Device printf (CUDA's ABI: the format's address, then a buffer of 8-byte-aligned arguments).

void Exec::vprintf(Warp& w, const Instr& in, uint32_t m, const CallSite& cs) {
  if (cs.arg_slots.size() < 2) { fail("unsupported", "vprintf with unexpected arguments", w, __builtin_ctz(m), in); return; }
  const uint64_t* fmt_slot = w.src(cs.arg_slots[0]);
  const uint64_t* arg_slot = w.src(cs.arg_slots[1]);
  uint64_t* ret = cs.ret_slots.empty() ? nullptr : w.reg(cs.ret_slots[0]);
  for (uint32_t mm = m; mm && !failed; mm &= mm - 1) {
    int l = __builtin_ctz(mm);
    auto read = [&](uint64_t a, void* out, uint32_t n) -> bool {
      if (a - kLocalWindow < (1ull << 32)) {
        uint64_t o = a - kLocalWindow;
        if (o + n > local_per_lane) return false;
        memcpy(out, local + (size_t(w.id) * 32 + size_t(l)) * local_per_lane + o, n);
        return true;
      }
      if (a - kSharedWindow < (1ull << 32)) {
        uint64_t o = a - kSharedWindow;
        if (o + n > shared_size) return false;
        memcpy(out, shared + o, n);
        return true;
      }
      uint8_t* h = global_ptr(a, n);
      if (!h) return false;
      memcpy(out, h, n);
      return true;
    };
    auto read_str = [&](uint64_t a, std::string& s) {
      for (int i = 0; i < 4096; ++i) {
        char ch;
        if (!read(a + uint64_t(i), &ch, 1)) return false;
        if (!ch) return true;
        s += ch;
      }
      return true;
    };
    std::string fmt, out;
    if (!read_str(fmt_slot[l], fmt)) { fail("out-of-bounds", "printf format string not readable", w, l, in); return; }
    uint64_t ap = arg_slot[l];
    uint64_t off = 0;
    auto next_arg = [&](uint32_t size) -> uint64_t {
      off = (off + size - 1) / size * size;
      uint64_t v = 0;
      if (!read(ap + off, &v, size)) fail("out-of-bounds", "printf argument buffer not readable", w, l, in);
      off += size;
      return v;
    };
    for (size_t i = 0; i < fmt.size() && !failed; ++i) {
      if (fmt[i] != '%') { out += fmt[i]; continue; }
      size_t j = i + 1;
      if (j < fmt.size() && fmt[j] == '%') { out += '%'; i = j; continue; }
      while (j < fmt.size() && strchr("-+ #0123456789.*", fmt[j])) ++j;
      std::string len;
      while (j < fmt.size() && strchr("hlLqjzt", fmt[j])) len += fmt[j++];
      if (j >= fmt.size()) break;
      char conv = fmt[j];
      std::string spec = fmt.substr(i, j - i - len.size()) ;
      char buf[512];
      if (strchr("fFeEgGaA", conv)) {
        uint64_t bits = next_arg(8);
        double d;
        memcpy(&d, &bits, 8);
        snprintf(buf, sizeof buf, (spec + conv).c_str(), d);
      } else if (conv == 's') {
        std::string s;
        uint64_t p = next_arg(8);
        if (!read_str(p, s)) s = "(bad string)";
        snprintf(buf, sizeof buf, (spec + 's').c_str(), s.c_str());
      } else if (conv == 'p') {
        snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)next_arg(8));
      } else if (strchr("diouxXc", conv)) {
        bool wide = len.find('l') != std::string::npos || len == "z" || len == "j" || len == "t" || len == "q";
        uint64_t v = next_arg(wide ? 8 : 4);
        if (strchr("di", conv)) {
          long long sv = wide ? (long long)int64_t(v) : (long long)int32_t(uint32_t(v));
          snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), sv);
        } else if (conv == 'c') {
          snprintf(buf, sizeof buf, (spec + 'c').c_str(), int(v));
        } else {
          unsigned long long uv = wide ? (unsigned long long)v : (unsigned long long)uint32_t(v);
          snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), uv);
        }
      } else {
        buf[0] = 0;
        out += fmt.substr(i, j - i + 1);
      }
      out += buf;
      i = j;
    }
    // Like the GPU's printf FIFO (1 MiB by default), a launch's output is bounded: what does not fit
    // is dropped, so a kernel that prints in a loop cannot grow the process without end.
    if (printf_out.size() + out.size() <= kPrintfLimit) printf_out += out;
    if (ret) ret[l] = out.size();
  }
}

}  // namespace sim::eng
