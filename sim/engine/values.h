// How typed lane values live in 64-bit register slots, and the helpers every semantic body uses.
#pragma once

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "program.h"

namespace sim::eng {

using half = _Float16;

template <class T> constexpr bool is_int = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T> constexpr bool is_flt = std::is_floating_point_v<T> || std::is_same_v<T, half>;
template <class T> constexpr bool is_f3264 = std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class T>
inline T get(uint64_t v) {
  if constexpr (std::is_same_v<T, float>) { uint32_t b = uint32_t(v); float f; memcpy(&f, &b, 4); return f; }
  else if constexpr (std::is_same_v<T, double>) { double d; memcpy(&d, &v, 8); return d; }
  else if constexpr (std::is_same_v<T, half>) { uint16_t b = uint16_t(v); half h; memcpy(&h, &b, 2); return h; }
  else if constexpr (std::is_same_v<T, bool>) { return v != 0; }
  else return T(v);
}

// Results are stored zero-extended from their width (a 32-bit register is read as 32 bits).
template <class T>
inline uint64_t put(T x) {
  if constexpr (std::is_same_v<T, float>) { uint32_t b; memcpy(&b, &x, 4); return b; }
  else if constexpr (std::is_same_v<T, double>) { uint64_t b; memcpy(&b, &x, 8); return b; }
  else if constexpr (std::is_same_v<T, half>) { uint16_t b; memcpy(&b, &x, 2); return b; }
  else if constexpr (std::is_same_v<T, bool>) { return x ? 1 : 0; }
  else return uint64_t(std::make_unsigned_t<T>(x));
}

// Loaded values are extended by the load's signedness.
template <class T>
inline uint64_t extend(T x) {
  if constexpr (std::is_signed_v<T>) return uint64_t(int64_t(x));
  else return uint64_t(x);
}

template <class T> struct Wider { using type = T; };
template <> struct Wider<int16_t> { using type = int32_t; };
template <> struct Wider<uint16_t> { using type = uint32_t; };
template <> struct Wider<int32_t> { using type = int64_t; };
template <> struct Wider<uint32_t> { using type = uint64_t; };
template <> struct Wider<int64_t> { using type = __int128; };
template <> struct Wider<uint64_t> { using type = unsigned __int128; };
template <class T> using wider_t = typename Wider<T>::type;

// Wrapping integer arithmetic (PTX integers wrap; C++ signed overflow is undefined).
template <class T> inline T wadd(T a, T b) { if constexpr (is_int<T>) return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b)); else return a + b; }
template <class T> inline T wsub(T a, T b) { if constexpr (is_int<T>) return T(std::make_unsigned_t<T>(a) - std::make_unsigned_t<T>(b)); else return a - b; }
template <class T> inline T wmul(T a, T b) {
  if constexpr (is_int<T>) { using U = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>; return T(U(a) * U(b)); }
  else return a * b;
}

template <class T> inline T flush(T x) {  // .ftz: subnormal inputs and results become signed zero
  if constexpr (std::is_same_v<T, float>) return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
  else return x;
}

// Directed rounding for one instruction (.rz/.rm/.rp); .rn is the host default.
struct RoundingScope {
  int old = -1;
  explicit RoundingScope(uint8_t rnd) {
    int m = rnd == kRz || rnd == kRzi ? FE_TOWARDZERO : rnd == kRm || rnd == kRmi ? FE_DOWNWARD
          : rnd == kRp || rnd == kRpi ? FE_UPWARD : -1;
    if (m >= 0) { old = std::fegetround(); std::fesetround(m); }
  }
  ~RoundingScope() { if (old >= 0) std::fesetround(old); }
};

}  // namespace sim::eng
