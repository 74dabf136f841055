// What ptxas does to the PTX, as far as Nsight Compute's instruction counts can see it. The
// simulator runs PTX, but the GPU issues SASS, and two of ptxas's transformations change what a
// warp issues (evidence: sim/model/sass_corpus.py over the project's kernels, sim/model/README.md):
//
// 1. If-conversion. A short forward branch around a straight-line body becomes predicated
//    instructions: every warp that reaches the branch issues the body, even when all its lanes
//    are off, and issues no branch. Which bodies ptxas predicates was read off the SASS of 52
//    files (1152 conditional forward branches; the rule agrees on 1144); see if_converted().
// 2. Paired shared-memory accesses. Two scalar ld.shared (or st.shared) at [base+o] and
//    [base+o+w], with base+o provably a multiple of 2w, become one 2w-byte access (LDS.64): one
//    instruction, whose wavefronts are those of the wider access.
//
// The executor (module.cpp, exec.cpp) applies the marks set here; nothing here changes what a
// program computes.
#include <algorithm>
#include <set>
#include <string>

#include "program.h"

namespace sim::eng {
namespace {

std::string opcode_of(const std::string& text) {
  size_t b = text.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  if (text[b] == '@') b = text.find_first_of(" \t", b), b = text.find_first_not_of(" \t", b);
  if (b == std::string::npos) return "";
  size_t e = text.find_first_of(" \t", b);
  return text.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

std::string base_of(const std::string& opcode) { return opcode.substr(0, opcode.find('.')); }

bool is_reg(uint16_t s) { return s != kNoSlot && (s & ~kSlotIndex) == kSlotReg; }
bool is_const(uint16_t s) { return s != kNoSlot && (s & ~kSlotIndex) == kSlotConst; }

// Low bits known to be zero in each register slot of one function (at most 32, the most an
// access alignment needs), by an optimistic fixed point over every definition of the register.
struct TrailingZeros {
  const Program& P;
  std::vector<int> tz;  // per register slot

  int of(uint16_t s) const {
    if (is_const(s)) {
      uint64_t v = P.consts[s & kSlotIndex];
      return v == 0 ? 32 : std::min(32, __builtin_ctzll(v));
    }
    if (is_reg(s) && (s & kSlotIndex) < tz.size()) return tz[s & kSlotIndex];
    return 0;  // special registers, the depot, anything unknown
  }

  int eval(const Instr& in, const std::string& op) const {
    const std::string b = base_of(op);
    auto a = [&](int i) { return of(in.a[i]); };
    if (b == "mov" || b == "cvt" || b == "cvta") return a(0);
    if (b == "shl") return is_const(in.a[1]) ? std::min(32, a(0) + int(P.consts[in.a[1] & kSlotIndex])) : a(0);
    if (b == "mul") return std::min(32, a(0) + a(1));
    if (b == "mad") return std::min(std::min(32, a(0) + a(1)), a(2));
    if (b == "add" || b == "sub" || b == "or" || b == "xor" || b == "min" || b == "max") return std::min(a(0), a(1));
    if (b == "and") return std::max(a(0), a(1));
    return 0;
  }

  TrailingZeros(const Program& p, const Function& f) : P(p), tz(f.nregs, 32) {
    // Registers never written stay "known zero" (32): reading them is undefined anyway.
    for (bool changed = true; changed;) {
      changed = false;
      for (int pc = f.begin; pc < f.end; ++pc) {
        const Instr& in = P.code[pc];
        for (int k = 0; k < in.nd; ++k) {
          uint16_t d = in.d[k];
          if (!is_reg(d) || (d & kSlotIndex) >= tz.size()) continue;
          int v = k == 0 && in.cls == kAlu ? eval(in, opcode_of(P.text[pc])) : 0;
          int& cur = tz[d & kSlotIndex];
          if (v < cur) cur = v, changed = true;
        }
      }
    }
  }
};

// Branch targets inside [begin, end) other than `except`: a body that something else jumps into is
// not straight-line code.
bool jumped_into(const Program& P, const Function& f, int begin, int end, int branch) {
  for (int pc = f.begin; pc < f.end; ++pc) {
    const Instr& in = P.code[pc];
    if (pc != branch && in.cls == kBra && in.target > begin && in.target < end) return true;
  }
  return false;
}

// The corpus rule: ptxas predicates a forward branch's body when the body is straight-line code
// (no branch, barrier, call, exit or warp-synchronous instruction), does not end the kernel (a
// branch to the final ret becomes `@P EXIT`), and is short (cvta not counted: it folds into the
// address). How short depends on what it holds:
// bodies that store to global memory after a shared-memory load stay branches beyond 3 PTX
// instructions (C3's stage 2), other global stores beyond 10; anything else is predicated up to
// 15 instructions (C3's stage 1, C2's reduction rounds).
bool if_converted(const Program& P, const Function& f, int pc) {
  const Instr& br = P.code[pc];
  if (br.cls != kBra || br.guard == kNoSlot || br.target <= pc + 1 || br.target >= f.end) return false;
  const int begin = pc + 1, end = br.target;
  const Instr& after = P.code[end];
  if (after.cls == kExit || after.cls == kRet) return false;
  bool lds = false, ldg = false, stg = false;
  int length = 0;  // SASS-bearing instructions: cvta becomes part of the address (no instruction)
  for (int k = begin; k < end; ++k) {
    const Instr& in = P.code[k];
    if (in.cls != kAlu && in.cls != kMem && in.cls != kNop) return false;
    length += base_of(opcode_of(P.text[k])) != "cvta";
    if (in.cls != kMem) continue;
    const bool global = in.space == Space::Global || in.space == Space::Generic;
    if (in.memop == kOpLd && in.space == Space::Shared) lds = true;
    if (in.memop == kOpLd && global) ldg = true;
    if (in.memop != kOpLd && global) stg = true;
  }
  if (jumped_into(P, f, begin, end, pc)) return false;
  if (stg && !ldg) return length <= (lds ? 3 : 10);
  if (stg) return length <= 10;
  return length <= 15;
}

// Pairs of scalar shared accesses ptxas turns into one access twice as wide.
void pair_shared_accesses(Program& P, const Function& f, const TrailingZeros& tz) {
  std::set<int> targets;
  for (int pc = f.begin; pc < f.end; ++pc)
    if (P.code[pc].cls == kBra && P.code[pc].target >= 0) targets.insert(P.code[pc].target);
  for (int pc = f.begin; pc < f.end; ++pc) {
    Instr& lead = P.code[pc];
    if (lead.cls != kMem || lead.space != Space::Shared || lead.vec != 1 || (lead.issue & kIssuePaired) ||
        (lead.memop != kOpLd && lead.memop != kOpSt) || (lead.bytes != 4 && lead.bytes != 8))
      continue;
    const int w = lead.bytes;
    if (lead.imm % (2 * w) != 0 || tz.of(lead.a[0]) < (w == 4 ? 3 : 4)) continue;
    for (int k = pc + 1; k < f.end && !targets.count(k); ++k) {
      Instr& in = P.code[k];
      if (in.cls != kAlu && in.cls != kMem) break;
      if (in.cls == kMem) {
        const bool same_kind = in.memop == lead.memop && in.space == Space::Shared && in.vec == 1 && in.bytes == w;
        if (same_kind && in.a[0] == lead.a[0] && in.imm == lead.imm + w && in.guard == lead.guard &&
            in.guard_neg == lead.guard_neg) {
          lead.issue |= kIssuePairLead;
          in.issue |= kIssuePaired;
          break;
        }
        if (in.memop != kOpLd || lead.memop != kOpLd) break;  // a store between: keep the order
      }
      // The base register must not change between the two.
      bool writes_base = false;
      for (int d = 0; d < in.nd; ++d) writes_base |= in.d[d] == lead.a[0];
      if (writes_base) break;
    }
  }
}

uint8_t latency_class(const Instr& in, const std::string& op) {
  switch (in.cls) {
    case kMem:
      if (in.space == Space::Shared) return kLatShared;
      if (in.space == Space::Param || in.space == Space::KParam) return kLatAlu;  // constant bank
      return kLatGlobal;
    case kWarpSync: return kLatWarp;
    case kAlu: {
      static const std::set<std::string> slow = {"div", "rem", "sqrt", "rsqrt", "rcp", "ex2", "lg2", "sin", "cos", "tanh"};
      return (in.flags & kApprox) || slow.count(base_of(op)) ? kLatSfu : kLatAlu;
    }
    default: return kLatNone;
  }
}

}  // namespace

void model_issue(Program& P) {
  for (size_t pc = 0; pc < P.code.size(); ++pc) P.code[pc].lat = latency_class(P.code[pc], opcode_of(P.text[pc]));
  for (const Function& f : P.funcs) {
    if (f.is_extern || !f.unsupported.empty() || f.end <= f.begin) continue;
    for (int pc = f.begin; pc < f.end; ++pc)
      if (if_converted(P, f, pc)) P.code[pc].issue |= kIssueIfConverted;
    TrailingZeros tz(P, f);
    pair_shared_accesses(P, f, tz);
  }
}

}  // namespace sim::eng
