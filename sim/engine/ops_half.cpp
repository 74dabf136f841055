// Half precision: the f16, bf16, f16x2 and bf16x2 forms of add, sub, mul, fma, min, max, neg, abs,
// setp and set, and every cvt that has a 16-bit float or tf32 on either side. Each result is
// the exact value rounded once (half_format.h), so results are bit-exact with the GPU; NaN results
// are the canonical NaN (0x7fff), as on the GPU.
//
// The rows here are found by find_half_row() before the opcode's ordinary row (ops.cpp), whenever
// one of the instruction's modifiers names a 16-bit float type.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "decode_util.h"
#include "exec.h"
#include "half_format.h"
#include "values.h"

namespace sim::eng {
namespace {

// mode2 bits of a half-precision instruction
enum : uint8_t { hRelu = 1, hNaN = 2, hSatfinite = 4 };

bool is_half_ty(Ty t) { return t == Ty::F16 || t == Ty::BF16 || t == Ty::F16x2 || t == Ty::BF16x2 || t == Ty::TF32; }
bool is_x2(Ty t) { return t == Ty::F16x2 || t == Ty::BF16x2; }
const Fmt& fmt_of(Ty t) {
  switch (t) {
    case Ty::BF16: case Ty::BF16x2: return kBF16;
    case Ty::TF32: return kTF32;
    case Ty::F32: return kF32;
    default: return kF16;
  }
}
uint8_t rnd_or_rn(uint8_t r) { return r == kRndDefault ? uint8_t(kRn) : r; }

uint32_t half_of(uint64_t v, int i) { return uint32_t(v >> (16 * i)) & 0xffffu; }

// .ftz on an input: subnormals become sign-preserving zero.
uint32_t flush_in(uint32_t b, const Fmt& f, const Instr& in) {
  return (in.flags & kFtz) && is_subnormal(b, f) ? (b & f.sign_bit()) : b;
}
// Result modifiers, in the order the PTX ISA states them.
uint32_t finish(uint32_t r, const Fmt& f, const Instr& in) {
  const bool nan = is_nan(r, f);
  if (in.flags & kSat) {  // [0, 1]; NaN becomes +0
    if (nan || (r & f.sign_bit())) return 0;
    return decode(r, f) > 1.0 ? round_to(1.0, f, kRn) : r;
  }
  if (nan) return f.nan();
  if ((in.flags & kFtz) && is_subnormal(r, f)) r &= f.sign_bit();
  if ((in.mode2 & hRelu) && (r & f.sign_bit())) r = 0;
  if ((in.mode2 & hSatfinite) && (r & (f.sign_bit() - 1)) == f.inf()) r = (r & f.sign_bit()) | f.max_finite();
  return r;
}

// ---------------------------------------------------------------------------------------------
// add, sub, mul, fma: the exact result (TwoSum), rounded once.

struct HAdd { static Exact f(double a, double b, double) { return two_sum(a, b); } };
struct HSub { static Exact f(double a, double b, double) { return two_sum(a, -b); } };
struct HMul { static Exact f(double a, double b, double) { return {a * b, 0}; } };  // 22 bits at most: exact
struct HFma { static Exact f(double a, double b, double c) { return two_sum(a * b, c); } };

template <class Op, int N>
void h_arith(Exec&, Warp& w, const Instr& in, uint32_t m) {
  const Fmt& f = fmt_of(in.type);
  const int parts = is_x2(in.type) ? 2 : 1;
  const uint8_t rnd = rnd_or_rn(in.rnd);
  uint64_t* d = w.reg(in.d[0]);
  const uint64_t* s[3] = {w.src(in.a[0]), w.src(in.a[1]), N > 2 ? w.src(in.a[2]) : nullptr};
  each_lane(m, [&](int l) {
    uint64_t out = 0;
    for (int i = 0; i < parts; ++i) {
      double v[3] = {0, 0, 0};
      bool nan = false;
      for (int k = 0; k < N; ++k) {
        uint32_t b = flush_in(half_of(s[k][l], i), f, in);
        nan |= is_nan(b, f);
        v[k] = decode(b, f);
      }
      uint32_t r = nan ? f.nan() : round_to(Op::f(v[0], v[1], v[2]), f, rnd);
      out |= uint64_t(finish(r, f, in)) << (16 * i);
    }
    d[l] = out;
  });
}

// min / max: one of the inputs, chosen as the PTX ISA says (NaN loses unless .NaN; -0 < +0).
template <bool Max>
void h_minmax(Exec&, Warp& w, const Instr& in, uint32_t m) {
  const Fmt& f = fmt_of(in.type);
  const int parts = is_x2(in.type) ? 2 : 1;
  uint64_t* d = w.reg(in.d[0]);
  const uint64_t *sa = w.src(in.a[0]), *sb = w.src(in.a[1]);
  each_lane(m, [&](int l) {
    uint64_t out = 0;
    for (int i = 0; i < parts; ++i) {
      uint32_t a = flush_in(half_of(sa[l], i), f, in), b = flush_in(half_of(sb[l], i), f, in);
      const bool na = is_nan(a, f), nb = is_nan(b, f);
      uint32_t r;
      if ((na && nb) || ((in.mode2 & hNaN) && (na || nb))) r = f.nan();
      else if (na) r = b;
      else if (nb) r = a;
      else {
        double x = decode(a, f), y = decode(b, f);
        if (x == y) r = ((a & f.sign_bit()) != 0) == Max ? b : a;  // equal, or +0 against -0
        else r = (x < y) != Max ? a : b;
      }
      if ((in.flags & kFtz) && is_subnormal(r, f)) r &= f.sign_bit();
      out |= uint64_t(r) << (16 * i);
    }
    d[l] = out;
  });
}

// neg / abs: the sign bit only; a NaN gives the canonical NaN (the H200 does, 2026-12-01:
// sim/validation/tc_numerics.cu).
template <bool Abs>
void h_sign(Exec&, Warp& w, const Instr& in, uint32_t m) {
  const Fmt& f = fmt_of(in.type);
  const int parts = is_x2(in.type) ? 2 : 1;
  uint64_t* d = w.reg(in.d[0]);
  const uint64_t* a = w.src(in.a[0]);
  each_lane(m, [&](int l) {
    uint64_t out = 0;
    for (int i = 0; i < parts; ++i) {
      uint32_t b = flush_in(half_of(a[l], i), f, in);
      const uint32_t r = is_nan(b, f) ? f.nan() : Abs ? b & ~f.sign_bit() & 0xffffu : b ^ f.sign_bit();
      out |= uint64_t(r) << (16 * i);
    }
    d[l] = out;
  });
}

// ---------------------------------------------------------------------------------------------
// setp / set

enum HCmp : uint8_t { cEq, cNe, cLt, cLe, cGt, cGe, cEqu, cNeu, cLtu, cLeu, cGtu, cGeu, cNum, cNan };
const std::map<std::string, HCmp> kHCmp = {{"eq", cEq}, {"ne", cNe}, {"lt", cLt}, {"le", cLe}, {"gt", cGt},
                                           {"ge", cGe}, {"equ", cEqu}, {"neu", cNeu}, {"ltu", cLtu},
                                           {"leu", cLeu}, {"gtu", cGtu}, {"geu", cGeu}, {"num", cNum}, {"nan", cNan}};
enum HBool : uint8_t { bNone, bAnd, bOr, bXor };

bool h_compare(uint8_t c, double a, double b) {
  const bool un = std::isnan(a) || std::isnan(b);
  switch (c) {
    case cEq: return !un && a == b;  case cNe: return !un && a != b;
    case cLt: return !un && a < b;   case cLe: return !un && a <= b;
    case cGt: return !un && a > b;   case cGe: return !un && a >= b;
    case cEqu: return un || a == b;  case cNeu: return un || a != b;
    case cLtu: return un || a < b;   case cLeu: return un || a <= b;
    case cGtu: return un || a > b;   case cGeu: return un || a >= b;
    case cNum: return !un;           default: return un;
  }
}
bool h_bool(uint8_t op, bool t, bool c) {
  return op == bAnd ? t && c : op == bOr ? t || c : op == bXor ? t != c : t;
}

// setp: p from the low halves, q from the high halves (.x2), each combined with c.
void h_setp(Exec&, Warp& w, const Instr& in, uint32_t m) {
  const Fmt& f = fmt_of(in.type);
  const bool x2 = is_x2(in.type);
  uint64_t* p = w.reg(in.d[0]);
  uint64_t* q = in.d[1] == kNoSlot ? nullptr : w.reg(in.d[1]);
  const uint64_t *a = w.src(in.a[0]), *b = w.src(in.a[1]);
  const uint64_t* c = in.a[2] == kNoSlot ? nullptr : w.src(in.a[2]);
  const bool cneg = in.flags & kCC;
  each_lane(m, [&](int l) {
    const bool cv = c ? (c[l] != 0) != cneg : true;
    bool t[2];
    for (int i = 0; i < (x2 ? 2 : 1); ++i)
      t[i] = h_compare(in.mode, decode(flush_in(half_of(a[l], i), f, in), f), decode(flush_in(half_of(b[l], i), f, in), f));
    if (x2) {
      p[l] = h_bool(in.mode2, t[0], cv);
      if (q) q[l] = h_bool(in.mode2, t[1], cv);
    } else {
      p[l] = h_bool(in.mode2, t[0], cv);
      if (q) q[l] = h_bool(in.mode2, !t[0], cv);
    }
  });
}

// set.cmp.dtype.stype: per half for .x2 sources (0xffff or 1.0 in each half of a .u32/.f16x2 d).
void h_set(Exec&, Warp& w, const Instr& in, uint32_t m) {
  const Fmt& f = fmt_of(in.type);
  const bool x2 = is_x2(in.type);
  uint64_t* d = w.reg(in.d[0]);
  const uint64_t *a = w.src(in.a[0]), *b = w.src(in.a[1]);
  const uint64_t* c = in.a[2] == kNoSlot ? nullptr : w.src(in.a[2]);
  const Ty dt = in.type2;
  // What "true" is in the destination: 1.0 for a float type, all ones for an integer one.
  uint64_t one;
  int width = ty_bytes(dt) * 8;
  if (dt == Ty::F32) one = 0x3f800000u;
  else if (dt == Ty::F16 || dt == Ty::F16x2) one = 0x3c00u;
  else if (dt == Ty::BF16 || dt == Ty::BF16x2) one = 0x3f80u;
  else one = width >= 32 ? 0xffffffffu : (1u << width) - 1;
  if (x2 && !is_x2(dt) && dt != Ty::F32) one = 0xffffu;  // .u32/.s32 destination: 0xffff per half
  each_lane(m, [&](int l) {
    const bool cv = c ? (c[l] != 0) != bool(in.flags & kCC) : true;
    uint64_t out = 0;
    for (int i = 0; i < (x2 ? 2 : 1); ++i) {
      bool t = h_compare(in.mode, decode(flush_in(half_of(a[l], i), f, in), f), decode(flush_in(half_of(b[l], i), f, in), f));
      if (h_bool(in.mode2, t, cv)) out |= one << (16 * i);
    }
    d[l] = out;
  });
}

// ---------------------------------------------------------------------------------------------
// cvt: every pair with a 16-bit float or tf32 on one side. Sources are decoded exactly, then rounded
// once to the destination.

// A source lane value as an exact real (integers too), and whether it is a NaN.
Exact source_value(uint64_t v, Ty t, const Instr& in) {
  switch (t) {
    case Ty::F16: case Ty::BF16: case Ty::F16x2: case Ty::BF16x2:
      return {decode(flush_in(uint32_t(v) & 0xffffu, fmt_of(t), in), fmt_of(t)), 0};
    case Ty::F32: {
      uint32_t b = uint32_t(v);
      if ((in.flags & kFtz) && is_subnormal(b, kF32)) b &= 0x80000000u;
      return {decode(b, kF32), 0};
    }
    case Ty::F64: { double d; memcpy(&d, &v, 8); return {d, 0}; }
    case Ty::S8: return {double(int8_t(v)), 0};
    case Ty::S16: return {double(int16_t(v)), 0};
    case Ty::S32: return {double(int32_t(v)), 0};
    case Ty::U8: case Ty::B8: return {double(uint8_t(v)), 0};
    case Ty::U16: case Ty::B16: return {double(uint16_t(v)), 0};
    case Ty::U32: case Ty::B32: return {double(uint32_t(v)), 0};
    case Ty::S64: {  // may not fit a double: keep the remainder
      int64_t x = int64_t(v);
      double s = double(x);
      __int128 r = __int128(x) - __int128(s);
      return {s, double(r)};
    }
    default: {
      double s = double(v);
      __int128 r = __int128(v) - __int128(s);
      return {s, double(r)};
    }
  }
}

bool is_int_ty(Ty t) { return !ty_is_float(t) && t != Ty::Pred && t != Ty::None; }

uint64_t to_int(double x, Ty dt, uint8_t rnd) {
  switch (rnd) {
    case kRni: x = std::nearbyint(x); break;
    case kRmi: x = std::floor(x); break;
    case kRpi: x = std::ceil(x); break;
    default: x = std::trunc(x); break;
  }
  if (std::isnan(x)) return (dt == Ty::S64 || dt == Ty::U64) ? 1ull << 63 : 0;  // non-f64 source
  auto clamp = [&](double lo, double hi) { return std::min(std::max(x, lo), hi); };
  switch (dt) {
    case Ty::S8: return uint64_t(int64_t(clamp(-128, 127)));
    case Ty::S16: return uint64_t(int64_t(clamp(-32768, 32767)));
    case Ty::S32: return uint64_t(int64_t(clamp(-2147483648.0, 2147483647.0)));
    case Ty::S64: return x >= 9223372036854775807.0 ? uint64_t(INT64_MAX) : x <= -9223372036854775808.0 ? uint64_t(INT64_MIN) : uint64_t(int64_t(x));
    case Ty::U8: case Ty::B8: return uint64_t(clamp(0, 255));
    case Ty::U16: case Ty::B16: return uint64_t(clamp(0, 65535));
    case Ty::U32: case Ty::B32: return uint64_t(clamp(0, 4294967295.0));
    default: return x >= 18446744073709551615.0 ? ~0ull : x <= 0 ? 0 : uint64_t(x);
  }
}

// One value to a float destination type (16-bit, tf32, f32 or f64).
uint64_t to_float(Exact x, Ty dt, const Instr& in) {
  const uint8_t rnd = in.rnd;
  if (rnd == kRni || rnd == kRzi || rnd == kRmi || rnd == kRpi) {  // same-size: round to an integral value
    double v = x.s;
    v = rnd == kRni ? std::nearbyint(v) : rnd == kRzi ? std::trunc(v) : rnd == kRmi ? std::floor(v) : std::ceil(v);
    x = {v, 0};
  }
  const uint8_t r = rnd == kRndDefault || rnd == kRni || rnd == kRzi || rnd == kRmi || rnd == kRpi ? uint8_t(kRn) : rnd;
  if (dt == Ty::F64) { uint64_t b; double v = x.s; memcpy(&b, &v, 8); return b; }  // exact: only widening reaches here
  const Fmt& f = fmt_of(dt);
  uint32_t bits = std::isnan(x.s) ? f.nan() : round_to(x, f, r);
  if (dt == Ty::F32) {
    if ((in.flags & kFtz) && is_subnormal(bits, kF32)) bits &= 0x80000000u;
    if (in.flags & kSat) bits = std::isnan(x.s) || (bits >> 31) ? 0 : decode(bits, kF32) > 1.0 ? 0x3f800000u : bits;
    return bits;
  }
  Instr post = in;
  post.flags &= uint16_t(~kFtz);  // .ftz on a cvt concerns f32 operands only
  return finish(bits, f, post);
}

void h_cvt(Exec&, Warp& w, const Instr& in, uint32_t m) {
  const Ty dt = in.type, st = in.type2;
  uint64_t* d = w.reg(in.d[0]);
  const uint64_t* a = w.src(in.a[0]);
  if (is_x2(dt)) {  // two f32 sources: a to the high half, b to the low half
    const uint64_t* b = w.src(in.a[1]);
    each_lane(m, [&](int l) {
      uint64_t hi = to_float(source_value(a[l], st, in), dt, in), lo = to_float(source_value(b[l], st, in), dt, in);
      d[l] = hi << 16 | lo;
    });
    return;
  }
  each_lane(m, [&](int l) {
    // A NaN keeps its bits where the H200 moves them rather than computing (2026-12-01,
    // sim/validation/tc_numerics.cu): bf16 to f32 is a shift, f32 to tf32 drops the low 13 bits.
    // Other NaNs give the canonical NaN (to_float).
    if (st == Ty::BF16 && dt == Ty::F32 && is_nan(uint32_t(a[l]) & 0xffffu, kBF16)) {
      d[l] = (a[l] & 0xffffu) << 16;
      return;
    }
    if (st == Ty::F32 && dt == Ty::TF32 && is_nan(uint32_t(a[l]), kF32) && is_nan(uint32_t(a[l]) & 0xffffe000u, kF32)) {
      d[l] = a[l] & 0xffffe000u;
      return;
    }
    Exact x = source_value(a[l], st, in);
    if (is_int_ty(dt)) {
      uint64_t v = to_int(x.s, dt, in.rnd);
      // signed destinations narrower than the register are sign-extended, as in ops.cpp
      if (dt == Ty::S8) v = uint64_t(int64_t(int8_t(v)));
      else if (dt == Ty::S16) v = uint64_t(int64_t(int16_t(v)));
      else if (dt == Ty::S32) v = uint64_t(int64_t(int32_t(v)));
      d[l] = v;
    } else {
      d[l] = to_float(x, dt, in);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Decoders

Ty half_type(Mods& m, DecodeCtx& c, const ParsedInstr& p) {
  Ty t = m.type(c);
  if (!is_half_ty(t) || t == Ty::TF32) c.unsupported(p, "type");
  return t;
}

void dec_h_arith(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  in.rnd = m.rounding();
  if (in.rnd != kRndDefault && in.rnd != kRn && in.rnd != kRz && in.rnd != kRm && in.rnd != kRp) c.unsupported(p, "rounding");
  if (m.has("ftz")) in.flags |= kFtz;
  if (m.has("sat")) in.flags |= kSat;
  if (m.has("relu")) in.mode2 |= hRelu;
  if (m.has("NaN")) in.mode2 |= hNaN;
  const Ty t = half_type(m, c, p);
  in.type = t;
  m.done(c);
  const std::string& op = p.opcode;
  const bool unary = op == "neg" || op == "abs";
  const size_t n = op == "fma" ? 4 : unary ? 2 : 3;
  need(c, p, n);
  operands(c, p, in, t);
  Handler h = op == "add" ? h_arith<HAdd, 2> : op == "sub" ? h_arith<HSub, 2> : op == "mul" ? h_arith<HMul, 2>
            : op == "fma" ? h_arith<HFma, 3> : op == "min" ? h_minmax<false> : op == "max" ? h_minmax<true>
            : op == "neg" ? h_sign<false> : h_sign<true>;
  if ((in.mode2 & hRelu) && op != "fma") c.unsupported(p, "modifier .relu");
  if ((in.mode2 & hNaN) && op != "min" && op != "max") c.unsupported(p, "modifier .NaN");
  in.fn = h;
}

void dec_h_setp(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  int cmp = -1;
  for (size_t i = 0; i < p.mods.size() && cmp < 0; ++i)
    if (kHCmp.count(p.mods[i])) { cmp = kHCmp.at(p.mods[i]); m.used[i] = true; }
  if (cmp < 0) c.unsupported(p, "compare operation");
  in.mode = uint8_t(cmp);
  in.mode2 = m.has("and") ? bAnd : m.has("or") ? bOr : m.has("xor") ? bXor : bNone;
  if (m.has("ftz")) in.flags |= kFtz;
  auto ts = m.types();
  m.done(c);
  const bool is_set = p.opcode == "set";
  if (ts.size() != (is_set ? 2u : 1u) || !is_half_ty(ts.back()) || ts.back() == Ty::TF32) c.unsupported(p, "types");
  in.type = ts.back();
  in.type2 = is_set ? ts[0] : Ty::Pred;
  const size_t n = in.mode2 == bNone ? 3 : 4;
  need(c, p, n);
  in.d[0] = c.dst(p.ops[0]);
  if (!p.ops[0].pipe.empty()) in.d[1] = c.dst(p.ops[0].pipe[0]);
  in.a[0] = c.src(p.ops[1], in.type);
  in.a[1] = c.src(p.ops[2], in.type);
  if (n == 4) {
    in.a[2] = c.src(p.ops[3], Ty::Pred);
    if (p.ops[3].negated) in.flags |= kCC;
  }
  in.fn = is_set ? h_set : h_setp;
}

void dec_h_cvt(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  in.rnd = m.rounding();
  if (m.has("ftz")) in.flags |= kFtz;
  if (m.has("sat")) in.flags |= kSat;
  if (m.has("relu")) in.mode2 |= hRelu;
  if (m.has("satfinite")) in.mode2 |= hSatfinite;
  auto ts = m.types();
  m.done(c);
  if (ts.size() != 2) c.unsupported(p, "expected two types");
  in.type = ts[0];
  in.type2 = ts[1];
  const Ty dt = ts[0], st = ts[1];
  if (is_x2(st) || st == Ty::TF32) c.unsupported(p, "source type");
  const bool x2 = is_x2(dt);
  if (x2 && st != Ty::F32) c.unsupported(p, "source type");
  if (dt == Ty::TF32 && st != Ty::F32) c.unsupported(p, "source type");
  if (in.rnd == kRna && dt != Ty::TF32) c.unsupported(p, "rounding .rna");
  // A conversion that loses precision needs a rounding mode (the PTX ISA makes it mandatory).
  if (in.rnd == kRndDefault && !is_int_ty(dt) && (ty_bytes(dt) < ty_bytes(st) || is_int_ty(st) || dt == Ty::TF32 ||
                                                  (dt == Ty::BF16 && st == Ty::F16) || (dt == Ty::F16 && st == Ty::BF16)))
    c.unsupported(p, "rounding modifier required");
  need(c, p, x2 ? 3 : 2);
  in.d[0] = c.dst(p.ops[0]);
  in.a[0] = c.src(p.ops[1], st);
  if (x2) in.a[1] = c.src(p.ops[2], st);
  in.fn = h_cvt;
}

}  // namespace

// Rows named "<opcode>.half": the half-precision forms (see half_opcode_rows in decode.h).
const std::vector<OpcodeRow>& half_opcode_rows() {
  static const std::vector<OpcodeRow> rows = {
      {"add.half", dec_h_arith}, {"sub.half", dec_h_arith}, {"mul.half", dec_h_arith}, {"fma.half", dec_h_arith},
      {"min.half", dec_h_arith}, {"max.half", dec_h_arith}, {"neg.half", dec_h_arith}, {"abs.half", dec_h_arith},
      {"setp.half", dec_h_setp}, {"set.half", dec_h_setp}, {"cvt.half", dec_h_cvt},
  };
  return rows;
}

const OpcodeRow* find_half_row(const ParsedInstr& p) {
  static const std::map<std::string, const OpcodeRow*> index = [] {
    std::map<std::string, const OpcodeRow*> m;
    for (auto& r : half_opcode_rows()) {
      std::string n = r.name;
      m[n.substr(0, n.find('.'))] = &r;
    }
    return m;
  }();
  auto it = index.find(p.opcode);
  if (it == index.end()) return nullptr;
  for (auto& mod : p.mods)
    if (is_half_ty(parse_ty(mod))) return it->second;
  return nullptr;
}

}  // namespace sim::eng
