// Instruction semantics: the opcode table (bottom of the file) and one body per operation. Type
// and width variants are instantiated from these bodies by `pick`, never written out by hand.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>

#include "decode.h"
#include "decode_util.h"
#include "exec.h"
#include "values.h"

namespace sim::eng {

// ---------------------------------------------------------------------------------------------
// Semantic bodies. `ok<T>` says which types the operation has; `f` is the spec's one line.

#define SIM_OP(Name, Cond, ...)                                    \
  struct Name {                                                   \
    template <class T> static constexpr bool ok = Cond;           \
    template <class T> static auto f(__VA_ARGS__)
#define SIM_END };

// Binary
SIM_OP(Add, (!std::is_same_v<T, bool>), T a, T b) { return wadd(a, b); } SIM_END
SIM_OP(Sub, (!std::is_same_v<T, bool>), T a, T b) { return wsub(a, b); } SIM_END
SIM_OP(MulLo, (!std::is_same_v<T, bool>), T a, T b) { return wmul(a, b); } SIM_END
SIM_OP(MulHi, is_int<T>, T a, T b) { return T((wider_t<T>(a) * wider_t<T>(b)) >> (8 * sizeof(T))); } SIM_END
SIM_OP(MulWide, is_int<T> && sizeof(T) <= 4, T a, T b) { return wider_t<T>(a) * wider_t<T>(b); } SIM_END
SIM_OP(AddSat, (std::is_same_v<T, int32_t>), T a, T b) { return T(std::clamp<int64_t>(int64_t(a) + b, INT32_MIN, INT32_MAX)); } SIM_END
SIM_OP(SubSat, (std::is_same_v<T, int32_t>), T a, T b) { return T(std::clamp<int64_t>(int64_t(a) - b, INT32_MIN, INT32_MAX)); } SIM_END
SIM_OP(Div, (!std::is_same_v<T, bool>), T a, T b) {
  if constexpr (is_int<T>) {
    if (b == 0) return T(~T(0));  // PTX leaves it undefined; the hardware gives all ones
    if constexpr (std::is_signed_v<T>) if (a == std::numeric_limits<T>::min() && b == T(-1)) return a;
    return T(a / b);
  } else return a / b;
} SIM_END
SIM_OP(Rem, is_int<T>, T a, T b) {
  if (b == 0) return a;
  if constexpr (std::is_signed_v<T>) if (b == T(-1)) return T(0);
  return T(a % b);
} SIM_END
// PTX min/max return the other operand when one is NaN (like fmin/fmax).
SIM_OP(Min, (!std::is_same_v<T, bool>), T a, T b) { if constexpr (is_f3264<T>) return std::fmin(a, b); else return a < b ? a : b; } SIM_END
SIM_OP(Max, (!std::is_same_v<T, bool>), T a, T b) { if constexpr (is_f3264<T>) return std::fmax(a, b); else return a > b ? a : b; } SIM_END
SIM_OP(And, (is_int<T> || std::is_same_v<T, bool>), T a, T b) { return T(a & b); } SIM_END
SIM_OP(Or, (is_int<T> || std::is_same_v<T, bool>), T a, T b) { return T(a | b); } SIM_END
SIM_OP(Xor, (is_int<T> || std::is_same_v<T, bool>), T a, T b) { return T(a ^ b); } SIM_END
SIM_OP(Shl, is_int<T>, T a, T b) {
  uint32_t s = uint32_t(std::make_unsigned_t<T>(b));
  return s >= 8 * sizeof(T) ? T(0) : T(std::make_unsigned_t<T>(a) << s);
} SIM_END
SIM_OP(Shr, is_int<T>, T a, T b) {  // arithmetic for signed types, logical otherwise
  uint32_t s = uint32_t(std::make_unsigned_t<T>(b));
  if (s >= 8 * sizeof(T)) s = 8 * sizeof(T) - 1, a = std::is_signed_v<T> ? T(a >> s) : T(0);
  else a = T(a >> s);
  return a;
} SIM_END
SIM_OP(Copysign, is_f3264<T>, T a, T b) { return std::copysign(b, a); } SIM_END  // d = |b| with a's sign

// Unary
SIM_OP(Mov, true, T a) { return a; } SIM_END
SIM_OP(Not, (is_int<T> || std::is_same_v<T, bool>), T a) { if constexpr (std::is_same_v<T, bool>) return !a; else return T(~a); } SIM_END
SIM_OP(Cnot, is_int<T>, T a) { return T(a == 0 ? 1 : 0); } SIM_END
SIM_OP(Neg, is_int<T> ? std::is_signed_v<T> : true, T a) { if constexpr (is_int<T>) return wsub(T(0), a); else return T(-a); } SIM_END
SIM_OP(Abs, is_int<T> ? std::is_signed_v<T> : true, T a) {
  if constexpr (is_int<T>) return a < 0 ? wsub(T(0), a) : a; else if constexpr (is_f3264<T>) return std::fabs(a); else return a < T(0) ? T(-a) : a;
} SIM_END
SIM_OP(Popc, is_int<T>, T a) { return uint32_t(__builtin_popcountll(uint64_t(std::make_unsigned_t<T>(a)))); } SIM_END
SIM_OP(Clz, is_int<T>, T a) {
  uint64_t v = uint64_t(std::make_unsigned_t<T>(a));
  return uint32_t(v == 0 ? 8 * sizeof(T) : __builtin_clzll(v) - (64 - 8 * sizeof(T)));
} SIM_END
SIM_OP(Brev, is_int<T> && !std::is_signed_v<T>, T a) {
  T r = 0;
  for (unsigned i = 0; i < 8 * sizeof(T); ++i) r = T(r | (((a >> i) & 1) << (8 * sizeof(T) - 1 - i)));
  return r;
} SIM_END
SIM_OP(Bfind, is_int<T> && sizeof(T) >= 4, T a) {  // position of the most significant non-sign bit
  uint64_t v = uint64_t(std::make_unsigned_t<T>(a));
  if constexpr (std::is_signed_v<T>) if (a < 0) v = uint64_t(std::make_unsigned_t<T>(~a));
  return v == 0 ? 0xffffffffu : uint32_t(63 - __builtin_clzll(v));
} SIM_END
SIM_OP(Rcp, is_f3264<T>, T a) { return T(1) / a; } SIM_END
SIM_OP(Sqrt, is_f3264<T>, T a) { return std::sqrt(a); } SIM_END
SIM_OP(Rsqrt, is_f3264<T>, T a) { return T(1) / std::sqrt(a); } SIM_END
SIM_OP(Ex2, is_f3264<T>, T a) { return std::exp2(a); } SIM_END
SIM_OP(Lg2, is_f3264<T>, T a) { return std::log2(a); } SIM_END
SIM_OP(Sin, is_f3264<T>, T a) { return std::sin(a); } SIM_END
SIM_OP(Cos, is_f3264<T>, T a) { return std::cos(a); } SIM_END
SIM_OP(Tanh, is_f3264<T>, T a) { return std::tanh(a); } SIM_END

// Ternary
SIM_OP(MadLo, (!std::is_same_v<T, bool>), T a, T b, T c) { return wadd(wmul(a, b), c); } SIM_END
SIM_OP(MadHi, is_int<T>, T a, T b, T c) { return wadd(MulHi::f(a, b), c); } SIM_END
SIM_OP(Fma, is_flt<T>, T a, T b, T c) {
  if constexpr (is_f3264<T>) return std::fma(a, b, c); else return T(std::fma(double(a), double(b), double(c)));
} SIM_END
SIM_OP(Bfe, is_int<T> && sizeof(T) >= 4, T a, T b, T c) {
  uint32_t pos = uint32_t(b) & 0xff, len = uint32_t(c) & 0xff, w = 8 * sizeof(T);
  using U = std::make_unsigned_t<T>;
  bool sbit = std::is_signed_v<T> && (len == 0 ? false : ((U(a) >> std::min(pos + len - 1, w - 1)) & 1));
  U r = 0;
  for (uint32_t i = 0; i < w; ++i) {
    bool bit = i < len ? (pos + i < w ? (U(a) >> (pos + i)) & 1 : sbit) : sbit;
    r |= U(bit) << i;
  }
  return T(r);
} SIM_END
SIM_OP(Prmt, (std::is_same_v<T, uint32_t>), T a, T b, T c) {
  uint64_t bytes = uint64_t(a) | uint64_t(b) << 32;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t sel = (c >> (4 * i)) & 0xf;
    uint32_t byte = (bytes >> (8 * (sel & 7))) & 0xff;
    if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;  // sign-replicate
    r |= byte << (8 * i);
  }
  return r;
} SIM_END

#undef SIM_OP
#undef SIM_END

// ---------------------------------------------------------------------------------------------
// Handlers: lane loops around the bodies, with float modifiers applied once per instruction.

template <class T>
inline T fin(const Instr& in, T r) {  // result modifiers: .ftz, .sat
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (in.flags & kFtz) r = flush(r);
    if (in.flags & kSat) r = std::isnan(r) ? T(0) : std::clamp(r, T(0), T(1));
  }
  return r;
}
template <class T>
inline T arg(const Instr& in, T a) {
  if constexpr (std::is_same_v<T, float>) if (in.flags & kFtz) return flush(a);
  return a;
}

