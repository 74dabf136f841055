// Tensor-core programs: mma.sync, the wmma family that nvcuda::wmma lowers to, ldmatrix, stmatrix,
// movmatrix, and cp.async with its commit/wait groups.
//
// Fragment layouts are the PTX ISA's for mma (g = lane / 4, t = lane % 4):
//   A (16 x K), element i of the lane's registers (two halves per register, low half first):
//       row g + 8 * ((i >> 1) & 1), column 2t + (i & 1) + 8 * (i >> 2)
//   B (K x 8):  row (k) 2t + (i & 1) + 8 * (i >> 1), column (n) g
//   C, D (16 x 8): row g + 8 * (i >> 1), column 2t + (i & 1)
// wmma's fragments are unspecified by the ISA; these are the ones ptxas builds on sm_80/sm_90 (read
// from the SASS of a kernel that dumps frag.x[i]): m16n16k16 is two m16n8k16 side by side,
//   A: elements 0..7 as mma's A; f16 elements 8..15 (registers 4..7) repeat elements 0..7
//   B: k 2t + (i & 1) + 8 * ((i >> 1) & 1), n g + 8 * (i >> 2); f16 registers 4..7 repeat 0..3
//   C, D: row g + 8 * ((i >> 1) & 1), column 2t + (i & 1) + 8 * (i >> 2)
//
// Numerics of mma with f32 results, as an H200 computes them (fitted to and bit-exact on all 10,240
// f32 outputs of sim/validation/tc_numerics.cu, 2026-12-01): the products of one mma instruction
// (k = 8 or 16; wmma m16n16k16 is two k = 16 instructions) and c are added in one step. Each term
// is aligned to the largest exponent among c's and the products' nominal exponents (the sum of the
// two factors' exponents, before the product is normalised), truncated toward zero to a multiple
// of 2^(that exponent - 25), the truncated terms are summed exactly, and the sum is truncated
// (round toward zero) to f32. Not measured, and chosen: a zero factor or c = 0 takes no part in
// the alignment (an all-zero sum is IEEE's), subnormal factors count with their format's smallest
// exponent, an inf or NaN anywhere gives IEEE's result, an overflow gives inf.
// f16 results: c plus the exact products rounded once to nearest even (bit-exact on the H200's
// 4,096 f16 outputs too).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "decode_util.h"
#include "exec.h"
#include "half_format.h"
#include "values.h"

