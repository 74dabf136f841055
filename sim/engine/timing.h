// Each block's critical path in cycles, for the time model's latency bound (sim/model). How a warp
// moves through its instructions, as the SASS ptxas schedules them (sim/model/README.md):
// - arithmetic and loads issue when their operands are ready (ptxas hoists loads and unrolls
//   loops, so program order does not hold them back), loads not before the warp's last forward
//   branch (ptxas does not hoist a load out of a real branch) and with at most `loads` global
//   loads in flight;
// - stores and branches issue in program order, a store when its data is ready: a load after a
//   branch that follows a store waits for the store's data (two round trips to memory);
// - nothing issues before the block's last barrier, which releases `barrier` cycles after its
//   last warp arrives (shared stores landed).
// A result is ready `latency` cycles after issue (engine.h Latencies). The block takes as long as
// its slowest warp's last result or ordered issue.
#pragma once

#include <algorithm>

#include "exec.h"

namespace sim::eng {

inline void time_instr(Warp& w, const Instr& in, int32_t pc, const Latencies& L) {
  if (in.issue & kIssuePaired) return;  // one instruction with its pair
  const uint32_t frame = uint32_t((w.base[0] - w.regfile.data()) / 32);
  auto slot = [&](uint16_t s) -> uint32_t* {
    if (s == kNoSlot || (s & ~kSlotIndex) != kSlotReg) return nullptr;
    const uint32_t i = frame + (s & kSlotIndex);
    return i < w.ready.size() ? &w.ready[i] : nullptr;
  };
  // Operand slots by role: a[] are sources; d[] are destinations, except for a store, whose d[]
  // holds the values it stores (ops.cpp, dec_st).
  const bool store = in.cls == kMem && in.memop == kOpSt;
  const bool load = in.cls == kMem && !store && (in.lat == kLatGlobal || in.lat == kLatShared);
  const bool ordered = store || in.cls == kBra || in.cls == kExit || in.cls == kCall || in.cls == kRet;
  uint32_t t = w.t_floor;
  for (int k = 0; k < 4; ++k) {
    if (const uint32_t* r = slot(in.a[k])) t = std::max(t, *r);
    if (store)
      if (const uint32_t* r = slot(in.d[k])) t = std::max(t, *r);
  }
  if (const uint32_t* r = slot(in.guard)) t = std::max(t, *r);
  if (ordered) t = std::max(t, w.t_order);
  if (load) t = std::max(t, w.t_fence);
  uint32_t lat = 0;
  switch (in.lat) {
    case kLatAlu: lat = L.alu; break;
    case kLatSfu: lat = L.sfu; break;
    case kLatShared: lat = L.shared; break;
    case kLatGlobal: lat = L.global; break;
    case kLatWarp: lat = L.warp; break;
    default: break;
  }
  // A warp keeps at most `loads` global loads in flight: the next waits for the oldest.
  if (in.lat == kLatGlobal && load && !w.loads_done.empty()) {
    uint32_t& oldest = w.loads_done[w.loads_next];
    t = std::max(t, oldest);
    oldest = t + lat;
    w.loads_next = (w.loads_next + 1) % uint32_t(w.loads_done.size());
  }
  bool writes = false;
  if (!store)
    for (int k = 0; k < 4; ++k)
      if (uint32_t* r = slot(in.d[k])) *r = t + lat, writes = true;
  ++w.issued;
  if (ordered) w.t_order = t;
  if (in.cls == kBra && in.target > pc) w.t_fence = std::max(w.t_fence, t);
  // Stores are fire-and-forget for the warp; shared ones land before a barrier releases.
  w.t_arrive = std::max(w.t_arrive, t + (store && in.lat == kLatShared ? L.shared : 1));
  if (writes) w.t_done = std::max(w.t_done, t + lat);
}

}  // namespace sim::eng