template <class Op, class T>
struct Unary {
  static void run(Exec&, Warp& w, const Instr& in, uint32_t m) {
    RoundingScope rs(is_flt<T> ? in.rnd : uint8_t(kRndDefault));
    uint64_t* d = w.reg(in.d[0]);
    const uint64_t* a = w.src(in.a[0]);
    each_lane(m, [&](int l) { d[l] = put(fin(in, Op::f(arg(in, get<T>(a[l]))))); });
  }
};
template <class Op, class T>
struct Binary {
  static void run(Exec&, Warp& w, const Instr& in, uint32_t m) {
    RoundingScope rs(is_flt<T> ? in.rnd : uint8_t(kRndDefault));
    uint64_t* d = w.reg(in.d[0]);
    const uint64_t* a = w.src(in.a[0]);
    const uint64_t* b = w.src(in.a[1]);
    each_lane(m, [&](int l) { d[l] = put(fin(in, Op::f(arg(in, get<T>(a[l])), arg(in, get<T>(b[l]))))); });
  }
};
template <class Op, class T>
struct Ternary {
  static void run(Exec&, Warp& w, const Instr& in, uint32_t m) {
    RoundingScope rs(is_flt<T> ? in.rnd : uint8_t(kRndDefault));
    uint64_t* d = w.reg(in.d[0]);
    const uint64_t* a = w.src(in.a[0]);
    const uint64_t* b = w.src(in.a[1]);
    const uint64_t* c = w.src(in.a[2]);
    each_lane(m, [&](int l) {
      d[l] = put(fin(in, Op::f(arg(in, get<T>(a[l])), arg(in, get<T>(b[l])), arg(in, get<T>(c[l])))));
    });
  }
};
// mad.wide: the addend is already wide.
template <class T>
struct MadWide {
  static constexpr bool ok = is_int<T> && sizeof(T) <= 4;
  static void run(Exec&, Warp& w, const Instr& in, uint32_t m) {
    using W = wider_t<T>;
    uint64_t* d = w.reg(in.d[0]);
    const uint64_t *a = w.src(in.a[0]), *b = w.src(in.a[1]), *c = w.src(in.a[2]);
    each_lane(m, [&](int l) { d[l] = put(wadd(W(W(get<T>(a[l])) * W(get<T>(b[l]))), get<W>(c[l]))); });
  }
};

// Type dispatch: one switch, every instantiation generated from the body.
#define SIM_TYPES(X)                                                                                  \
  X(B8, uint8_t) X(U8, uint8_t) X(S8, int8_t) X(B16, uint16_t) X(U16, uint16_t) X(S16, int16_t)      \
  X(B32, uint32_t) X(U32, uint32_t) X(S32, int32_t) X(B64, uint64_t) X(U64, uint64_t) X(S64, int64_t) \
  X(F16, half) X(F32, float) X(F64, double) X(Pred, bool)

template <template <class, class> class H, class Op>
Handler pick(Ty t) {
  switch (t) {
#define X(E, C) \
  case Ty::E: if constexpr (Op::template ok<C>) return &H<Op, C>::run; else return nullptr;
    SIM_TYPES(X)
#undef X
    default: return nullptr;
  }
}
template <template <class> class H>
Handler pick1(Ty t) {
  switch (t) {
#define X(E, C) \
  case Ty::E: if constexpr (H<C>::ok) return &H<C>::run; else return nullptr;
    SIM_TYPES(X)
#undef X
    default: return nullptr;
  }
}

// ---------------------------------------------------------------------------------------------
// Comparisons (setp / set / testp)

enum Cmp : uint8_t { cEq, cNe, cLt, cLe, cGt, cGe, cLo, cLs, cHi, cHs, cEqu, cNeu, cLtu, cLeu, cGtu, cGeu, cNum, cNan };
static const std::map<std::string, Cmp> kCmp = {
    {"eq", cEq}, {"ne", cNe}, {"lt", cLt}, {"le", cLe}, {"gt", cGt}, {"ge", cGe}, {"lo", cLo}, {"ls", cLs}, {"hi", cHi},
    {"hs", cHs}, {"equ", cEqu}, {"neu", cNeu}, {"ltu", cLtu}, {"leu", cLeu}, {"gtu", cGtu}, {"geu", cGeu},
    {"num", cNum}, {"nan", cNan}};
enum BoolOp : uint8_t { bNone, bAnd, bOr, bXor };

template <class T>
inline bool compare(uint8_t c, T a, T b) {
  if constexpr (is_flt<T>) {
    bool un = std::isnan(double(a)) || std::isnan(double(b));
    switch (c) {
      case cEq: return !un && a == b;  case cNe: return !un && a != b;
      case cLt: return !un && a < b;   case cLe: return !un && a <= b;
      case cGt: return !un && a > b;   case cGe: return !un && a >= b;
      case cEqu: return un || a == b;  case cNeu: return un || a != b;
      case cLtu: return un || a < b;   case cLeu: return un || a <= b;
      case cGtu: return un || a > b;   case cGeu: return un || a >= b;
      case cNum: return !un;           case cNan: return un;
      default: return false;
    }
  } else {
    using U = std::make_unsigned_t<T>;
    switch (c) {
      case cEq: return a == b; case cNe: return a != b;
      case cLt: return a < b;  case cLe: return a <= b; case cGt: return a > b; case cGe: return a >= b;
      case cLo: return U(a) < U(b); case cLs: return U(a) <= U(b); case cHi: return U(a) > U(b); case cHs: return U(a) >= U(b);
      default: return false;
    }
  }
}