namespace sim::eng {
namespace {

// ---------------------------------------------------------------------------------------------
// Shared helpers

// Warp-collective (.sync.aligned) instructions need every lane of the warp.
bool whole_warp(Exec& x, Warp& w, const Instr& in, uint32_t m) {
  if (m == 0xffffffffu) return true;
  char buf[240];
  snprintf(buf, sizeof buf,
           "a warp-wide .sync.aligned instruction reached by lanes 0x%08x only: all 32 lanes must execute it "
           "(lanes 0x%08x have exited, are predicated off, took another branch or do not exist)",
           m, ~m);
  x.fail("sync-mask", buf, w, __builtin_ctz(m | 0x80000000u), in);
  return false;
}

// f16 bits -> float, by table (mma reads 512 halves per instruction).
const float* f16_table() {
  static const std::vector<float> t = [] {
    std::vector<float> v(65536);
    for (uint32_t i = 0; i < 65536; ++i) v[i] = float(decode(i, kF16));
    return v;
  }();
  return t.data();
}
inline float elem16(uint32_t bits, bool bf) { return bf ? bf16_to_float(uint16_t(bits)) : f16_table()[bits & 0xffffu]; }
// A register's two 16-bit elements as doubles: f16 by table, bf16 by shifting.
struct Halves {
  const float* tab;
  bool bf;
  Halves(bool b) : tab(f16_table()), bf(b) {}
  double lo(uint64_t v) const { return bf ? double(bf16_to_float(uint16_t(v))) : double(tab[v & 0xffffu]); }
  double hi(uint64_t v) const { return bf ? double(bf16_to_float(uint16_t(v >> 16))) : double(tab[(v >> 16) & 0xffffu]); }
};
inline float f32_of(uint64_t v) { uint32_t b = uint32_t(v); float f; memcpy(&f, &b, 4); return f; }
inline uint32_t f32_bits(double d) {
  float f = float(d);
  if (std::isnan(f)) return 0x7fffffffu;  // the GPU's canonical NaN
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

Space space_mod(Mods& m) {
  if (m.has("shared") || m.has("shared::cta")) return Space::Shared;
  if (m.has("global")) return Space::Global;
  return Space::Generic;
}
bool in_shared_window(uint64_t a) { return a - kSharedWindow < (1ull << 32); }

// Lists of registers in braces: {%r1, %r2, ...}
std::vector<uint16_t> reg_list(DecodeCtx& c, const ParsedInstr& p, const Operand& o, size_t n, bool dst, Ty t) {
  if (o.kind != Operand::Vec || o.items.size() != n)
    c.unsupported(p, "expected a vector of " + std::to_string(n) + " registers");
  std::vector<uint16_t> s;
  for (auto& it : o.items) s.push_back(dst ? c.dst(it) : c.src(it, t));
  return s;
}

// Fails unless every lane's address lies in shared memory (a generic address may point anywhere).
bool require_shared(Exec& x, Warp& w, const Instr& in, uint32_t m, const char* what) {
  if (in.space == Space::Shared) return true;
  int bad = -1;
  each_lane(m, [&](int l) { if (bad < 0 && !in_shared_window(x.addr[l])) bad = l; });
  if (bad < 0) return true;
  x.fail("out-of-bounds", std::string(what) + " address is not in shared memory", w, bad, in);
  x.err.address = x.addr[bad];
  return false;
}

// ---------------------------------------------------------------------------------------------
// mma.sync.aligned.m16n8k{16,8}.row.col.dtype.{f16,bf16}.{f16,bf16}.ctype
//   Instr: type = A/B type, type2 = D type, mode2 = C type, mode = K, target = [D..., A..., B..., C...]

// D = C + A B, each output c then the products in increasing k. The loop over columns vectorises
// (and the products are exact, so a fused multiply-add gives the same sums); the AVX2 clone is
// picked at run time where the host has it.
typedef double v4d __attribute__((vector_size(32)));
template <int K>
__attribute__((target_clones("avx2", "default")))
void mma_sum(const double* __restrict__ A, const double* __restrict__ B, const double* __restrict__ C,
             double* __restrict__ D) {
  for (int r = 0; r < 16; ++r) {
    v4d lo, hi;  // columns 0-3 and 4-7 of row r
    memcpy(&lo, C + r * 8, 32);
    memcpy(&hi, C + r * 8 + 4, 32);
    for (int k = 0; k < K; ++k) {
      v4d blo, bhi;
      memcpy(&blo, B + k * 8, 32);
      memcpy(&bhi, B + k * 8 + 4, 32);
      const double a = A[r * 16 + k];
      lo += a * blo;
      hi += a * bhi;
    }
    memcpy(D + r * 8, &lo, 32);
    memcpy(D + r * 8 + 4, &hi, 32);
  }
}

// An element's nominal exponent, for the alignment above: subnormals count with their format's
// smallest normal exponent (emin); a zero takes no part (-kNoExp), an inf or NaN makes the output
// IEEE's (+kNoExp).
constexpr double kNoExp = 1e9;
inline double nominal_exp(double d, int emin) {
  if (d == 0) return -kNoExp;
  if (!std::isfinite(d)) return kNoExp;
  return std::max(double(std::ilogb(d)), double(emin));
}
inline bool aligned_exp(double e) { return std::fabs(e) < 1000; }
// 2^(bias - e) for the alignment's exponent e, built from its bits (the caller keeps it in range).
inline double pow2_bits(int64_t biased) {
  const uint64_t bits = uint64_t(biased) << 52;
  double d;
  memcpy(&d, &bits, 8);
  return d;
}
// x (exact in a double) to f32, rounding toward zero; inf from 2^128 on.
inline uint32_t f32_rz(double x) {
  if (std::fabs(x) >= 0x1p128) return x < 0 ? 0xff800000u : 0x7f800000u;
  const float f = float(x);
  uint32_t b;
  memcpy(&b, &f, 4);
  return std::fabs(double(f)) > std::fabs(x) ? b - 1 : b;  // one step toward zero
}
// An output with no nonzero term, or an inf or NaN among them: IEEE's sum.
inline uint32_t ieee_output(const double* A, const double* B, double c, int K, int N) {
  double acc = c;
  for (int k = 0; k < K; ++k) acc += A[k] * B[k * N];
  return f32_bits(acc);
}

// The f32 outputs of one 16 x N x K product (A 16 x K with row stride 16, B K x N, C 16 x N) as the
// tensor cores sum them (above): per output the largest nominal exponent e, the terms in units of
// 2^(e - 25) truncated and summed (exactly: every truncated term is below 2^28), the sum rounded
// toward zero to f32. emin: the inputs' smallest normal exponent, c's.
template <int K, int N>
void tc_sum_f32_scalar(const double* A, const double* B, const double* C, int emin, int emin_c, uint32_t* D) {
  for (int r = 0; r < 16; ++r)
    for (int n = 0; n < N; ++n) {
      double em = nominal_exp(C[r * N + n], emin_c);
      bool special = em == kNoExp;
      for (int k = 0; k < K; ++k) {
        const double ea = nominal_exp(A[r * 16 + k], emin), eb = nominal_exp(B[k * N + n], emin);
        special |= ea == kNoExp || eb == kNoExp;
        em = std::max(em, ea + eb);
      }
      if (special || !aligned_exp(em)) {
        D[r * N + n] = ieee_output(A + r * 16, B + n, C[r * N + n], K, N);
        continue;
      }
      const double scale = pow2_bits(1023 + 25 - int64_t(em));
      double sum = std::trunc(C[r * N + n] * scale);
      for (int k = 0; k < K; ++k) sum += std::trunc(A[r * 16 + k] * B[k * N + n] * scale);
      D[r * N + n] = f32_rz(sum / scale);
    }
}
// The same, 4 columns at a time; every element finite (the caller checks).
__attribute__((target("avx2"))) inline __m256d nominal_exp4(__m256d d, double emin) {
  const __m256i field = _mm256_and_si256(_mm256_srli_epi64(_mm256_castpd_si256(d), 52), _mm256_set1_epi64x(0x7ff));
  const __m256d magic = _mm256_set1_pd(0x1p52);  // 2^52 + field, exactly
  const __m256d e = _mm256_sub_pd(_mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(field, _mm256_castpd_si256(magic))), magic),
                                  _mm256_set1_pd(1023));
  const __m256d zero = _mm256_cmp_pd(d, _mm256_setzero_pd(), _CMP_EQ_OQ);
  return _mm256_blendv_pd(_mm256_max_pd(e, _mm256_set1_pd(emin)), _mm256_set1_pd(-kNoExp), zero);
}
template <int K, int N>
__attribute__((target("avx2"))) void tc_sum_f32_avx2(const double* A, const double* B, const double* C, int emin, int emin_c,
                                                     uint32_t* D) {
  constexpr int V = N / 4;
  constexpr int kTrunc = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
  // The exponent pass in f32, 8 columns a vector (small integers: exact).
  alignas(32) float EB[K * N], EA[16];
  for (int i = 0; i < K * N; i += 4) _mm_store_ps(EB + i, _mm256_cvtpd_ps(nominal_exp4(_mm256_loadu_pd(B + i), emin)));
  for (int r = 0; r < 16; ++r) {
    for (int i = 0; i < K; i += 4) _mm_store_ps(EA + i, _mm256_cvtpd_ps(nominal_exp4(_mm256_loadu_pd(A + r * 16 + i), emin)));
    __m256d em[V], sc[V], sum[V];
    __m256 em8[V / 2];
    for (int j = 0; j < V / 2; ++j)
      em8[j] = _mm256_set_m128(_mm256_cvtpd_ps(nominal_exp4(_mm256_loadu_pd(C + r * N + 8 * j + 4), emin_c)),
                               _mm256_cvtpd_ps(nominal_exp4(_mm256_loadu_pd(C + r * N + 8 * j), emin_c)));
    // Two chains (even and odd k) for the latency of max and add.
    __m256 em8b[V / 2];
    for (int j = 0; j < V / 2; ++j) em8b[j] = em8[j];
    for (int k = 0; k < K; k += 2) {
      const __m256 ea = _mm256_set1_ps(EA[k]), eb = _mm256_set1_ps(EA[k + 1]);
      for (int j = 0; j < V / 2; ++j) {
        em8[j] = _mm256_max_ps(em8[j], _mm256_add_ps(ea, _mm256_load_ps(EB + k * N + 8 * j)));
        em8b[j] = _mm256_max_ps(em8b[j], _mm256_add_ps(eb, _mm256_load_ps(EB + (k + 1) * N + 8 * j)));
      }
    }
    for (int j = 0; j < V / 2; ++j) em8[j] = _mm256_max_ps(em8[j], em8b[j]);
    for (int j = 0; j < V; ++j) em[j] = _mm256_cvtps_pd(j & 1 ? _mm256_extractf128_ps(em8[j / 2], 1) : _mm256_castps256_ps128(em8[j / 2]));
    alignas(32) double inv[N];
    int none = 0;  // columns whose terms are all zero
    for (int j = 0; j < V; ++j) {
      none |= _mm256_movemask_pd(_mm256_cmp_pd(em[j], _mm256_set1_pd(-1000), _CMP_LT_OQ)) << (4 * j);
      const __m256i e = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(_mm256_max_pd(em[j], _mm256_set1_pd(-900))));
      sc[j] = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_sub_epi64(_mm256_set1_epi64x(1023 + 25), e), 52));
      _mm256_store_pd(inv + 4 * j, _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(_mm256_set1_epi64x(1023 - 25), e), 52)));
      sum[j] = _mm256_round_pd(_mm256_mul_pd(_mm256_loadu_pd(C + r * N + 4 * j), sc[j]), kTrunc);
    }
    __m256d sum2[V];  // odd k: a second chain of additions (all exact, so the order is free)
    for (int j = 0; j < V; ++j) sum2[j] = _mm256_setzero_pd();
    for (int k = 0; k < K; k += 2) {
      const __m256d a = _mm256_set1_pd(A[r * 16 + k]), b = _mm256_set1_pd(A[r * 16 + k + 1]);
      for (int j = 0; j < V; ++j) {
        sum[j] = _mm256_add_pd(sum[j], _mm256_round_pd(_mm256_mul_pd(_mm256_mul_pd(a, _mm256_loadu_pd(B + k * N + 4 * j)), sc[j]), kTrunc));
        sum2[j] = _mm256_add_pd(sum2[j], _mm256_round_pd(_mm256_mul_pd(_mm256_mul_pd(b, _mm256_loadu_pd(B + (k + 1) * N + 4 * j)), sc[j]), kTrunc));
      }
    }
    for (int j = 0; j < V; ++j) sum[j] = _mm256_add_pd(sum[j], sum2[j]);
    // Round toward zero to f32: clear the double's low 29 significand bits, then convert (exact). An
    // f32-subnormal result needs more cleared, an all-zero output IEEE's sum: both rare, in scalar.
    for (int j = 0; j < V; ++j) {
      const __m256d x = _mm256_mul_pd(sum[j], _mm256_load_pd(inv + 4 * j));  // exact: a power of two
      const __m256d xm = _mm256_and_pd(x, _mm256_castsi256_pd(_mm256_set1_epi64x(~((1ll << 29) - 1))));
      _mm_storeu_ps(reinterpret_cast<float*>(D + r * N + 4 * j), _mm256_cvtpd_ps(xm));
      const __m256d ax = _mm256_and_pd(x, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll)));
      int rare = _mm256_movemask_pd(_mm256_cmp_pd(ax, _mm256_set1_pd(0x1p-126), _CMP_LT_OQ)) | (none >> (4 * j) & 15);
      if (!rare) continue;
      alignas(32) double xs[4];
      _mm256_store_pd(xs, x);
      for (int i = 0; i < 4; ++i) {
        const int n = 4 * j + i;
        if (none >> n & 1) D[r * N + n] = ieee_output(A + r * 16, B + n, C[r * N + n], K, N);
        else if (rare >> i & 1) D[r * N + n] = f32_rz(xs[i]);
      }
    }
  }
}
// emin: the smallest normal exponent of A's and B's format; emin_c: C's. `finite`: no inf or NaN
// among A, B and C (the vector version assumes it).
template <int K, int N>
void tc_sum_f32(const double* A, const double* B, const double* C, int emin, int emin_c, bool finite, uint32_t* D) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2 && finite) tc_sum_f32_avx2<K, N>(A, B, C, emin, emin_c, D);
  else tc_sum_f32_scalar<K, N>(A, B, C, emin, emin_c, D);
}
// Whether a register's two 16-bit elements (or an f32) are finite.
inline bool finite16x2(uint64_t v, bool bf) {
  const uint32_t e = bf ? 0x7f80u : 0x7c00u;
  return (uint32_t(v) & e) != e && (uint32_t(v >> 16) & e) != e;
}
inline bool finite32(uint64_t v) { return (uint32_t(v) & 0x7f800000u) != 0x7f800000u; }

