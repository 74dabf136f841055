// Half-precision rows (add.half ... cvt.half, ops_half.cpp) on ptx/half.ptx, bit for bit against a
// reference that shares no code with the simulator: exact results in __float128, rounded by a
// search over the format's bit patterns.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "covered_rows.h"
#include "test_memory.h"

using simtest::Args;
using simtest::TestMemory;

namespace {

using u16 = uint16_t;
using u32 = uint32_t;
using quad = __float128;

// ---- the reference

struct Format {
  bool bf;                         // bf16, else f16
  u16 inf() const { return bf ? 0x7f80 : 0x7c00; }
  quad value(u16 h) const {        // exact
    if (bf) { u32 b = u32(h) << 16; float f; memcpy(&f, &b, 4); return f; }
    _Float16 x; memcpy(&x, &h, 2); return quad(float(x));
  }
  quad overflow() const { return bf ? quad(std::ldexp(1.0, 128)) : quad(65536.0); }  // 2^(emax+1)
  bool nan(u16 h) const { return (h & 0x7fff) > inf(); }
  bool subnormal(u16 h) const { return (h & 0x7fff) != 0 && (h & 0x7fff) < (bf ? 0x0080 : 0x0400); }
};
constexpr Format kF16{false}, kBF16{true};

enum Mode { RN, RZ, RM, RP };

// The pattern nearest x in mode m: the largest pattern at or below |x| by binary search, then the
// mode's choice between it and the next one up. NaN -> 0x7fff (the GPU's canonical NaN).
u16 round_ref(quad x, const Format& f, Mode m) {
  if (x != x) return 0x7fff;
  const bool neg = x < 0 || (x == 0 && std::signbit(double(x)));
  const quad a = neg ? -x : x;
  const u16 sign = neg ? 0x8000 : 0;
  u32 lo = 0, hi = f.inf();  // invariant: value(lo) <= a, and a < value(hi) unless a is inf
  if (a >= f.value(f.inf())) return sign | f.inf();
  while (hi - lo > 1) {
    u32 mid = (lo + hi) / 2;
    (f.value(u16(mid)) <= a ? lo : hi) = mid;
  }
  if (f.value(u16(lo)) == a) return sign | u16(lo);
  const quad vlo = f.value(u16(lo)), vhi = hi == f.inf() ? f.overflow() : f.value(u16(hi));
  bool up;
  switch (m) {
    case RZ: up = false; break;
    case RM: up = neg; break;
    case RP: up = !neg; break;
    default: up = a - vlo > vhi - a || (a - vlo == vhi - a && (lo & 1)); break;
  }
  return sign | u16(up ? hi : lo);
}

// ---- inputs: random patterns, plus the special values, plus values whose sums and products
// land on ties and on the overflow edge.
std::vector<u16> inputs(const Format& f, size_t n, uint32_t seed, bool narrow) {
  std::mt19937 g{seed};
  std::vector<u16> v = {0x0000, 0x8000, f.inf(), u16(0x8000 | f.inf()), 0x7fff, u16(f.inf() + 1), 0x0001, 0x8001,
                        u16(f.bf ? 0x3f80 : 0x3c00), u16(f.bf ? 0xbf80 : 0xbc00), u16(f.inf() - 1), u16(0x8000 | (f.inf() - 1))};
  while (v.size() < n) {
    u16 h = u16(g());
    if (narrow) {  // exponents within +-2^12 of 1: every exact result fits a __float128
      const int mant_bits = f.bf ? 7 : 10, bias = f.bf ? 127 : 15;
      const int e = bias + int(g() % 25) - 12;
      h = u16((h & 0x8000) | (e << mant_bits) | (g() & ((1u << mant_bits) - 1)));
    }
    v.push_back(h);
  }
  return v;
}

struct Kernels {
  std::unique_ptr<sim::Module> mod = sim::Module::parse(simtest::read_ptx("half.ptx"));
  TestMemory mem;
  // Runs kernel on n elements of a, b, c (each element `in_bytes` wide); returns d (out_bytes wide).
  template <class Out, class In>
  std::vector<Out> run(const std::string& k, const std::vector<In>& a, const std::vector<In>& b, const std::vector<In>& c) {
    const int n = int(a.size());
    uint64_t da = mem.upload(a), db = mem.upload(b), dc = mem.upload(c), dd = mem.alloc(a.size() * sizeof(Out));
    Args args;
    args.add(da).add(db).add(dc).add(dd).add(n);
    sim::LaunchParams lp;
    lp.kernel = k;
    lp.grid = {4, 1, 1};
    lp.block = {128, 1, 1};
    lp.args = args.get();
    lp.host_threads = 1;
    auto r = mod->launch(lp, mem);
    EXPECT_TRUE(r.errors.empty()) << k << ": " << (r.errors.empty() ? "" : r.errors[0].message);
    return mem.download<Out>(dd, a.size());
  }
};

std::string hex(uint64_t v) {
  char b[24];
  snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

// ---- scalar and packed arithmetic

using Ref3 = std::function<u16(u16, u16, u16)>;

void check16(const char* kernel, const Format& f, bool narrow, const Ref3& ref) {
  SCOPED_TRACE(kernel);
  Kernels run;
  auto a = inputs(f, 3000, 1, narrow), b = inputs(f, 3000, 2, narrow), c = inputs(f, 3000, 3, narrow);
  std::shuffle(b.begin(), b.end(), std::mt19937(7));
  auto d = run.run<u16>(kernel, a, b, c);
  int bad = 0;
  for (size_t i = 0; i < a.size() && bad < 5; ++i) {
    u16 want = ref(a[i], b[i], c[i]);
    if (d[i] != want) {
      ++bad;
      ADD_FAILURE() << kernel << "(" << hex(a[i]) << ", " << hex(b[i]) << ", " << hex(c[i]) << ") = " << hex(d[i])
                    << ", want " << hex(want);
    }
  }
}
// The same reference applied to both halves of 32-bit operands.
void check16x2(const char* kernel, const Format& f, bool narrow, const Ref3& ref) {
  SCOPED_TRACE(kernel);
  Kernels run;
  auto lo = inputs(f, 6000, 4, narrow);
  std::vector<u32> a(3000), b(3000), c(3000);
  for (size_t i = 0; i < 3000; ++i) {
    a[i] = lo[i] | u32(lo[(i * 7 + 1) % 6000]) << 16;
    b[i] = lo[(i * 13 + 5) % 6000] | u32(lo[(i * 3 + 2) % 6000]) << 16;
    c[i] = lo[(i * 11 + 3) % 6000] | u32(lo[(i * 17 + 9) % 6000]) << 16;
  }
  auto d = run.run<u32>(kernel, a, b, c);
  int bad = 0;
  for (size_t i = 0; i < a.size() && bad < 5; ++i) {
    u32 want = ref(u16(a[i]), u16(b[i]), u16(c[i])) | u32(ref(u16(a[i] >> 16), u16(b[i] >> 16), u16(c[i] >> 16))) << 16;
    if (d[i] != want) {
      ++bad;
      ADD_FAILURE() << kernel << "(" << hex(a[i]) << ", " << hex(b[i]) << ", " << hex(c[i]) << ") = " << hex(d[i])
                    << ", want " << hex(want);
    }
  }
}

// Reference arithmetic: NaN in -> canonical NaN; otherwise the exact value rounded once.
Ref3 arith(const Format& f, std::function<quad(quad, quad, quad)> op, bool ftz = false, bool ternary = false) {
  return [f, op, ftz, ternary](u16 a, u16 b, u16 c) -> u16 {
    if (!ternary) c = 0;  // the kernel's c is not an operand
    if (f.nan(a) || f.nan(b) || f.nan(c)) return 0x7fff;
    auto in = [&](u16 h) { return ftz && f.subnormal(h) ? u16(h & 0x8000) : h; };
    quad x = op(f.value(in(a)), f.value(in(b)), f.value(in(c)));
    // Signed zero of an exact zero sum: +0 unless both addends are -0 (IEEE, round to nearest).
    u16 r = round_ref(x, f, RN);  // an exact zero keeps IEEE's sign (quad arithmetic gives it)
    if (ftz && f.subnormal(r)) r &= 0x8000;
    return r;
  };
}

quad add_q(quad a, quad b, quad) { return a + b; }
quad sub_q(quad a, quad b, quad) { return a - b; }
quad mul_q(quad a, quad b, quad) { return a * b; }
quad fma_q(quad a, quad b, quad c) { return a * b + c; }

TEST(Half, AddSubMulF16) {
  check16("add_f16", kF16, false, arith(kF16, add_q));
  check16("add_rn_f16", kF16, false, arith(kF16, add_q));
  check16("sub_f16", kF16, false, arith(kF16, sub_q));
  check16("mul_f16", kF16, false, arith(kF16, mul_q));
  check16("mul_ftz_f16", kF16, false, arith(kF16, mul_q, true));
}
TEST(Half, FmaF16) {
  check16("fma_f16", kF16, false, arith(kF16, fma_q, false, true));
  check16("fma_ftz_f16", kF16, false, arith(kF16, fma_q, true, true));
  auto relu = arith(kF16, fma_q, false, true);
  check16("fma_relu_f16", kF16, false, [relu](u16 a, u16 b, u16 c) -> u16 {
    u16 r = relu(a, b, c);
    return r == 0x7fff ? r : (r & 0x8000) ? 0 : r;
  });
  check16("fma_sat_f16", kF16, false, [](u16 a, u16 b, u16 c) -> u16 {
    if (kF16.nan(a) || kF16.nan(b) || kF16.nan(c)) return 0;
    quad x = kF16.value(a) * kF16.value(b) + kF16.value(c);
    if (x != x || x <= 0) return 0;  // NaN (inf - inf) and negatives: +0
    return x >= 1 ? 0x3c00 : round_ref(x, kF16, RN);
  });
  check16("add_sat_f16", kF16, false, [](u16 a, u16 b, u16) -> u16 {
    if (kF16.nan(a) || kF16.nan(b)) return 0;
    quad x = kF16.value(a) + kF16.value(b);
    if (x != x || x <= 0) return 0;
    return x >= 1 ? 0x3c00 : round_ref(x, kF16, RN);
  });
}
TEST(Half, ArithmeticBf16) {
  check16("add_bf16", kBF16, true, arith(kBF16, add_q));
  check16("sub_bf16", kBF16, true, arith(kBF16, sub_q));
  check16("mul_bf16", kBF16, false, arith(kBF16, mul_q));
  check16("fma_bf16", kBF16, true, arith(kBF16, fma_q, false, true));
  auto fma = arith(kBF16, fma_q, false, true);
  check16("fma_relu_bf16", kBF16, true, [fma](u16 a, u16 b, u16 c) -> u16 {
    u16 r = fma(a, b, c);
    return r == 0x7fff ? r : (r & 0x8000) ? 0 : r;
  });
}
TEST(Half, PackedArithmetic) {
  check16x2("add_f16x2", kF16, false, arith(kF16, add_q));
  check16x2("sub_f16x2", kF16, false, arith(kF16, sub_q));
  check16x2("mul_f16x2", kF16, false, arith(kF16, mul_q));
  check16x2("fma_f16x2", kF16, false, arith(kF16, fma_q, false, true));
  auto fma = arith(kF16, fma_q, false, true);
  check16x2("fma_relu_f16x2", kF16, false, [fma](u16 a, u16 b, u16 c) -> u16 {
    u16 r = fma(a, b, c);
    return r == 0x7fff ? r : (r & 0x8000) ? 0 : r;
  });
  check16x2("add_bf16x2", kBF16, true, arith(kBF16, add_q));
  check16x2("mul_bf16x2", kBF16, false, arith(kBF16, mul_q));
  check16x2("fma_bf16x2", kBF16, true, arith(kBF16, fma_q, false, true));
}

// min/max: NaN loses unless .NaN; -0 < +0.
Ref3 minmax(const Format& f, bool is_max, bool nan_mode) {
  return [f, is_max, nan_mode](u16 a, u16 b, u16) -> u16 {
    bool na = f.nan(a), nb = f.nan(b);
    if ((na && nb) || (nan_mode && (na || nb))) return 0x7fff;
    if (na) return b;
    if (nb) return a;
    quad x = f.value(a), y = f.value(b);
    if (x == y) return is_max ? ((a & 0x8000) ? b : a) : ((a & 0x8000) ? a : b);
    return (x < y) != is_max ? a : b;
  };
}
TEST(Half, MinMax) {
  check16("min_f16", kF16, false, minmax(kF16, false, false));
  check16("max_f16", kF16, false, minmax(kF16, true, false));
  check16("min_nan_f16", kF16, false, minmax(kF16, false, true));
  check16("max_nan_f16", kF16, false, minmax(kF16, true, true));
  check16("min_bf16", kBF16, false, minmax(kBF16, false, false));
  check16("max_bf16", kBF16, false, minmax(kBF16, true, false));
  check16x2("min_f16x2", kF16, false, minmax(kF16, false, false));
  check16x2("max_f16x2", kF16, false, minmax(kF16, true, false));
  check16x2("min_bf16x2", kBF16, false, minmax(kBF16, false, false));
  check16x2("max_nan_bf16x2", kBF16, false, minmax(kBF16, true, true));
}
TEST(Half, NegAbs) {
  // The sign bit; a NaN gives the canonical NaN (as the H200 does: sim/validation/tc_numerics.cu).
  auto neg = [](const Format& f) { return [f](u16 a, u16, u16) -> u16 { return f.nan(a) ? u16(0x7fff) : u16(a ^ 0x8000); }; };
  auto abs = [](const Format& f) { return [f](u16 a, u16, u16) -> u16 { return f.nan(a) ? u16(0x7fff) : u16(a & 0x7fff); }; };
  check16("neg_f16", kF16, false, neg(kF16));
  check16("abs_f16", kF16, false, abs(kF16));
  check16("neg_bf16", kBF16, false, neg(kBF16));
  check16("abs_bf16", kBF16, false, abs(kBF16));
  check16x2("neg_f16x2", kF16, false, neg(kF16));
  check16x2("abs_f16x2", kF16, false, abs(kF16));
  check16x2("neg_bf16x2", kBF16, false, neg(kBF16));
  check16x2("abs_bf16x2", kBF16, false, abs(kBF16));
}

// ---- comparisons

TEST(Half, SetpAndSet) {
  auto lt = [](const Format& f, u16 a, u16 b) { return !f.nan(a) && !f.nan(b) && f.value(a) < f.value(b); };
  // scalar setp: one predicate
  check16("setp_lt_f16", kF16, false, [&](u16 a, u16 b, u16) -> u16 { return lt(kF16, a, b); });
  check16("setp_gtu_f16", kF16, false, [&](u16 a, u16 b, u16) -> u16 {
    return kF16.nan(a) || kF16.nan(b) || kF16.value(a) > kF16.value(b);
  });
  check16("setp_ge_bf16", kBF16, false, [&](u16 a, u16 b, u16) -> u16 {
    return !kBF16.nan(a) && !kBF16.nan(b) && kBF16.value(a) >= kBF16.value(b);
  });
  // x2 setp: p from the low halves, q from the high halves (the PTX ISA's semantics)
  Kernels run;
  auto lo = inputs(kF16, 2000, 9, false);
  std::vector<u32> a(1000), b(1000), z(1000);
  for (size_t i = 0; i < 1000; ++i) a[i] = lo[i] | u32(lo[i + 1000]) << 16, b[i] = lo[(i * 7) % 2000] | u32(lo[(i * 3 + 1) % 2000]) << 16;
  auto neu = run.run<u32>("setp_neu_f16x2", a, b, z);
  auto ltb = run.run<u32>("setp_lt_bf16x2", a, b, z);
  auto setlt = run.run<u32>("set_lt_u32_f16x2", a, b, z);
  auto setequ = run.run<u32>("set_equ_f16x2_f16x2", a, b, z);
  for (size_t i = 0; i < 1000; ++i) {
    auto half = [&](u32 v, int k) { return u16(v >> (16 * k)); };
    auto ne_u = [&](int k) { u16 x = half(a[i], k), y = half(b[i], k); return kF16.nan(x) || kF16.nan(y) || kF16.value(x) != kF16.value(y); };
    auto eq_u = [&](int k) { u16 x = half(a[i], k), y = half(b[i], k); return kF16.nan(x) || kF16.nan(y) || kF16.value(x) == kF16.value(y); };
    ASSERT_EQ(neu[i], u32(ne_u(0)) | u32(ne_u(1)) << 1) << hex(a[i]) << " " << hex(b[i]);
    ASSERT_EQ(ltb[i], u32(lt(kBF16, half(a[i], 0), half(b[i], 0))) | u32(lt(kBF16, half(a[i], 1), half(b[i], 1))) << 1);
    ASSERT_EQ(setlt[i], (lt(kF16, half(a[i], 0), half(b[i], 0)) ? 0xffffu : 0u) | (lt(kF16, half(a[i], 1), half(b[i], 1)) ? 0xffff0000u : 0u));
    ASSERT_EQ(setequ[i], (eq_u(0) ? 0x3c00u : 0u) | (eq_u(1) ? 0x3c000000u : 0u));
  }
}

// ---- conversions

std::vector<u32> f32_inputs(size_t n, uint32_t seed) {
  std::mt19937 g{seed};
  std::vector<u32> v = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x477fefffu, 0x477ff000u, 0x477ff001u,
                        0x38800000u, 0x33800000u, 0x33000001u, 0x33000000u, 0x3f800000u, 0x7f7fffffu, 0x00000001u};
  while (v.size() < n) {
    u32 x = g();
    if (g() % 2) x = (x & 0x83ffffffu) | u32(100 + g() % 60) << 23;  // the f16 range and around it
    v.push_back(x);
  }
  return v;
}
quad f32q(u32 b) { float f; memcpy(&f, &b, 4); return quad(f); }

TEST(Half, CvtF32ToHalfEveryMode) {
  Kernels run;
  auto a = f32_inputs(4000, 11);
  std::vector<u32> z(a.size());
  struct C { const char* k; const Format* f; Mode m; };
  for (C c : {C{"cvt_rn_f16_f32", &kF16, RN}, C{"cvt_rz_f16_f32", &kF16, RZ}, C{"cvt_rm_f16_f32", &kF16, RM},
              C{"cvt_rp_f16_f32", &kF16, RP}, C{"cvt_rn_bf16_f32", &kBF16, RN}, C{"cvt_rz_bf16_f32", &kBF16, RZ},
              C{"cvt_rm_bf16_f32", &kBF16, RM}, C{"cvt_rp_bf16_f32", &kBF16, RP}}) {
    auto d = run.run<u16>(c.k, a, z, z);
    int bad = 0;
    for (size_t i = 0; i < a.size() && bad < 5; ++i) {
      const quad x = f32q(a[i]);
      u16 want = x != x ? 0x7fff : round_ref(x, *c.f, c.m);
      if (d[i] != want) ++bad, ADD_FAILURE() << c.k << "(" << hex(a[i]) << ") = " << hex(d[i]) << ", want " << hex(want);
    }
  }
  auto relu = run.run<u16>("cvt_rn_relu_f16_f32", a, z, z);
  auto satf = run.run<u16>("cvt_rn_satfinite_f16_f32", a, z, z);
  auto relu_bf = run.run<u16>("cvt_rn_relu_bf16_f32", a, z, z);
  for (size_t i = 0; i < a.size(); ++i) {
    const quad x = f32q(a[i]);
    u16 rn = x != x ? 0x7fff : round_ref(x, kF16, RN);
    ASSERT_EQ(relu[i], rn == 0x7fff ? rn : (rn & 0x8000) ? 0 : rn) << hex(a[i]);
    ASSERT_EQ(satf[i], (rn & 0x7fff) == 0x7c00 ? u16((rn & 0x8000) | 0x7bff) : rn) << hex(a[i]);
    u16 rb = x != x ? 0x7fff : round_ref(x, kBF16, RN);
    ASSERT_EQ(relu_bf[i], rb == 0x7fff ? rb : (rb & 0x8000) ? 0 : rb) << hex(a[i]);
  }
}

TEST(Half, CvtToF32AndOthers) {
  Kernels run;
  auto h = inputs(kF16, 3000, 21, false);
  std::vector<u16> z16(h.size());
  auto f = run.run<u32>("cvt_f32_f16", h, z16, z16);
  auto fb = run.run<u32>("cvt_f32_bf16", h, z16, z16);
  auto rzi = run.run<u32>("cvt_rzi_s32_f16", h, z16, z16);
  auto rni = run.run<u16>("cvt_rni_f16_f16", h, z16, z16);
  for (size_t i = 0; i < h.size(); ++i) {
    float want = float(kF16.value(h[i]));
    u32 wb;
    memcpy(&wb, &want, 4);
    if (kF16.nan(h[i])) ASSERT_TRUE(std::isnan(*reinterpret_cast<float*>(&f[i]))) << hex(h[i]);
    else ASSERT_EQ(f[i], wb) << hex(h[i]);
    ASSERT_EQ(fb[i], u32(h[i]) << 16) << hex(h[i]);  // a shift, NaNs too (the H200's bits)
    const double v = double(kF16.value(h[i]));
    const int32_t iz = v != v ? 0 : v >= 2147483647.0 ? INT32_MAX : v <= -2147483648.0 ? INT32_MIN : int32_t(std::trunc(v));
    ASSERT_EQ(int32_t(rzi[i]), iz) << hex(h[i]);
    if (!kF16.nan(h[i])) ASSERT_EQ(kF16.value(rni[i]), quad(std::nearbyint(v))) << hex(h[i]);
  }
  // f32 pairs -> f16x2: a to the high half; tf32 with ties away from zero; f64 and s32 -> f16
  auto a = f32_inputs(3000, 31), b = f32_inputs(3000, 32);
  std::vector<u32> z(a.size());
  auto x2 = run.run<u32>("cvt_rn_f16x2_f32", a, b, z);
  auto bx2 = run.run<u32>("cvt_rn_relu_bf16x2_f32", a, b, z);
  auto tf = run.run<u32>("cvt_rna_tf32_f32", a, z, z);
  auto d64 = run.run<u16>("cvt_rn_f16_f64", a, b, z);
  auto s32 = run.run<u16>("cvt_rn_f16_s32", a, z, z);
  auto bs32 = run.run<u16>("cvt_rn_bf16_s32", a, z, z);
  for (size_t i = 0; i < a.size(); ++i) {
    auto rn = [](u32 bits, const Format& fm) { quad x = f32q(bits); return x != x ? u16(0x7fff) : round_ref(x, fm, RN); };
    ASSERT_EQ(x2[i], u32(rn(b[i], kF16)) | u32(rn(a[i], kF16)) << 16) << hex(a[i]) << " " << hex(b[i]);
    auto relu = [](u16 r) { return r == 0x7fff ? r : (r & 0x8000) ? u16(0) : r; };
    ASSERT_EQ(bx2[i], u32(relu(rn(b[i], kBF16))) | u32(relu(rn(a[i], kBF16))) << 16);
    // tf32: 10 mantissa bits, nearest with ties away from zero, low 13 bits zero
    u32 want_tf;
    // a NaN loses its low 13 bits (the H200's bits); one whose payload was all there: canonical
    if ((a[i] & 0x7fffffffu) > 0x7f800000u) want_tf = (a[i] & 0x7fffe000u) > 0x7f800000u ? a[i] & ~0x1fffu : 0x7fffffffu;
    else if ((a[i] & 0x7f800000u) == 0x7f800000u) want_tf = a[i];
    else {
      want_tf = (a[i] + 0x1000u) & ~0x1fffu;  // add half an ulp of tf32, truncate: ties go up in magnitude
      if ((want_tf & 0x7f800000u) == 0x7f800000u) want_tf = (a[i] & 0x80000000u) | 0x7f800000u;
    }
    ASSERT_EQ(tf[i], want_tf) << hex(a[i]);
    uint64_t bits = uint64_t(b[i]) << 32 | a[i];
    double dv;
    memcpy(&dv, &bits, 8);
    ASSERT_EQ(d64[i], dv != dv ? u16(0x7fff) : round_ref(quad(dv), kF16, RN)) << hex(bits);
    ASSERT_EQ(s32[i], round_ref(quad(int32_t(a[i])), kF16, RN)) << int32_t(a[i]);
    ASSERT_EQ(bs32[i], round_ref(quad(int32_t(a[i])), kBF16, RN)) << int32_t(a[i]);
  }
  // mov.b32 {lo, hi} and back, through .f16 registers
  auto sw = run.run<u32>("pack_swap_f16x2", a, z, z);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(sw[i], a[i] >> 16 | a[i] << 16);
}

const simtest::CoveredRows kRows({{"add.half", "Half.AddSubMulF16, Half.ArithmeticBf16, Half.PackedArithmetic"},
                                   {"sub.half", "Half.AddSubMulF16"}, {"mul.half", "Half.AddSubMulF16"},
                                   {"fma.half", "Half.FmaF16"}, {"min.half", "Half.MinMax"}, {"max.half", "Half.MinMax"},
                                   {"neg.half", "Half.NegAbs"}, {"abs.half", "Half.NegAbs"},
                                   {"setp.half", "Half.SetpAndSet"}, {"set.half", "Half.SetpAndSet"},
                                   {"cvt.half", "Half.CvtF32ToHalfEveryMode, Half.CvtToF32AndOthers"}});

}  // namespace