template <class T>
struct Setp {
  static constexpr bool ok = !std::is_same_v<T, bool>;
  static void run(Exec&, Warp& w, const Instr& in, uint32_t m) {
    uint64_t* p = w.reg(in.d[0]);
    uint64_t* q = in.d[1] == kNoSlot ? nullptr : w.reg(in.d[1]);
    const uint64_t *a = w.src(in.a[0]), *b = w.src(in.a[1]);
    const uint64_t* c = in.a[2] == kNoSlot ? nullptr : w.src(in.a[2]);
    bool cneg = in.flags & kCC;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      // The common integer compare (a loop bound, a bounds check): the comparison chosen once, not per lane.
      if (!c && !q) {
        auto lanes = [&](auto cmp) { each_lane(m, [&](int l) { p[l] = cmp(get<T>(a[l]), get<T>(b[l])); }); };
        using U = std::make_unsigned_t<T>;
        switch (in.mode) {
          case cEq: return lanes([](T x, T y) { return x == y; });
          case cNe: return lanes([](T x, T y) { return x != y; });
          case cLt: return lanes([](T x, T y) { return x < y; });
          case cLe: return lanes([](T x, T y) { return x <= y; });
          case cGt: return lanes([](T x, T y) { return x > y; });
          case cGe: return lanes([](T x, T y) { return x >= y; });
          case cLo: return lanes([](T x, T y) { return U(x) < U(y); });
          case cLs: return lanes([](T x, T y) { return U(x) <= U(y); });
          case cHi: return lanes([](T x, T y) { return U(x) > U(y); });
          case cHs: return lanes([](T x, T y) { return U(x) >= U(y); });
          default: break;  // compare() says what the rest mean
        }
      }
    }
    each_lane(m, [&](int l) {
      bool r = compare<T>(in.mode, get<T>(a[l]), get<T>(b[l]));
      bool nr = !r;
      if (c) {
        bool cv = (c[l] != 0) != cneg;
        if (in.mode2 == bAnd) r = r && cv, nr = nr && cv;
        else if (in.mode2 == bOr) r = r || cv, nr = nr || cv;
        else if (in.mode2 == bXor) r = r != cv, nr = nr != cv;
      }
      p[l] = r;
      if (q) q[l] = nr;
    });
  }
};
// set.cmp.dtype.stype: 1.0f / 0xffffffff when true.
template <class T>
struct SetOp {
  static constexpr bool ok = !std::is_same_v<T, bool>;
  static void run(Exec&, Warp& w, const Instr& in, uint32_t m) {
    uint64_t* d = w.reg(in.d[0]);
    const uint64_t *a = w.src(in.a[0]), *b = w.src(in.a[1]);
    const uint64_t* c = in.a[2] == kNoSlot ? nullptr : w.src(in.a[2]);
    uint64_t one = in.type2 == Ty::F32 ? 0x3f800000u : 0xffffffffu;
    each_lane(m, [&](int l) {
      bool r = compare<T>(in.mode, get<T>(a[l]), get<T>(b[l]));
      if (c) {
        bool cv = (c[l] != 0) != bool(in.flags & kCC);
        r = in.mode2 == bAnd ? r && cv : in.mode2 == bOr ? r || cv : in.mode2 == bXor ? r != cv : r;
      }
      d[l] = r ? one : 0;
    });
  }
};
enum Testp : uint8_t { tFinite, tInfinite, tNumber, tNan, tNormal, tSubnormal };
template <class T>
struct TestpOp {
  static constexpr bool ok = is_f3264<T>;
  static void run(Exec&, Warp& w, const Instr& in, uint32_t m) {
    uint64_t* d = w.reg(in.d[0]);
    const uint64_t* a = w.src(in.a[0]);
    each_lane(m, [&](int l) {
      T x = get<T>(a[l]);
      int c = std::fpclassify(x);
      bool r = in.mode == tFinite ? std::isfinite(x) : in.mode == tInfinite ? std::isinf(x) : in.mode == tNumber ? !std::isnan(x)
             : in.mode == tNan ? std::isnan(x) : in.mode == tNormal ? c == FP_NORMAL : c == FP_SUBNORMAL;
      d[l] = r;
    });
  }
};

template <class T>
struct Selp {
  static constexpr bool ok = !std::is_same_v<T, bool>;
  static void run(Exec&, Warp& w, const Instr& in, uint32_t m) {
    uint64_t* d = w.reg(in.d[0]);
    const uint64_t *a = w.src(in.a[0]), *b = w.src(in.a[1]), *c = w.src(in.a[2]);
    each_lane(m, [&](int l) { d[l] = c[l] ? put(get<T>(a[l])) : put(get<T>(b[l])); });
  }
};
template <class T>
struct Bfi {
  static constexpr bool ok = is_int<T> && sizeof(T) >= 4 && !std::is_signed_v<T>;
  static void run(Exec&, Warp& w, const Instr& in, uint32_t m) {
    uint64_t* d = w.reg(in.d[0]);
    const uint64_t *a = w.src(in.a[0]), *b = w.src(in.a[1]), *c = w.src(in.a[2]), *e = w.src(in.a[3]);
    each_lane(m, [&](int l) {
      T f = get<T>(b[l]);
      uint32_t pos = uint32_t(c[l]) & 0xff, len = uint32_t(e[l]) & 0xff, wd = 8 * sizeof(T);
      for (uint32_t i = 0; i < len && pos + i < wd; ++i) f = T((f & ~(T(1) << (pos + i))) | (((get<T>(a[l]) >> i) & 1) << (pos + i)));
      d[l] = put(f);
    });
  }
};

// ---------------------------------------------------------------------------------------------
// Conversions: cvt.dtype.stype with integer rounding (.rni/.rzi/...), float rounding, .sat.