void h_mma(Exec& x, Warp& w, const Instr& in, uint32_t m) {
  if (!whole_warp(x, w, in, m)) return;
  const std::vector<uint16_t>& L = x.P->slot_lists[size_t(in.target)];
  const int K = in.mode;
  const bool bf = in.type == Ty::BF16;
  const Ty dt = in.type2, ct = Ty(in.mode2);
  const int na = K / 4, nb = K / 8, nd = dt == Ty::F32 ? 4 : 2, nc = ct == Ty::F32 ? 4 : 2;
  alignas(32) double A[16][16], B[16][8], C[16][8];
  const bool f32d = nd == 4;
  bool finite = true;  // no inf or NaN in A, B, C (f32 results: the vector sum assumes it)
  // Gather register by register (each is 32 lanes in a row).
  const Halves H(bf), H16(false);
  for (int r = 0; r < na; ++r) {
    const uint64_t* v = w.src(L[size_t(nd + r)]);
    const int row0 = 8 * (r & 1), col0 = 8 * (r >> 1);
    for (int l = 0; l < 32; ++l) {
      double* a = &A[row0 + (l >> 2)][col0 + 2 * (l & 3)];
      a[0] = H.lo(v[l]);
      a[1] = H.hi(v[l]);
      finite &= finite16x2(v[l], bf);
    }
  }
  for (int r = 0; r < nb; ++r) {
    const uint64_t* v = w.src(L[size_t(nd + na + r)]);
    for (int l = 0; l < 32; ++l) {
      const int g = l >> 2, k = 2 * (l & 3) + 8 * r;
      B[k][g] = H.lo(v[l]);
      B[k + 1][g] = H.hi(v[l]);
      finite &= finite16x2(v[l], bf);
    }
  }
  for (int r = 0; r < nc; ++r) {
    const uint64_t* v = w.src(L[size_t(nd + na + nb + r)]);
    for (int l = 0; l < 32; ++l) {
      const int g = l >> 2, t = l & 3;
      if (nc == 4) C[g + 8 * (r >> 1)][2 * t + (r & 1)] = double(f32_of(v[l])), finite &= finite32(v[l]);
      else C[g + 8 * r][2 * t] = H16.lo(v[l]), C[g + 8 * r][2 * t + 1] = H16.hi(v[l]), finite &= finite16x2(v[l], false);
    }
  }
  alignas(32) double D[16][8];
  alignas(32) uint32_t D32[16][8];
  const int emin = bf ? -126 : -14, emin_c = nc == 4 ? -126 : -14;
  if (f32d) {
    if (K == 16) tc_sum_f32<16, 8>(&A[0][0], &B[0][0], &C[0][0], emin, emin_c, finite, &D32[0][0]);
    else tc_sum_f32<8, 8>(&A[0][0], &B[0][0], &C[0][0], emin, emin_c, finite, &D32[0][0]);
  } else if (K == 16) {
    mma_sum<16>(&A[0][0], &B[0][0], &C[0][0], &D[0][0]);
  } else {
    mma_sum<8>(&A[0][0], &B[0][0], &C[0][0], &D[0][0]);
  }
  for (int j = 0; j < nd; ++j) {
    uint64_t* d = w.reg(L[size_t(j)]);
    for (int l = 0; l < 32; ++l) {
      const int g = l >> 2, t = l & 3;
      if (nd == 4) {
        d[l] = D32[g + 8 * (j >> 1)][2 * t + (j & 1)];
      } else {  // f16 pair: elements 2j, 2j + 1
        uint32_t lo = round_to(D[g + 8 * j][2 * t], kF16, kRn), hi = round_to(D[g + 8 * j][2 * t + 1], kF16, kRn);
        d[l] = lo | hi << 16;
      }
    }
  }
}

