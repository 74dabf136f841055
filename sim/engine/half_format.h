// The 16-bit float formats (f16, bf16) and tf32: exact decoding, and correctly rounded encoding of
// an exact value held as a double plus an error term, in every rounding mode PTX names. Shared by
// the half-precision instructions (ops_half.cpp) and the tensor-core ones (ops_tensor.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "program.h"

namespace sim::eng {

// A binary format: significand bits (hidden bit included), exponent range of normal numbers, and
// where its bits sit in the register (tf32 is an f32 bit pattern whose low 13 bits are zero).
struct Fmt {
  int p, emin, emax, ebits, width, shift;
  uint32_t sign_bit() const { return 1u << (width - 1); }
  uint32_t inf() const { return ((1u << ebits) - 1) << (p - 1 + shift); }
  uint32_t max_finite() const { return inf() - (1u << shift); }
  // The GPU's canonical NaN: every NaN result of an f16/bf16 operation reads 0x7fff.
  uint32_t nan() const { return width == 16 ? 0x7fffu : 0x7fffffffu; }
};
constexpr Fmt kF16{11, -14, 15, 5, 16, 0};
constexpr Fmt kBF16{8, -126, 127, 8, 16, 0};
constexpr Fmt kTF32{11, -126, 127, 8, 32, 13};
constexpr Fmt kF32{24, -126, 127, 8, 32, 0};

// The value of a bit pattern, exactly (every format here fits a double).
inline double decode(uint32_t bits, const Fmt& f) {
  const uint32_t sign = bits & f.sign_bit();
  const uint32_t mant_bits = f.p - 1 + f.shift;
  const uint32_t e = (bits >> mant_bits) & ((1u << f.ebits) - 1);
  const uint32_t m = (bits >> f.shift) & ((1u << (f.p - 1)) - 1);
  double v;
  if (e == (1u << f.ebits) - 1) v = m ? NAN : INFINITY;
  else if (e == 0) v = std::ldexp(double(m), f.emin - (f.p - 1));
  else v = std::ldexp(double(m | (1u << (f.p - 1))), int(e) - (1 << (f.ebits - 1)) + 1 - (f.p - 1));
  return sign ? -v : v;
}
inline bool is_nan(uint32_t bits, const Fmt& f) {
  return (bits & (f.sign_bit() - 1)) > f.inf();
}
inline bool is_subnormal(uint32_t bits, const Fmt& f) {
  const uint32_t mag = bits & (f.sign_bit() - 1);
  return mag != 0 && mag < (1u << (f.p - 1 + f.shift));
}

// An exact real value as s + e: s a double, |e| at most half an ulp of s (what TwoSum gives).
struct Exact {
  double s = 0, e = 0;
};
inline Exact two_sum(double a, double b) {
  double s = a + b;
  if (!std::isfinite(s)) return {s, 0};
  double bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

// The exact value rounded to format f in mode rnd (kRn/kRndDefault nearest-even, kRna nearest
// away, kRz, kRm, kRp). NaN gives the canonical NaN; overflow gives inf or the largest finite
// number, as the mode says.
inline uint32_t round_to(Exact x, const Fmt& f, uint8_t rnd) {
  if (std::isnan(x.s)) return f.nan();
  const bool neg = std::signbit(x.s);
  const uint32_t sign = neg ? f.sign_bit() : 0;
  if (std::isinf(x.s)) return sign | f.inf();
  if (x.s == 0) return sign;  // TwoSum gives e = 0 when s = 0
  // |value| = mant * 2^exp2 (+ or - a sliver, by the sign of e in the direction of |value|).
  int ex;
  const double fr = std::frexp(std::fabs(x.s), &ex);
  const uint64_t mant = uint64_t(std::ldexp(fr, 53));
  const int exp2 = ex - 53;
  const double mag_err = neg ? -x.e : x.e;
  const bool above = mag_err > 0, below = mag_err < 0;
  // The exponent of the true value, then the quantum of the target format there.
  int e = ex - 1;
  if (below && mant == (1ull << 52)) e -= 1;  // just under a power of two
  const int q = (e > f.emin ? e : f.emin) - (f.p - 1);
  uint64_t n;
  int cmp;      // fraction of a quantum beyond n: -1 below half, 0 half, 1 above half
  bool inexact;
  if (exp2 >= q) {
    n = mant << (exp2 - q);  // exp2 - q < 64 - 53: the value is on the grid
    cmp = -1, inexact = false;
  } else {
    const int sh = q - exp2;
    uint64_t r;
    if (sh >= 64) { n = 0; r = mant; cmp = -1; }
    else {
      n = mant >> sh;
      r = mant & ((1ull << sh) - 1);
      const uint64_t half = 1ull << (sh - 1);
      cmp = r < half ? -1 : r == half ? 0 : 1;
    }
    inexact = r != 0;
  }
  if (below || above) {
    if (!inexact) {  // on a grid point: the sliver decides which side
      if (below) { n -= 1; cmp = 1; }
      else cmp = -1;
    } else if (cmp == 0) {
      cmp = below ? -1 : 1;
    }
    inexact = true;
  }
  bool up = false;
  switch (rnd) {
    case kRz: break;
    case kRm: up = inexact && neg; break;
    case kRp: up = inexact && !neg; break;
    case kRna: up = cmp >= 0 && inexact; break;
    default: up = cmp > 0 || (cmp == 0 && (n & 1)); break;
  }
  n += up;
  int qq = q;
  if (n == (1ull << f.p)) { n >>= 1; ++qq; }
  const uint32_t mant_field = f.p - 1 + f.shift;
  uint32_t bits;
  if (n >= (1ull << (f.p - 1))) {
    const int E = qq + f.p - 1;
    if (E > f.emax) {
      const bool to_inf = rnd == kRz ? false : rnd == kRm ? neg : rnd == kRp ? !neg : true;
      return sign | (to_inf ? f.inf() : f.max_finite());
    }
    bits = uint32_t(E + (1 << (f.ebits - 1)) - 1) << mant_field | uint32_t(n - (1ull << (f.p - 1))) << f.shift;
  } else {
    bits = uint32_t(n) << f.shift;  // subnormal (or zero)
  }
  return sign | bits;
}
inline uint32_t round_to(double x, const Fmt& f, uint8_t rnd) { return round_to(Exact{x, 0}, f, rnd); }

inline float f16_to_float(uint16_t h) { return float(decode(h, kF16)); }
inline float bf16_to_float(uint16_t h) {
  uint32_t b = uint32_t(h) << 16;
  float f;
  memcpy(&f, &b, 4);
  return f;
}

}  // namespace sim::eng
