// Helpers every opcode decoder uses: modifiers that must all be understood, operand counts,
// operand lists. Shared by ops.cpp, ops_half.cpp and ops_tensor.cpp.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "decode.h"

namespace sim::eng {

struct Mods {
  const ParsedInstr& p;
  std::vector<bool> used;
  explicit Mods(const ParsedInstr& pi) : p(pi), used(pi.mods.size(), false) {}
  bool has(const char* m) {
    for (size_t i = 0; i < p.mods.size(); ++i)
      if (p.mods[i] == m) { used[i] = true; return true; }
    return false;
  }
  // The types named in the modifiers, in order.
  std::vector<Ty> types() {
    std::vector<Ty> t;
    for (size_t i = 0; i < p.mods.size(); ++i) {
      Ty x = parse_ty(p.mods[i]);
      if (x != Ty::None) { t.push_back(x); used[i] = true; }
    }
    return t;
  }
  Ty type(DecodeCtx& c) {
    auto t = types();
    if (t.size() != 1) c.unsupported(p, "expected one type");
    return t[0];
  }
  uint8_t rounding() {
    static const std::map<std::string, uint8_t> r = {{"rn", kRn}, {"rz", kRz}, {"rm", kRm}, {"rp", kRp}, {"rni", kRni},
                                                     {"rzi", kRzi}, {"rmi", kRmi}, {"rpi", kRpi}, {"rna", kRna}};
    for (size_t i = 0; i < p.mods.size(); ++i) {
      auto it = r.find(p.mods[i]);
      if (it != r.end()) { used[i] = true; return it->second; }
    }
    return kRndDefault;
  }
  uint16_t float_flags() {
    uint16_t f = 0;
    if (has("ftz")) f |= kFtz;
    if (has("sat")) f |= kSat;
    if (has("approx") || has("full")) f |= kApprox;
    return f;
  }
  // Every modifier must have been understood: an unknown one is unsupported, not ignored.
  void done(DecodeCtx& c, std::initializer_list<const char*> ignorable = {}) {
    for (size_t i = 0; i < p.mods.size(); ++i) {
      if (used[i]) continue;
      bool ok = false;
      for (auto* g : ignorable) ok = ok || p.mods[i] == g;
      if (!ok) c.unsupported(p, "modifier ." + p.mods[i]);
    }
  }
};

inline void need(DecodeCtx& c, const ParsedInstr& p, size_t n) {
  if (p.ops.size() != n) c.unsupported(p, "expected " + std::to_string(n) + " operands");
}
inline void handler(DecodeCtx& c, const ParsedInstr& p, Instr& in, Handler h) {
  if (!h) c.unsupported(p, "type not supported for this operation");
  in.fn = h;
}
// d, a[, b[, c]] with every source of type t
inline void operands(DecodeCtx& c, const ParsedInstr& p, Instr& in, Ty t, std::initializer_list<Ty> src_types = {}) {
  in.d[0] = c.dst(p.ops[0]);
  in.nd = 1;
  for (size_t i = 1; i < p.ops.size(); ++i) {
    Ty st = i - 1 < src_types.size() ? *(src_types.begin() + (i - 1)) : t;
    in.a[i - 1] = c.src(p.ops[i], st);
  }
  in.na = uint8_t(p.ops.size() - 1);
}

}  // namespace sim::eng