void dec_mma(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  if (!m.has("sync") || !m.has("aligned")) c.unsupported(p, "mma without .sync.aligned");
  const int K = m.has("m16n8k16") ? 16 : m.has("m16n8k8") ? 8 : 0;
  if (!K) c.unsupported(p, "shape (the simulator has m16n8k16 and m16n8k8)");
  if (!m.has("row") || !m.has("col")) c.unsupported(p, "layout (only .row.col)");
  auto ts = m.types();
  m.done(c);
  if (ts.size() != 4) c.unsupported(p, "expected .dtype.atype.btype.ctype");
  const Ty dt = ts[0], at = ts[1], bt = ts[2], ct = ts[3];
  if (at != bt || (at != Ty::F16 && at != Ty::BF16)) c.unsupported(p, "input type (the simulator has .f16 and .bf16)");
  if ((dt != Ty::F32 && dt != Ty::F16) || (ct != Ty::F32 && ct != Ty::F16)) c.unsupported(p, "accumulator type");
  if (at == Ty::BF16 && (dt != Ty::F32 || ct != Ty::F32)) c.unsupported(p, ".bf16 needs .f32 accumulators");
  need(c, p, 4);
  const size_t nd = dt == Ty::F32 ? 4 : 2, nc = ct == Ty::F32 ? 4 : 2, na = size_t(K / 4), nb = size_t(K / 8);
  std::vector<uint16_t> slots = reg_list(c, p, p.ops[0], nd, true, dt);
  for (auto& [k, n] : {std::pair<int, size_t>{1, na}, {2, nb}, {3, nc}})
    for (uint16_t s : reg_list(c, p, p.ops[size_t(k)], n, false, Ty::B32)) slots.push_back(s);
  in.type = at;
  in.type2 = dt;
  in.mode2 = uint8_t(ct);
  in.mode = uint8_t(K);
  in.target = c.slot_list(std::move(slots));
  in.cls = kWarpSync;
  in.flags |= kTensor;
  in.vec = 1;  // one HMMA.16816 / HMMA.1688
  in.fn = h_mma;
}

// ---------------------------------------------------------------------------------------------
// ldmatrix / stmatrix .m8n8.x{1,2,4}{.trans}.b16, movmatrix.m8n8.trans.b16
// Lanes 8j..8j+7 give the row addresses of matrix j; lane l holds row l/4, columns 2(l%4) and
// 2(l%4)+1 of each matrix (.trans: column l/4, rows 2(l%4) and 2(l%4)+1).