template <class D, class S>
inline D convert(const Instr& in, S s) {
  if constexpr (is_flt<S> && is_int<D>) {
    double x = double(arg(in, s));
    switch (in.rnd) {
      case kRni: x = std::nearbyint(x); break;  // host default mode is round-to-nearest-even
      case kRmi: x = std::floor(x); break;
      case kRpi: x = std::ceil(x); break;
      default: x = std::trunc(x); break;
    }
    if (std::isnan(x)) return D(0);
    if (x <= double(std::numeric_limits<D>::min())) return std::numeric_limits<D>::min();
    if (x >= double(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    return D(x);
  } else if constexpr (is_flt<S> && is_flt<D>) {
    D r;
    if (in.rnd == kRni || in.rnd == kRzi || in.rnd == kRmi || in.rnd == kRpi) {
      double x = double(s);
      x = in.rnd == kRni ? std::nearbyint(x) : in.rnd == kRzi ? std::trunc(x) : in.rnd == kRmi ? std::floor(x) : std::ceil(x);
      r = D(x);
    } else {
      RoundingScope rs(in.rnd);
      if constexpr (std::is_same_v<D, half> && std::is_same_v<S, double>) r = D(float(s));  // TODO: double rounding
      else r = D(s);
    }
    if constexpr (std::is_same_v<D, half>) return r;
    else return fin(in, r);
  } else if constexpr (is_int<S> && is_flt<D>) {
    RoundingScope rs(in.rnd);
    if constexpr (std::is_same_v<D, half>) return D(float(s));
    else return fin(in, D(s));
  } else if constexpr (is_int<S> && is_int<D>) {
    if (in.flags & kSat) {
      if constexpr (std::is_signed_v<S>) {
        if (int64_t(s) < int64_t(std::numeric_limits<D>::min())) return std::numeric_limits<D>::min();
        if (s > 0 && uint64_t(s) > uint64_t(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
      } else if (uint64_t(s) > uint64_t(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    }
    return D(s);
  } else {
    return D(s);
  }
}
template <class D, class S>
struct Cvt {
  static void run(Exec&, Warp& w, const Instr& in, uint32_t m) {
    uint64_t* d = w.reg(in.d[0]);
    const uint64_t* a = w.src(in.a[0]);
    // Integer destinations narrower than the register are sign/zero-extended to it.
    each_lane(m, [&](int l) {
      D r = convert<D, S>(in, get<S>(a[l]));
      if constexpr (is_int<D>) d[l] = extend(r); else d[l] = put(r);
    });
  }
};
template <class D>
Handler pick_cvt_src(Ty s) {
  switch (s) {
#define X(E, C) case Ty::E: if constexpr (!std::is_same_v<C, bool>) return &Cvt<D, C>::run; else return nullptr;
    SIM_TYPES(X)
#undef X
    default: return nullptr;
  }
}
Handler pick_cvt(Ty d, Ty s) {
  switch (d) {
#define X(E, C) case Ty::E: if constexpr (!std::is_same_v<C, bool>) return pick_cvt_src<C>(s); else return nullptr;
    SIM_TYPES(X)
#undef X
    default: return nullptr;
  }
}

// mov between a wide register and a vector of narrow ones: mov.b64 %rd, {%r1, %r2} and back.
static void h_pack(Exec&, Warp& w, const Instr& in, uint32_t m) {
  uint64_t* d = w.reg(in.d[0]);
  int parts = in.na, bits = 8 * in.bytes / parts;
  uint64_t pm = bits == 64 ? ~0ull : (1ull << bits) - 1;
  const uint64_t* s[4];
  for (int i = 0; i < parts; ++i) s[i] = w.src(in.a[i]);
  each_lane(m, [&](int l) {
    uint64_t v = 0;
    for (int i = 0; i < parts; ++i) v |= (s[i][l] & pm) << (bits * i);
    d[l] = v;
  });
}
static void h_unpack(Exec&, Warp& w, const Instr& in, uint32_t m) {
  const uint64_t* a = w.src(in.a[0]);
  int parts = in.nd, bits = 8 * in.bytes / parts;
  uint64_t pm = bits == 64 ? ~0ull : (1ull << bits) - 1;
  uint64_t v[32];
  each_lane(m, [&](int l) { v[l] = a[l]; });
  for (int i = 0; i < parts; ++i) {
    uint64_t* d = w.reg(in.d[i]);
    each_lane(m, [&](int l) { d[l] = (v[l] >> (bits * i)) & pm; });
  }
}

// cvta: generic <-> state-space addresses.
static void h_cvta(Exec&, Warp& w, const Instr& in, uint32_t m) {
  uint64_t* d = w.reg(in.d[0]);
  const uint64_t* a = w.src(in.a[0]);
  uint64_t window = in.space == Space::Shared ? kSharedWindow : in.space == Space::Local ? kLocalWindow : 0;
  bool to = in.mode;  // cvta.to.space: generic -> space
  bool narrow = in.type == Ty::U32;
  each_lane(m, [&](int l) {
    uint64_t v = to ? a[l] - window : (narrow ? uint32_t(a[l]) : a[l]) + window;
    d[l] = narrow ? uint32_t(v) : v;
  });
}

// ---------------------------------------------------------------------------------------------
// Memory: ld / st / atom / red. Exec::access resolves, checks and counts; these move the bytes.

template <class T, int V>
struct Ld {
  static void run(Exec& x, Warp& w, const Instr& in, uint32_t m) {
    const uint64_t* base = w.src(in.a[0]);
    each_lane(m, [&](int l) { x.addr[l] = base[l] + uint64_t(in.imm); });
    if (!x.access(w, in, m, sizeof(T) * V, Access::Load)) return;
    for (int v = 0; v < V; ++v) {
      uint64_t* d = w.reg(in.d[v]);
      each_lane(m, [&](int l) { T t; memcpy(&t, x.hptr[l] + v * sizeof(T), sizeof(T)); d[l] = extend(t); });
    }
  }
};
template <class T, int V>
struct St {
  static void run(Exec& x, Warp& w, const Instr& in, uint32_t m) {
    const uint64_t* base = w.src(in.a[0]);
    each_lane(m, [&](int l) { x.addr[l] = base[l] + uint64_t(in.imm); });
    if (!x.access(w, in, m, sizeof(T) * V, Access::Store)) return;
    for (int v = 0; v < V; ++v) {  // vector sources live in d[] for stores
      const uint64_t* s = w.src(in.d[v]);
      each_lane(m, [&](int l) { T t = T(s[l]); memcpy(x.hptr[l] + v * sizeof(T), &t, sizeof(T)); });
    }
  }
};
// Kernel parameters: one buffer for the whole launch.
template <class T, int V>
struct LdKParam {
  static void run(Exec& x, Warp& w, const Instr& in, uint32_t m) {
    for (int v = 0; v < V; ++v) {
      T t;
      memcpy(&t, x.kparams + in.imm + v * sizeof(T), sizeof(T));
      uint64_t* d = w.reg(in.d[v]);
      uint64_t e = extend(t);
      each_lane(m, [&](int l) { d[l] = e; });
    }
  }
};
// .param variables of device-function calls live in register slots, 8 bytes each.
template <class T, int V>
struct LdParam {
  static void run(Exec&, Warp& w, const Instr& in, uint32_t m) {
    for (int v = 0; v < V; ++v) {
      int64_t off = in.imm + v * int64_t(sizeof(T));
      const uint64_t* s = w.src(uint16_t(in.a[0] + off / 8));
      int sh = int(off % 8) * 8;
      uint64_t* d = w.reg(in.d[v]);
      each_lane(m, [&](int l) { d[l] = extend(T(s[l] >> sh)); });
    }
  }
};
template <class T, int V>
struct StParam {
  static void run(Exec&, Warp& w, const Instr& in, uint32_t m) {
    for (int v = 0; v < V; ++v) {
      int64_t off = in.imm + v * int64_t(sizeof(T));
      uint64_t* s = w.reg(uint16_t(in.a[0] + off / 8));
      int sh = int(off % 8) * 8;
      uint64_t mask = (sizeof(T) == 8 ? ~0ull : ((1ull << (8 * sizeof(T))) - 1)) << sh;
      const uint64_t* src = w.src(in.d[v]);
      each_lane(m, [&](int l) { s[l] = (s[l] & ~mask) | ((uint64_t(std::make_unsigned_t<T>(T(src[l]))) << sh) & mask); });
    }
  }
};

template <template <class, int> class H, int V>
Handler pick_mem_v(Ty t) {
  switch (t) {
    case Ty::U8: case Ty::B8: return &H<uint8_t, V>::run;
    case Ty::S8: return &H<int8_t, V>::run;
    case Ty::U16: case Ty::B16: case Ty::F16: case Ty::BF16: return &H<uint16_t, V>::run;
    case Ty::S16: return &H<int16_t, V>::run;
    case Ty::U32: case Ty::B32: case Ty::F32: case Ty::F16x2: case Ty::BF16x2: return &H<uint32_t, V>::run;
    case Ty::S32: return &H<int32_t, V>::run;
    case Ty::U64: case Ty::B64: case Ty::F64: case Ty::S64: return &H<uint64_t, V>::run;
    default: return nullptr;
  }
}
template <template <class, int> class H>
Handler pick_mem(Ty t, int vec) {
  return vec == 1 ? pick_mem_v<H, 1>(t) : vec == 2 ? pick_mem_v<H, 2>(t) : vec == 4 ? pick_mem_v<H, 4>(t) : nullptr;
}

enum AtomOp : uint8_t { aAdd, aMin, aMax, aInc, aDec, aAnd, aOr, aXor, aExch, aCas };
static const std::map<std::string, AtomOp> kAtom = {{"add", aAdd}, {"min", aMin}, {"max", aMax}, {"inc", aInc},
                                                     {"dec", aDec}, {"and", aAnd}, {"or", aOr},   {"xor", aXor},
                                                     {"exch", aExch}, {"cas", aCas}};

template <class T>
inline T atom_apply(uint8_t op, T old, T b, T c) {
  switch (op) {
    case aAdd: return wadd(old, b);
    case aMin: return Min::f(old, b);
    case aMax: return Max::f(old, b);
    case aExch: return b;
    case aCas: return old == b ? c : old;
    default: break;
  }
  if constexpr (is_int<T>) {
    switch (op) {
      case aInc: return old >= b ? T(0) : T(old + 1);
      case aDec: return (old == 0 || old > b) ? b : T(old - 1);
      case aAnd: return T(old & b);
      case aOr: return T(old | b);
      case aXor: return T(old ^ b);
      default: break;
    }
  }
  return old;
}
// Lanes apply their updates one at a time, in lane order; across host threads (global memory of
// blocks running in parallel) each update is one compare-and-swap on the host bytes.
template <class T>
struct Atom {
  static constexpr bool ok = (is_int<T> && sizeof(T) >= 4) || is_f3264<T>;
  static void run(Exec& x, Warp& w, const Instr& in, uint32_t m) {
    const uint64_t* base = w.src(in.a[0]);
    each_lane(m, [&](int l) { x.addr[l] = base[l] + uint64_t(in.imm); });
    if (!x.access(w, in, m, sizeof(T), Access::Atomic)) return;
    const uint64_t* b = w.src(in.a[1]);
    const uint64_t* c = in.a[2] == kNoSlot ? nullptr : w.src(in.a[2]);
    uint64_t* d = in.d[0] == kNoSlot ? nullptr : w.reg(in.d[0]);
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
      int l = __builtin_ctz(mm);
      U* p = reinterpret_cast<U*>(x.hptr[l]);
      U old = __atomic_load_n(p, __ATOMIC_RELAXED), nw;
      do {
        T o, r;
        memcpy(&o, &old, sizeof(T));
        r = atom_apply<T>(in.mode, o, get<T>(b[l]), c ? get<T>(c[l]) : T(0));
        memcpy(&nw, &r, sizeof(T));
      } while (!__atomic_compare_exchange_n(p, &old, nw, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
      if (d) { T o; memcpy(&o, &old, sizeof(T)); d[l] = put(o); }
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Warp-level operations. Each checks its member mask first: every live lane it names must be here.

static bool check_members(Exec& x, Warp& w, const Instr& in, uint32_t m, uint16_t mask_slot) {
  uint32_t member = mask_slot == kNoSlot ? 0xffffffffu : uint32_t(w.src(mask_slot)[__builtin_ctz(m)]);
  uint32_t missing = member & w.live & ~m;
  if (missing) {
    char buf[200];
    snprintf(buf, sizeof buf, "member mask 0x%08x names lanes that are not executing this instruction (0x%08x); active 0x%08x",
             member, missing, m);
    x.fail("sync-mask", buf, w, __builtin_ctz(m), in);
    return false;
  }
  return true;
}

enum ShflMode : uint8_t { sUp, sDown, sBfly, sIdx };
static void h_shfl(Exec& x, Warp& w, const Instr& in, uint32_t m) {
  if (!check_members(x, w, in, m, in.a[3])) return;
  const uint64_t *a = w.src(in.a[0]), *b = w.src(in.a[1]), *c = w.src(in.a[2]);
  uint64_t* d = w.reg(in.d[0]);
  uint64_t* p = in.d[1] == kNoSlot ? nullptr : w.reg(in.d[1]);
  uint64_t v[32], pv[32];
  for (int l = 0; l < 32; ++l) v[l] = a[l];
  each_lane(m, [&](int lane) {
    uint32_t bv = uint32_t(b[lane]), cv = uint32_t(c[lane]);
    uint32_t seg = (cv >> 8) & 0x1f, clamp = cv & 0x1f;
    int max_lane = int((lane & seg) | (clamp & ~seg)), min_lane = int(lane & seg);
    int j;
    bool ok;
    switch (in.mode) {
      case sUp: j = lane - int(bv); ok = j >= max_lane; break;
      case sDown: j = lane + int(bv); ok = j <= max_lane; break;
      case sBfly: j = lane ^ int(bv); ok = j <= max_lane; break;
      default: j = min_lane | int(bv & ~seg); ok = j <= max_lane; break;
    }
    if (!ok || j < 0 || j > 31) j = lane;
    pv[lane] = ok;
    d[lane] = v[j] & 0xffffffffu;
  });
  if (p) each_lane(m, [&](int l) { p[l] = pv[l]; });
}

enum VoteMode : uint8_t { vAll, vAny, vUni, vBallot };
static void h_vote(Exec& x, Warp& w, const Instr& in, uint32_t m) {
  if (!check_members(x, w, in, m, in.a[1])) return;
  const uint64_t* a = w.src(in.a[0]);
  uint32_t member = in.a[1] == kNoSlot ? 0xffffffffu : uint32_t(w.src(in.a[1])[__builtin_ctz(m)]);
  uint32_t bal = 0;
  each_lane(m, [&](int l) { if ((a[l] != 0) != bool(in.flags & kCC)) bal |= 1u << l; });
  uint32_t part = m & member;
  uint64_t r = in.mode == vBallot ? (bal & member)
             : in.mode == vAll ? ((bal & part) == part)
             : in.mode == vAny ? ((bal & part) != 0)
             : ((bal & part) == 0 || (bal & part) == part);
  uint64_t* d = w.reg(in.d[0]);
  each_lane(m, [&](int l) { d[l] = r; });
}
static void h_activemask(Exec&, Warp& w, const Instr& in, uint32_t m) {
  uint64_t* d = w.reg(in.d[0]);
  each_lane(m, [&](int l) { d[l] = m; });
}
static void h_warp_sync(Exec& x, Warp& w, const Instr& in, uint32_t m) { check_members(x, w, in, m, in.a[0]); }

template <class T>
struct Redux {
  static constexpr bool ok = is_int<T> && sizeof(T) == 4;
  static void run(Exec& x, Warp& w, const Instr& in, uint32_t m) {
    if (!check_members(x, w, in, m, in.a[1])) return;
    const uint64_t* a = w.src(in.a[0]);
    bool first = true;
    T r = 0;
    each_lane(m, [&](int l) {
      T v = get<T>(a[l]);
      if (first) { r = v; first = false; return; }
      switch (in.mode) {
        case aAdd: r = wadd(r, v); break;
        case aMin: r = std::min(r, v); break;
        case aMax: r = std::max(r, v); break;
        case aAnd: r = T(r & v); break;
        case aOr: r = T(r | v); break;
        default: r = T(r ^ v); break;
      }
    });
    uint64_t* d = w.reg(in.d[0]);
    each_lane(m, [&](int l) { d[l] = put(r); });
  }
};
template <class T>
struct Match {
  static constexpr bool ok = is_int<T> && sizeof(T) >= 4 && !std::is_signed_v<T>;
  static void run(Exec& x, Warp& w, const Instr& in, uint32_t m) {
    if (!check_members(x, w, in, m, in.a[1])) return;
    const uint64_t* a = w.src(in.a[0]);
    uint64_t* d = w.reg(in.d[0]);
    uint64_t* p = in.d[1] == kNoSlot ? nullptr : w.reg(in.d[1]);
    uint32_t same[32];
    each_lane(m, [&](int l) {
      uint32_t s = 0;
      each_lane(m, [&](int k) { if (get<T>(a[k]) == get<T>(a[l])) s |= 1u << k; });
      same[l] = s;
    });
    bool all = true;
    each_lane(m, [&](int l) { all = all && same[l] == m; });
    each_lane(m, [&](int l) {
      if (in.mode == 0) d[l] = same[l];
      else { d[l] = all ? m : 0; if (p) p[l] = all; }
    });
  }
};

static void h_nop(Exec&, Warp&, const Instr&, uint32_t) {}

// ---------------------------------------------------------------------------------------------
// Decoding helpers

namespace {

// The type, rounding mode and float flags (.ftz, .sat, ...) of an arithmetic instruction, which
// every arithmetic decoder reads the same way.
Ty arith_type(DecodeCtx& c, Mods& m, Instr& in) {
  const Ty t = m.type(c);
  in.type = t;
  in.rnd = m.rounding();
  in.flags = m.float_flags();
  return t;
}

// arithmetic rows: add, sub, mul, mad, div, rem, min, max, and, or, xor, shl, shr, ...
template <class Op>
void dec_binary(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  const Ty t = arith_type(c, m, in);
  m.done(c);
  need(c, p, 3);
  Ty bt = std::is_same_v<Op, Shl> || std::is_same_v<Op, Shr> ? Ty::U32 : t;
  operands(c, p, in, t, {t, bt});
  handler(c, p, in, pick<Binary, Op>(t));
}
template <class Op>
void dec_unary(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  const Ty t = arith_type(c, m, in);
  m.done(c);
  need(c, p, 2);
  operands(c, p, in, t);
  handler(c, p, in, pick<Unary, Op>(t));
}

void dec_add(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  if (m.has("cc") || m.has("c")) c.unsupported(p, "carry chains");
  if (m.has("sat")) {
    Ty t = m.type(c);
    m.done(c);
    need(c, p, 3);
    operands(c, p, in, t);
    in.type = t;
    handler(c, p, in, p.opcode == "add" ? pick<Binary, AddSat>(t) : pick<Binary, SubSat>(t));
    return;
  }
  p.opcode == "add" ? dec_binary<Add>(c, p, in) : dec_binary<Sub>(c, p, in);
}
void dec_mul(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  bool hi = m.has("hi"), wide = m.has("wide");
  m.has("lo");
  const Ty t = arith_type(c, m, in);
  m.done(c);
  need(c, p, 3);
  operands(c, p, in, t);
  handler(c, p, in, hi ? pick<Binary, MulHi>(t) : wide ? pick<Binary, MulWide>(t) : pick<Binary, MulLo>(t));
}
void dec_mad(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  bool hi = m.has("hi"), wide = m.has("wide");
  m.has("lo");
  const Ty t = arith_type(c, m, in);
  m.done(c);
  need(c, p, 4);
  if (wide) {
    static const std::map<Ty, Ty> w = {{Ty::U16, Ty::U32}, {Ty::S16, Ty::S32}, {Ty::U32, Ty::U64}, {Ty::S32, Ty::S64}};
    if (!w.count(t)) c.unsupported(p);
    operands(c, p, in, t, {t, t, w.at(t)});
    handler(c, p, in, pick1<MadWide>(t));
    return;
  }
  operands(c, p, in, t);
  // mad.rn.f32 / mad.f64 are fused
  handler(c, p, in, hi ? pick<Ternary, MadHi>(t) : ty_is_float(t) ? pick<Ternary, Fma>(t) : pick<Ternary, MadLo>(t));
}
void dec_fma(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  const Ty t = arith_type(c, m, in);
  m.done(c);
  need(c, p, 4);
  operands(c, p, in, t);
  handler(c, p, in, pick<Ternary, Fma>(t));
}
void dec_bfe(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  Ty t = m.type(c);
  m.done(c);
  need(c, p, 4);
  operands(c, p, in, t, {t, Ty::U32, Ty::U32});
  handler(c, p, in, pick<Ternary, Bfe>(t));
}
void dec_bfi(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  Ty t = m.type(c);
  m.done(c);
  need(c, p, 5);
  operands(c, p, in, t, {t, t, Ty::U32, Ty::U32});
  handler(c, p, in, pick1<Bfi>(t == Ty::B32 ? Ty::U32 : t == Ty::B64 ? Ty::U64 : t));
}
void dec_prmt(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  Ty t = m.type(c);
  m.done(c);  // the .f4e/.b4e/... modes are not supported: done() rejects them
  need(c, p, 4);
  operands(c, p, in, t);
  handler(c, p, in, pick<Ternary, Prmt>(Ty::U32));
}
void dec_selp(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  Ty t = m.type(c);
  m.done(c);
  need(c, p, 4);
  operands(c, p, in, t, {t, t, Ty::Pred});
  handler(c, p, in, pick1<Selp>(t));
}
// popc/clz/bfind produce a u32 whatever the source width.
template <class Op>
void dec_bitcount(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  bool shiftamt = m.has("shiftamt");
  Ty t = m.type(c);
  m.done(c);
  need(c, p, 2);
  operands(c, p, in, t);
  if (shiftamt) c.unsupported(p, "bfind.shiftamt");
  handler(c, p, in, pick<Unary, Op>(t));
}

void dec_setp(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  int cmp = -1;
  for (size_t i = 0; i < p.mods.size(); ++i)
    if (kCmp.count(p.mods[i])) { cmp = kCmp.at(p.mods[i]); m.used[i] = true; break; }
  if (cmp < 0) c.unsupported(p, "compare operation");
  in.mode = uint8_t(cmp);
  in.mode2 = m.has("and") ? bAnd : m.has("or") ? bOr : m.has("xor") ? bXor : bNone;
  m.has("ftz");
  auto ts = m.types();
  m.done(c);
  bool is_set = p.opcode == "set";
  if (ts.size() != (is_set ? 2u : 1u)) c.unsupported(p, "types");
  Ty t = ts.back();
  in.type = t;
  in.type2 = is_set ? ts[0] : Ty::Pred;
  size_t n = in.mode2 == bNone ? 3 : 4;
  need(c, p, n);
  in.d[0] = c.dst(p.ops[0]);
  if (!p.ops[0].pipe.empty()) in.d[1] = c.dst(p.ops[0].pipe[0]);
  in.a[0] = c.src(p.ops[1], t);
  in.a[1] = c.src(p.ops[2], t);
  if (n == 4) {
    in.a[2] = c.src(p.ops[3], Ty::Pred);
    if (p.ops[3].negated) in.flags |= kCC;
  }
  handler(c, p, in, is_set ? pick1<SetOp>(t) : pick1<Setp>(t));
}
void dec_testp(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  static const std::map<std::string, uint8_t> k = {{"finite", tFinite}, {"infinite", tInfinite}, {"number", tNumber},
                                                   {"notanumber", tNan}, {"normal", tNormal}, {"subnormal", tSubnormal}};
  int mode = -1;
  for (size_t i = 0; i < p.mods.size(); ++i)
    if (k.count(p.mods[i])) { mode = k.at(p.mods[i]); m.used[i] = true; }
  if (mode < 0) c.unsupported(p);
  in.mode = uint8_t(mode);
  Ty t = m.type(c);
  m.done(c);
  need(c, p, 2);
  operands(c, p, in, t);
  handler(c, p, in, pick1<TestpOp>(t));
}

void dec_cvt(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  in.rnd = m.rounding();
  in.flags = m.float_flags();
  auto ts = m.types();
  m.done(c);
  if (ts.size() != 2) c.unsupported(p, "expected two types");
  need(c, p, 2);
  in.type = ts[0];
  in.type2 = ts[1];
  in.d[0] = c.dst(p.ops[0]);
  in.a[0] = c.src(p.ops[1], ts[1]);
  in.nd = in.na = 1;
  if (ty_is_float(ts[0]) && ty_is_float(ts[1]) && ty_bytes(ts[0]) == ty_bytes(ts[1]) && in.rnd == kRndDefault)
    in.rnd = kRn;  // same-size float cvt without rounding: a copy with .ftz/.sat applied
  handler(c, p, in, pick_cvt(ts[0], ts[1]));
}

void dec_mov(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  Ty t = m.type(c);
  m.done(c);
  need(c, p, 2);
  in.type = t;
  in.bytes = uint8_t(ty_bytes(t));
  if (p.ops[1].kind == Operand::Vec) {  // pack
    if (p.ops[1].items.size() > 4) c.unsupported(p);
    in.d[0] = c.dst(p.ops[0]);
    in.nd = 1;
    for (size_t i = 0; i < p.ops[1].items.size(); ++i) in.a[i] = c.src(p.ops[1].items[i], Ty::None);
    in.na = uint8_t(p.ops[1].items.size());
    in.fn = h_pack;
    return;
  }
  if (p.ops[0].kind == Operand::Vec) {  // unpack
    if (p.ops[0].items.size() > 4) c.unsupported(p);
    for (size_t i = 0; i < p.ops[0].items.size(); ++i) in.d[i] = c.dst(p.ops[0].items[i]);
    in.nd = uint8_t(p.ops[0].items.size());
    in.a[0] = c.src(p.ops[1], t);
    in.fn = h_unpack;
    return;
  }
  operands(c, p, in, t);
  handler(c, p, in, pick<Unary, Mov>(t == Ty::Pred ? Ty::Pred : t));
}

Space space_of(Mods& m) {
  if (m.has("global")) return Space::Global;
  if (m.has("shared") || m.has("shared::cta")) { m.has("cta"); return Space::Shared; }
  if (m.has("local")) return Space::Local;
  if (m.has("param")) return Space::Param;
  if (m.has("const")) return Space::Const;
  return Space::Generic;
}
int vec_of(Mods& m) { return m.has("v2") ? 2 : m.has("v4") ? 4 : 1; }

void dec_cvta(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  in.mode = m.has("to");
  in.space = space_of(m);
  in.type = m.type(c);
  m.done(c);
  need(c, p, 2);
  in.d[0] = c.dst(p.ops[0]);
  in.a[0] = c.src(p.ops[1], in.type);
  in.fn = h_cvta;
}

// Cache eviction priorities (L1::evict_*, and L2::evict_* where PTX allows them): hints about what
// to keep in a cache the simulator does not model; they change no value.
void eviction_hints(Mods& m) {
  for (const char* h : {"L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last",
                        "L2::evict_normal", "L2::evict_first", "L2::evict_last"})
    m.has(h);
}

void dec_ld(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  Space s = space_of(m);
  if (m.has("nc")) in.flags |= kNc;
  if (m.has("volatile") || m.has("relaxed") || m.has("acquire")) in.flags |= kVolatile;
  m.has("ca"); m.has("cg"); m.has("cs"); m.has("lu"); m.has("cv"); m.has("gpu"); m.has("sys"); m.has("cta");
  m.has("L1::no_allocate"); m.has("L2::128B"); m.has("L2::256B");
  eviction_hints(m);
  const bool hint = m.has("L2::cache_hint");  // its cache-policy operand: a hint, nothing to simulate
  int v = vec_of(m);
  Ty t = m.type(c);
  m.done(c);
  need(c, p, hint ? 3 : 2);
  in.type = t;
  in.vec = uint8_t(v);
  in.bytes = uint8_t(ty_bytes(t));
  const Operand& dst = p.ops[0];
  if (v > 1) {
    if (dst.kind != Operand::Vec || dst.items.size() != size_t(v)) c.unsupported(p);
    for (int i = 0; i < v; ++i) in.d[i] = c.dst(dst.items[i]);
  } else {
    in.d[0] = c.dst(dst);
  }
  in.nd = uint8_t(v);
  Space sym = c.addr(p.ops[1], in);
  if (sym == Space::KParam) { handler(c, p, in, pick_mem<LdKParam>(t, v)); return; }
  if (sym == Space::Param) { handler(c, p, in, pick_mem<LdParam>(t, v)); return; }
  if (s == Space::Param) c.unsupported(p, "ld.param through a pointer");
  in.space = s == Space::Generic && sym != Space::Generic ? sym : s;
  in.cls = kMem;
  in.memop = kOpLd;
  handler(c, p, in, pick_mem<Ld>(t, v));
}
void dec_st(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  Space s = space_of(m);
  if (m.has("volatile") || m.has("relaxed") || m.has("release")) in.flags |= kVolatile;
  m.has("wb"); m.has("cg"); m.has("cs"); m.has("wt"); m.has("gpu"); m.has("sys"); m.has("cta");
  m.has("L1::no_allocate");
  eviction_hints(m);
  const bool hint = m.has("L2::cache_hint");
  int v = vec_of(m);
  Ty t = m.type(c);
  m.done(c);
  need(c, p, hint ? 3 : 2);
  in.type = t;
  in.vec = uint8_t(v);
  in.bytes = uint8_t(ty_bytes(t));
  const Operand& val = p.ops[1];
  if (v > 1) {
    if (val.kind != Operand::Vec || val.items.size() != size_t(v)) c.unsupported(p);
    for (int i = 0; i < v; ++i) in.d[i] = c.src(val.items[i], t);
  } else {
    in.d[0] = c.src(val, t);
  }
  in.nd = uint8_t(v);
  Space sym = c.addr(p.ops[0], in);
  if (sym == Space::Param) { handler(c, p, in, pick_mem<StParam>(t, v)); return; }
  if (sym == Space::KParam || s == Space::Param) c.unsupported(p, "st.param to a kernel parameter");
  in.space = s == Space::Generic && sym != Space::Generic ? sym : s;
  in.cls = kMem;
  in.memop = kOpSt;
  handler(c, p, in, pick_mem<St>(t, v));
}
// atom with an unused result: ptxas emits RED, and Nsight Compute counts it under op_red.
void dec_atom(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  bool red = p.opcode == "red";
  Space s = space_of(m);
  m.has("relaxed"); m.has("gpu"); m.has("cta"); m.has("sys");
  int op = -1;
  for (size_t i = 0; i < p.mods.size(); ++i)
    if (kAtom.count(p.mods[i])) { op = kAtom.at(p.mods[i]); m.used[i] = true; }
  if (op < 0) c.unsupported(p, "atomic operation");
  in.mode = uint8_t(op);
  Ty t = m.type(c);
  m.done(c);
  in.type = t;
  in.bytes = uint8_t(ty_bytes(t));
  size_t k = 0;
  if (!red) {
    in.d[0] = c.dst(p.ops[0]);
    if (c.result_unused(p.ops[0])) in.flags |= kResultUnused;
    k = 1;
  } else {
    in.flags |= kResultUnused;
  }
  size_t nsrc = op == aCas ? 2 : 1;
  if (p.ops.size() != k + 1 + nsrc) c.unsupported(p, "operands");
  Space sym = c.addr(p.ops[k], in);
  in.a[1] = c.src(p.ops[k + 1], t);
  if (op == aCas) in.a[2] = c.src(p.ops[k + 2], t);
  in.space = s == Space::Generic && sym != Space::Generic ? sym : s;
  in.cls = kMem;
  in.memop = (in.flags & kResultUnused) ? kOpRed : kOpAtom;
  Ty ht = t == Ty::B32 ? Ty::U32 : t == Ty::B64 ? Ty::U64 : t;
  handler(c, p, in, pick1<Atom>(ht));
}

void dec_bra(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  if (m.has("uni")) in.flags |= kUni;
  m.done(c);
  need(c, p, 1);
  in.cls = kBra;
  in.target = c.label(p.ops[0]);
}
void dec_call(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  if (m.has("uni")) in.flags |= kUni;
  m.done(c);
  in.cls = kCall;
  in.target = c.call_site(p);
}
void dec_ret(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  m.has("uni");
  m.done(c);
  in.cls = kRet;
}
void dec_exit(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods(p).done(c);
  in.cls = kExit;
}
void dec_trap(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods(p).done(c);
  in.cls = kTrap;
}
void dec_bar(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  if (m.has("warp")) {
    m.has("sync");
    m.done(c);
    need(c, p, 1);
    in.cls = kWarpSync;
    in.a[0] = c.src(p.ops[0], Ty::U32);
    in.fn = h_warp_sync;
    return;
  }
  if (!m.has("sync")) c.unsupported(p, "only bar.sync / barrier.sync");
  m.has("aligned");
  m.done(c);
  if (p.ops.size() != 1) c.unsupported(p, "barrier with a thread count");
  if (p.ops[0].kind != Operand::Number) c.unsupported(p, "barrier id in a register");
  in.cls = kBar;
  in.imm = std::stoll(p.ops[0].text);
}
// createpolicy: a 64-bit cache policy for the .L2::cache_hint operand of ld, st and cp.async. The
// simulator has no L2 to steer, so the value only has to be a well-defined 64-bit number: the
// primary and secondary priorities, one bit for the range form (its address and sizes are
// checked as operands, not used).
static void h_policy(Exec&, Warp& w, const Instr& in, uint32_t m) {
  uint64_t* d = w.reg(in.d[0]);
  each_lane(m, [&](int l) { d[l] = uint64_t(in.imm); });
}
void dec_createpolicy(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  const bool range = m.has("range");
  if (!range && !m.has("fractional")) c.unsupported(p, "expected .fractional or .range");
  if (range) m.has("global");
  static const char* kPriorities[] = {"L2::evict_normal", "L2::evict_first", "L2::evict_last", "L2::evict_unchanged"};
  int primary = -1, secondary = -1;
  for (size_t i = 0; i < p.mods.size(); ++i)
    for (int k = 0; k < 4; ++k)
      if (p.mods[i] == kPriorities[k]) {
        (primary < 0 ? primary : secondary) = k;
        m.used[i] = true;
      }
  if (primary < 0 || primary == 3) c.unsupported(p, "primary priority");
  if (!m.has("b64")) c.unsupported(p, "expected .b64");
  m.done(c);
  if (range ? p.ops.size() != 4 : p.ops.size() != 1 && p.ops.size() != 2) c.unsupported(p, "operands");
  in.d[0] = c.dst(p.ops[0]);
  in.nd = 1;
  for (size_t i = 1; i < p.ops.size(); ++i) {
    if (range && i == 1) {
      Instr addr;
      c.addr(p.ops[1], addr);
    } else if (p.ops[i].kind != Operand::Number && p.ops[i].kind != Operand::Name) {
      c.unsupported(p, "operands");
    }
  }
  in.imm = int64_t(0x5ca1e00000000000ull | uint64_t(range) << 8 | uint64_t(secondary < 0 ? 0 : secondary + 1) << 4 |
                   uint64_t(primary));
  in.fn = h_policy;
}
void dec_nop(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  in.cls = kNop;
  in.fn = h_nop;
  (void)c;
  (void)p;
}
void dec_sleep(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  in.cls = kSleep;
  in.fn = h_nop;
  (void)c;
  (void)p;
}
void dec_shfl(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  if (!m.has("sync")) c.unsupported(p, "shfl without .sync");
  in.mode = m.has("up") ? sUp : m.has("down") ? sDown : m.has("bfly") ? sBfly : m.has("idx") ? sIdx : 0xff;
  if (in.mode == 0xff) c.unsupported(p);
  Ty t = m.type(c);
  m.done(c);
  need(c, p, 5);
  in.cls = kWarpSync;
  in.type = t;
  in.d[0] = c.dst(p.ops[0]);
  if (!p.ops[0].pipe.empty()) in.d[1] = c.dst(p.ops[0].pipe[0]);
  for (int i = 0; i < 4; ++i) in.a[i] = c.src(p.ops[i + 1], Ty::U32);
  in.fn = h_shfl;
}
void dec_vote(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  if (!m.has("sync")) c.unsupported(p, "vote without .sync");
  in.mode = m.has("all") ? vAll : m.has("any") ? vAny : m.has("uni") ? vUni : m.has("ballot") ? vBallot : 0xff;
  if (in.mode == 0xff) c.unsupported(p);
  m.types();
  m.done(c);
  need(c, p, 3);
  in.cls = kWarpSync;
  in.d[0] = c.dst(p.ops[0]);
  in.a[0] = c.src(p.ops[1], Ty::Pred);
  if (p.ops[1].negated) in.flags |= kCC;
  in.a[1] = c.src(p.ops[2], Ty::U32);
  in.fn = h_vote;
}
void dec_activemask(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  m.types();
  m.done(c);
  need(c, p, 1);
  in.d[0] = c.dst(p.ops[0]);
  in.fn = h_activemask;
}
void dec_redux(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  if (!m.has("sync")) c.unsupported(p);
  int op = -1;
  for (const char* o : {"add", "min", "max", "and", "or", "xor"})
    if (m.has(o)) op = kAtom.at(o);
  if (op < 0) c.unsupported(p);
  in.mode = uint8_t(op);
  Ty t = m.type(c);
  m.done(c);
  need(c, p, 3);
  in.cls = kWarpSync;
  in.d[0] = c.dst(p.ops[0]);
  in.a[0] = c.src(p.ops[1], t);
  in.a[1] = c.src(p.ops[2], Ty::U32);
  handler(c, p, in, pick1<Redux>(t == Ty::B32 ? Ty::U32 : t));
}
void dec_match(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  if (!m.has("sync")) c.unsupported(p);
  in.mode = m.has("any") ? 0 : m.has("all") ? 1 : 0xff;
  if (in.mode == 0xff) c.unsupported(p);
  Ty t = m.type(c);
  m.done(c);
  need(c, p, 3);
  in.cls = kWarpSync;
  in.d[0] = c.dst(p.ops[0]);
  if (!p.ops[0].pipe.empty()) in.d[1] = c.dst(p.ops[0].pipe[0]);
  in.a[0] = c.src(p.ops[1], t);
  in.a[1] = c.src(p.ops[2], Ty::U32);
  handler(c, p, in, pick1<Match>(t == Ty::B32 ? Ty::U32 : t == Ty::B64 ? Ty::U64 : t));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The opcode table: one row per PTX opcode. tests/engine/opcode_test.cpp walks it.

#define SIM_OPCODES(X)                                                                           \
  X(add, dec_add) X(sub, dec_add) X(mul, dec_mul) X(mad, dec_mad) X(fma, dec_fma)                \
  X(div, dec_binary<Div>) X(rem, dec_binary<Rem>) X(min, dec_binary<Min>) X(max, dec_binary<Max>) \
  X(and, dec_binary<And>) X(or, dec_binary<Or>) X(xor, dec_binary<Xor>) X(not, dec_unary<Not>)  \
  X(cnot, dec_unary<Cnot>) X(shl, dec_binary<Shl>) X(shr, dec_binary<Shr>)                       \
  X(neg, dec_unary<Neg>) X(abs, dec_unary<Abs>) X(popc, dec_bitcount<Popc>)                      \
  X(clz, dec_bitcount<Clz>) X(brev, dec_unary<Brev>) X(bfind, dec_bitcount<Bfind>)               \
  X(bfe, dec_bfe) X(bfi, dec_bfi) X(prmt, dec_prmt) X(selp, dec_selp) X(setp, dec_setp)          \
  X(set, dec_setp) X(testp, dec_testp) X(copysign, dec_binary<Copysign>)                         \
  X(rcp, dec_unary<Rcp>) X(sqrt, dec_unary<Sqrt>) X(rsqrt, dec_unary<Rsqrt>)                     \
  X(ex2, dec_unary<Ex2>) X(lg2, dec_unary<Lg2>) X(sin, dec_unary<Sin>) X(cos, dec_unary<Cos>)    \
  X(tanh, dec_unary<Tanh>) X(cvt, dec_cvt) X(cvta, dec_cvta) X(mov, dec_mov)                     \
  X(ld, dec_ld) X(ldu, dec_ld) X(st, dec_st) X(atom, dec_atom) X(red, dec_atom)                  \
  X(bra, dec_bra) X(call, dec_call) X(ret, dec_ret) X(exit, dec_exit) X(trap, dec_trap)          \
  X(bar, dec_bar) X(barrier, dec_bar) X(membar, dec_nop) X(fence, dec_nop)                       \
  X(nanosleep, dec_sleep) X(prefetch, dec_nop) X(shfl, dec_shfl) X(vote, dec_vote)                 \
  X(activemask, dec_activemask) X(redux, dec_redux) X(match, dec_match)                         \
  X(createpolicy, dec_createpolicy)

const std::vector<OpcodeRow>& opcode_table() {
  static const std::vector<OpcodeRow> rows = [] {
    std::vector<OpcodeRow> r = {
#define X(name, dec) {#name, dec},
        SIM_OPCODES(X)
#undef X
    };
    for (const OpcodeRow& t : tensor_opcode_rows()) r.push_back(t);
    return r;
  }();
  return rows;
}
const OpcodeRow* find_row(const ParsedInstr& p) {
  if (const OpcodeRow* h = find_half_row(p)) return h;
  return find_opcode(p.opcode);
}
const OpcodeRow* find_opcode(const std::string& name) {
  static const std::map<std::string, const OpcodeRow*> index = [] {
    std::map<std::string, const OpcodeRow*> m;
    for (auto& r : opcode_table()) m[r.name] = &r;
    return m;
  }();
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}
std::vector<std::string> opcode_names() {
  std::vector<std::string> n;
  for (auto& r : opcode_table()) n.push_back(r.name);
  for (auto& r : half_opcode_rows()) n.push_back(r.name);
  return n;
}

}  // namespace sim::eng