inline uint32_t pick_pair(const uint16_t (*M)[8], int l, bool trans) {
  const int g = l >> 2, t = l & 3;
  return trans ? (uint32_t(M[2 * t][g]) | uint32_t(M[2 * t + 1][g]) << 16) : (uint32_t(M[g][2 * t]) | uint32_t(M[g][2 * t + 1]) << 16);
}
inline void put_pair(uint16_t (*M)[8], int l, bool trans, uint32_t v) {
  const int g = l >> 2, t = l & 3;
  if (trans) M[2 * t][g] = uint16_t(v), M[2 * t + 1][g] = uint16_t(v >> 16);
  else M[g][2 * t] = uint16_t(v), M[g][2 * t + 1] = uint16_t(v >> 16);
}

template <bool Store>
void h_matrix(Exec& x, Warp& w, const Instr& in, uint32_t m) {
  if (!whole_warp(x, w, in, m)) return;
  const int num = in.vec;
  const bool trans = in.mode;
  const uint32_t am = num == 4 ? 0xffffffffu : (1u << (8 * num)) - 1;
  const uint64_t* base = w.src(in.a[0]);
  each_lane(am, [&](int l) { x.addr[l] = base[l] + uint64_t(in.imm); });
  if (!require_shared(x, w, in, am, Store ? "stmatrix" : "ldmatrix")) return;
  uint16_t M[4][8][8];
  if (Store)
    for (int j = 0; j < num; ++j) {
      const uint64_t* s = w.src(in.d[j]);
      for (int l = 0; l < 32; ++l) put_pair(M[j], l, trans, uint32_t(s[l]));
    }
  if (!x.access(w, in, am, 16, Store ? Access::Store : Access::Load)) return;
  for (int j = 0; j < num; ++j)
    for (int r = 0; r < 8; ++r) {
      if (Store) memcpy(x.hptr[8 * j + r], M[j][r], 16);
      else memcpy(M[j][r], x.hptr[8 * j + r], 16);
    }
  if (!Store)
    for (int j = 0; j < num; ++j) {
      uint64_t* d = w.reg(in.d[j]);
      for (int l = 0; l < 32; ++l) d[l] = pick_pair(M[j], l, trans);
    }
}

void dec_matrix(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  const bool store = p.opcode == "stmatrix";
  if (!m.has("sync") || !m.has("aligned")) c.unsupported(p, "without .sync.aligned");
  if (!m.has("m8n8")) c.unsupported(p, "shape (the simulator has .m8n8)");
  const int num = m.has("x1") ? 1 : m.has("x2") ? 2 : m.has("x4") ? 4 : 0;
  if (!num) c.unsupported(p, "expected .x1, .x2 or .x4");
  in.mode = m.has("trans");
  in.space = space_mod(m);
  if (in.space == Space::Global) c.unsupported(p, "state space");
  if (!m.has("b16")) c.unsupported(p, "type (the simulator has .b16)");
  m.done(c);
  need(c, p, 2);
  const Operand& regs = p.ops[store ? 1 : 0];
  auto slots = reg_list(c, p, regs, size_t(num), !store, Ty::B32);
  for (int j = 0; j < num; ++j) in.d[j] = slots[size_t(j)];
  in.nd = uint8_t(num);
  Space sym = c.addr(p.ops[store ? 0 : 1], in);
  if (sym == Space::Shared) in.space = Space::Shared;
  else if (sym != Space::Generic) c.unsupported(p, "address");
  in.vec = uint8_t(num);
  in.bytes = 16;
  in.cls = kMem;
  in.memop = store ? kOpStsm : kOpLdsm;
  in.type = Ty::B16;
  in.fn = store ? h_matrix<true> : h_matrix<false>;
}

void h_movmatrix(Exec& x, Warp& w, const Instr& in, uint32_t m) {
  if (!whole_warp(x, w, in, m)) return;
  uint16_t M[8][8];
  const uint64_t* a = w.src(in.a[0]);
  for (int l = 0; l < 32; ++l) put_pair(M, l, false, uint32_t(a[l]));
  uint64_t* d = w.reg(in.d[0]);
  for (int l = 0; l < 32; ++l) d[l] = pick_pair(M, l, true);
}
void dec_movmatrix(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  if (!m.has("sync") || !m.has("aligned") || !m.has("m8n8") || !m.has("trans") || !m.has("b16"))
    c.unsupported(p, "the simulator has movmatrix.sync.aligned.m8n8.trans.b16");
  m.done(c);
  need(c, p, 2);
  operands(c, p, in, Ty::B32);
  in.cls = kWarpSync;
  in.fn = h_movmatrix;
}

// ---------------------------------------------------------------------------------------------
// wmma.load / wmma.store / wmma.mma, shape m16n16k16.
//   load/store: mode = matrix (0 a, 1 b, 2 c/d), mode2 = 1 for .col, type = element type,
//   a[0] + imm = address, a[1] = stride (kNoSlot: 16), target = the fragment's registers.

enum WMat : uint8_t { wA, wB, wC };

// Matrix coordinates (row, column) of fragment element i held by lane l.
inline void wmma_coord(int mat, int l, int i, int& r, int& c) {
  const int g = l >> 2, t = l & 3, ii = i & 7;
  if (mat == wB) r = 2 * t + (ii & 1) + 8 * ((ii >> 1) & 1), c = g + 8 * (ii >> 2);
  else r = g + 8 * ((ii >> 1) & 1), c = 2 * t + (ii & 1) + 8 * (ii >> 2);
}

struct WmmaFrag {
  int regs, elems, esize;  // registers, distinct elements, bytes per element
};
WmmaFrag wmma_frag(int mat, Ty t) {
  if (mat == wC) return t == Ty::F32 ? WmmaFrag{8, 8, 4} : WmmaFrag{4, 8, 2};
  return t == Ty::F16 ? WmmaFrag{8, 8, 2} : WmmaFrag{4, 8, 2};  // f16 registers 4..7 repeat 0..3
}

// The warp-level accesses ptxas makes for a 16 x 16 tile (sm_90 SASS):
//   a/b from shared: one LDSM.x4 (16 bytes per lane, 8 rows a matrix);
//   a/b, and f16 c, elsewhere: four 32-bit accesses, one 8 x 8 block each;
//   f32 c row-major: four 64-bit accesses; f32 c column-major: eight 32-bit accesses.
// A "line" is a row of a row-major tile or a column of a column-major one.
template <bool Store>
void h_wmma_ldst(Exec& x, Warp& w, const Instr& in, uint32_t m) {
  if (!whole_warp(x, w, in, m)) return;
  const int mat = in.mode;
  const bool col = in.mode2;
  const WmmaFrag F = wmma_frag(mat, in.type);
  const uint64_t* base = w.src(in.a[0]);
  const uint64_t* strd = in.a[1] == kNoSlot ? nullptr : w.src(in.a[1]);
  const uint64_t p = base[0] + uint64_t(in.imm);
  const uint64_t stride = strd ? uint32_t(strd[0]) : 16;
  for (int l = 1; l < 32; ++l)
    if (base[l] != base[0] || (strd && uint32_t(strd[l]) != uint32_t(strd[0]))) {
      x.fail("unsupported", "wmma: the lanes of a warp give different addresses or strides (every thread must pass the same)", w, l, in);
      return;
    }
  const bool shared = in.space == Space::Shared || (in.space == Space::Generic && in_shared_window(p));
  auto at = [&](int line, int pos) { return p + (uint64_t(line) * stride + uint64_t(pos)) * uint64_t(F.esize); };
  // Checks and counters, one warp-level access at a time.
  const Access kind = Store ? Access::Store : Access::Load;
  if (shared && mat != wC) {
    for (int l = 0; l < 32; ++l) x.addr[l] = at(8 * ((l >> 3) & 1) + (l & 7), 8 * (l >> 4));
    if (!x.access(w, in, 0xffffffffu, 16, kind)) return;
  } else if (mat == wC && F.esize == 4 && col) {
    for (int i = 0; i < 8; ++i) {
      for (int l = 0; l < 32; ++l) {
        int r, c;
        wmma_coord(wC, l, i, r, c);
        x.addr[l] = at(c, r);
      }
      if (!x.access(w, in, 0xffffffffu, 4, kind)) return;
    }
  } else {
    for (int q = 0; q < 4; ++q) {
      for (int l = 0; l < 32; ++l) x.addr[l] = at(8 * (q & 1) + (l >> 2), 8 * (q >> 1) + 2 * (l & 3));
      if (!x.access(w, in, 0xffffffffu, F.esize == 4 ? 8 : 4, kind)) return;
    }
  }
  // The data, element by element (the accesses above proved every byte is there).
  const std::vector<uint16_t>& L = x.P->slot_lists[size_t(in.target)];
  auto host = [&](uint64_t a) -> uint8_t* {
    return shared ? x.shared + (in.space == Space::Shared ? uint32_t(a) : a - kSharedWindow) : x.global_ptr(a, uint64_t(F.esize));
  };
  const int per_reg = F.esize == 2 ? 2 : 1;
  for (int reg = 0; reg < F.regs; ++reg) {
    uint64_t* d = Store ? nullptr : w.reg(L[size_t(reg)]);
    const uint64_t* s = Store ? w.src(L[size_t(reg)]) : nullptr;
    if (Store && reg * per_reg >= F.elems) break;  // f16 a/b copies: nothing more to store
    for (int l = 0; l < 32; ++l) {
      uint64_t v = 0;
      for (int h = 0; h < per_reg; ++h) {
        const int i = (reg * per_reg + h) % F.elems;
        int r, c;
        wmma_coord(mat, l, i, r, c);
        uint8_t* hp = host(col ? at(c, r) : at(r, c));
        if (Store) {
          uint32_t e = uint32_t(s[l] >> (16 * h));
          memcpy(hp, &e, size_t(F.esize));
        } else {
          uint32_t e = 0;
          memcpy(&e, hp, size_t(F.esize));
          v |= uint64_t(e) << (16 * h);
        }
      }
      if (!Store) d[l] = v;
    }
  }
}

// wmma.mma: mode2 = C type, type2 = D type, type = A/B type; target = [D..., A..., B..., C...].
void h_wmma_mma(Exec& x, Warp& w, const Instr& in, uint32_t m) {
  if (!whole_warp(x, w, in, m)) return;
  const std::vector<uint16_t>& L = x.P->slot_lists[size_t(in.target)];
  const bool bf = in.type == Ty::BF16;
  const Ty dt = in.type2, ct = Ty(in.mode2);
  const WmmaFrag FA = wmma_frag(wA, in.type), FD = wmma_frag(wC, dt), FC = wmma_frag(wC, ct);
  const size_t oa = size_t(FD.regs), ob = oa + size_t(FA.regs), oc = ob + size_t(FA.regs);
  alignas(32) double A[16][16], B[16][16], C[16][16];
  bool finite = true;
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 8; ++i) {
      int r, c;
      const uint64_t va = w.src(L[oa + size_t(i / 2)])[l], vb = w.src(L[ob + size_t(i / 2)])[l];
      wmma_coord(wA, l, i, r, c);
      A[r][c] = elem16(uint32_t(va >> (16 * (i & 1))), bf);
      wmma_coord(wB, l, i, r, c);
      B[r][c] = elem16(uint32_t(vb >> (16 * (i & 1))), bf);
      wmma_coord(wC, l, i, r, c);
      C[r][c] = FC.esize == 4 ? double(f32_of(w.src(L[oc + size_t(i)])[l]))
                              : double(elem16(uint32_t(w.src(L[oc + size_t(i / 2)])[l] >> (16 * (i & 1))), false));
      finite &= std::isfinite(A[r][c]) && std::isfinite(B[r][c]) && std::isfinite(C[r][c]);
    }
  double D[16][16];
  alignas(32) uint32_t D32[16][16];
  if (FD.esize == 4) {  // two HMMA.16816, one for each 8 columns: one k = 16 step per output
    tc_sum_f32<16, 16>(&A[0][0], &B[0][0], &C[0][0], bf ? -126 : -14, FC.esize == 4 ? -126 : -14, finite, &D32[0][0]);
  } else {
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 16; ++c) {
        double acc = C[r][c];
        for (int k = 0; k < 16; ++k) acc += A[r][k] * B[k][c];
        D[r][c] = acc;
      }
  }
  for (int reg = 0; reg < FD.regs; ++reg) {
    uint64_t* d = w.reg(L[size_t(reg)]);
    for (int l = 0; l < 32; ++l) {
      int r, c;
      if (FD.esize == 4) {
        wmma_coord(wC, l, reg, r, c);
        d[l] = D32[r][c];
      } else {
        uint64_t v = 0;
        for (int h = 0; h < 2; ++h) {
          wmma_coord(wC, l, 2 * reg + h, r, c);
          v |= uint64_t(round_to(D[r][c], kF16, kRn)) << (16 * h);
        }
        d[l] = v;
      }
    }
  }
}

void dec_wmma(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  const bool load = m.has("load"), store = m.has("store"), mma = m.has("mma");
  if (!load && !store && !mma) c.unsupported(p, "expected wmma.load, wmma.store or wmma.mma");
  if (!m.has("sync") || !m.has("aligned")) c.unsupported(p, "without .sync.aligned");
  if (!m.has("m16n16k16")) c.unsupported(p, "shape (the simulator has .m16n16k16)");
  if (mma) {
    // .alayout.blayout: the fragments' registers already hold the logical elements
    for (size_t i = 0; i < p.mods.size(); ++i)
      if (p.mods[i] == "row" || p.mods[i] == "col") m.used[i] = true;
    auto ts = m.types();
    m.done(c);
    Ty dt, at, ct;
    if (ts.size() == 2) dt = ts[0], ct = ts[1], at = Ty::F16;                      // .dtype.ctype, f16 inputs
    else if (ts.size() == 4 && ts[1] == ts[2]) dt = ts[0], at = ts[1], ct = ts[3];  // .f32.bf16.bf16.f32
    else c.unsupported(p, "types");
    if ((at != Ty::F16 && at != Ty::BF16) || (dt != Ty::F32 && dt != Ty::F16) || (ct != Ty::F32 && ct != Ty::F16))
      c.unsupported(p, "types (the simulator has f16 and bf16 inputs, f16 and f32 accumulators)");
    need(c, p, 4);
    const WmmaFrag FA = wmma_frag(wA, at), FD = wmma_frag(wC, dt), FC = wmma_frag(wC, ct);
    std::vector<uint16_t> slots = reg_list(c, p, p.ops[0], size_t(FD.regs), true, dt);
    for (auto& [k, n] : {std::pair<int, int>{1, FA.regs}, {2, FA.regs}, {3, FC.regs}})
      for (uint16_t s : reg_list(c, p, p.ops[size_t(k)], size_t(n), false, Ty::B32)) slots.push_back(s);
    in.type = at;
    in.type2 = dt;
    in.mode2 = uint8_t(ct);
    in.target = c.slot_list(std::move(slots));
    in.cls = kWarpSync;
    in.flags |= kTensor;
    in.vec = 2;  // two HMMA.16816
    in.fn = h_wmma_mma;
    return;
  }
  int mat = -1;
  if (load) mat = m.has("a") ? wA : m.has("b") ? wB : m.has("c") ? wC : -1;
  else mat = m.has("d") ? wC : -1;
  if (mat < 0) c.unsupported(p, load ? "expected .a, .b or .c" : "expected .d");
  const bool row = m.has("row"), col = m.has("col");
  if (row == col) c.unsupported(p, "expected .row or .col");
  in.space = space_mod(m);
  Ty t = m.type(c);
  m.done(c);
  if (mat == wC ? (t != Ty::F32 && t != Ty::F16) : (t != Ty::F16 && t != Ty::BF16))
    c.unsupported(p, "type (the simulator has .f16 and .bf16 a/b, .f16 and .f32 c/d)");
  if (p.ops.size() != 2 && p.ops.size() != 3) c.unsupported(p, "operands");
  const WmmaFrag F = wmma_frag(mat, t);
  const Operand& regs = p.ops[load ? 0 : 1];
  in.target = c.slot_list(reg_list(c, p, regs, size_t(F.regs), load, Ty::B32));
  Space sym = c.addr(p.ops[load ? 1 : 0], in);
  if (sym == Space::Shared || sym == Space::Global) in.space = sym;
  else if (sym != Space::Generic) c.unsupported(p, "address");
  in.a[1] = p.ops.size() == 3 ? c.src(p.ops[2], Ty::U32) : kNoSlot;
  in.mode = uint8_t(mat);
  in.mode2 = col;
  in.type = t;
  in.cls = kMem;
  in.memop = load ? kOpLd : kOpSt;
  if (load && mat != wC) in.flags |= kMatrixLoad;
  in.fn = load ? h_wmma_ldst<false> : h_wmma_ldst<true>;
}

// ---------------------------------------------------------------------------------------------
// cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | ignore-src}{, policy}
//   a[0] + imm = dst, a[1] + a[2] = src, a[3] = src-size or ignore-src, bytes = cp-size,
//   mode: 1 ignore-src, 2 src-size. The bytes are read when the copy is issued and land in
//   shared memory when the thread waits for the copy's group (Exec::land_copies).

enum : uint8_t { kIgnoreSrc = 1, kSrcSize = 2 };

void h_cp_async(Exec& x, Warp& w, const Instr& in, uint32_t m) {
  const uint32_t n = in.bytes;
  uint8_t rs[32] = {};
  uint32_t readm = 0;
  const uint64_t* extra = in.a[3] == kNoSlot ? nullptr : w.src(in.a[3]);
  each_lane(m, [&](int l) {
    uint32_t r = n;
    if (in.mode == kIgnoreSrc) r = ((extra[l] != 0) != bool(in.flags & kCC)) ? 0 : n;
    else if (in.mode == kSrcSize) r = std::min<uint32_t>(uint32_t(extra[l]), n);  // more than cp-size is undefined
    rs[l] = uint8_t(r);
    if (r) readm |= 1u << l;
  });
  uint8_t data[32][16] = {};
  each_lane(m, [&](int l) { x.async_line[l] = ~0ull; });
  if (readm) {
    const uint64_t *sb = w.src(in.a[1]), *so = w.src(in.a[2]);
    each_lane(readm, [&](int l) { x.addr[l] = sb[l] + so[l]; });
    if (!x.access(w, in, readm, n, Access::Load, Space::Global, rs)) return;
    each_lane(readm, [&](int l) {
      memcpy(data[l], x.hptr[l], rs[l]);
      x.async_line[l] = x.addr[l] >> 7;
    });
  }
  const uint64_t* db = w.src(in.a[0]);
  each_lane(m, [&](int l) { x.addr[l] = db[l] + uint64_t(in.imm); });
  if (!require_shared(x, w, in, m, "cp.async destination")) return;
  if (!x.access(w, in, m, n, Access::AsyncStore)) return;
  const int32_t pc = int32_t(&in - x.P->code.data());
  each_lane(m, [&](int l) {
    AsyncCopy c;
    c.group = w.committed[l];
    c.dst = uint32_t(x.addr[l]);
    c.pc = pc;
    c.lane = uint8_t(l);
    c.bytes = uint8_t(n);
    memcpy(c.data, data[l], 16);
    w.copies.push_back(c);
  });
}

void h_cp_commit(Exec&, Warp& w, const Instr&, uint32_t m) {
  each_lane(m, [&](int l) { ++w.committed[l]; });
}
void h_cp_wait(Exec& x, Warp& w, const Instr& in, uint32_t m) {
  if (in.mode) h_cp_commit(x, w, in, m);  // wait_all = commit_group + wait_group 0
  x.land_copies(w, m, int(in.imm));
}

void dec_cp(DecodeCtx& c, const ParsedInstr& p, Instr& in) {
  Mods m(p);
  if (!m.has("async")) c.unsupported(p, "the simulator has cp.async only");
  if (m.has("bulk") || m.has("mbarrier")) c.unsupported(p, "cp.async.bulk and cp.async.mbarrier are not simulated");
  if (m.has("commit_group")) {
    m.done(c);
    need(c, p, 0);
    in.fn = h_cp_commit;
    return;
  }
  if (m.has("wait_group") || m.has("wait_all")) {
    in.mode = p.mods.size() > 1 && p.mods[1] == "wait_all";
    m.done(c);
    if (in.mode) {
      need(c, p, 0);
    } else {
      need(c, p, 1);
      if (p.ops[0].kind != Operand::Number) c.unsupported(p, "wait_group needs a constant");
      in.imm = std::stoll(p.ops[0].text, nullptr, 0);
    }
    in.fn = h_cp_wait;
    return;
  }
  const bool ca = m.has("ca"), cg = m.has("cg");
  if (ca == cg) c.unsupported(p, "expected .ca or .cg");
  if (!m.has("shared") && !m.has("shared::cta")) c.unsupported(p, "destination must be .shared");
  if (!m.has("global")) c.unsupported(p, "source must be .global");
  const bool hint = m.has("L2::cache_hint");
  m.done(c, {"L2::64B", "L2::128B", "L2::256B"});
  const size_t nops = p.ops.size() - (hint ? 1 : 0);
  if (nops != 3 && nops != 4) c.unsupported(p, "operands");
  if (p.ops[2].kind != Operand::Number) c.unsupported(p, "cp-size must be a constant");
  const long long size = std::stoll(p.ops[2].text, nullptr, 0);
  if (size != 4 && size != 8 && size != 16) c.unsupported(p, "cp-size must be 4, 8 or 16");
  if (cg && size != 16) c.unsupported(p, "cp.async.cg copies 16 bytes");
  Space ds = c.addr(p.ops[0], in);
  if (ds != Space::Generic && ds != Space::Shared) c.unsupported(p, "destination address");
  in.space = Space::Shared;
  Instr src;
  Space ss = c.addr(p.ops[1], src);
  if (ss != Space::Generic && ss != Space::Global) c.unsupported(p, "source address");
  in.a[1] = src.a[0];
  Operand off;
  off.kind = Operand::Number;
  off.text = std::to_string(src.imm);
  in.a[2] = c.src(off, Ty::S64);
  if (nops == 4) {
    const Operand& e = p.ops[3];
    if (c.reg_type(e) == Ty::Pred) {
      in.mode = kIgnoreSrc;
      in.a[3] = c.src(e, Ty::Pred);
      if (e.negated) in.flags |= kCC;
    } else {
      in.mode = kSrcSize;
      in.a[3] = c.src(e, Ty::U32);
    }
  }
  in.bytes = uint8_t(size);
  if (cg) in.flags |= kBypass;
  in.cls = kMem;
  in.memop = kOpLdgsts;
  in.fn = h_cp_async;
}

}  // namespace

const std::vector<OpcodeRow>& tensor_opcode_rows() {
  static const std::vector<OpcodeRow> rows = {
      {"mma", dec_mma},          {"wmma", dec_wmma}, {"ldmatrix", dec_matrix}, {"stmatrix", dec_matrix},
      {"movmatrix", dec_movmatrix}, {"cp", dec_cp},
  };
  return rows;
}

}  // namespace sim::eng
