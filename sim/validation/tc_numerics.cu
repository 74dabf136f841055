// Output validation of the numbers themselves (no counters): every half-precision form and every
// mma / wmma form of the engine's test fixtures, run on random inputs, results printed as bit
// patterns. compare.py --outputs holds the simulator to them: half precision bit for bit, mma and
// wmma within the stated number of units in the last place.
// The kernels are the fixtures' own (sim/tests/engine/ptx), so the forms the CI tests check on the
// simulator are the forms measured here on the GPU.
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#include "check.h"
#include "outputs.h"

#include "../tests/engine/ptx/half.cu"
#include "../tests/engine/ptx/tensor.cu"

constexpr int COUNT = 4096;  // elements per half-precision form

// 16-bit patterns: the special values first, then random patterns (half of them in [2^-12, 2^12]).
static std::vector<uint16_t> patterns16(bool bf, uint32_t seed) {
  std::mt19937 g(seed);
  const uint16_t inf = bf ? 0x7f80 : 0x7c00, one = bf ? 0x3f80 : 0x3c00;
  std::vector<uint16_t> v = {0x0000, 0x8000, inf, uint16_t(0x8000 | inf), 0x7fff, uint16_t(inf + 1), 0x0001, 0x8001,
                             one, uint16_t(0x8000 | one), uint16_t(inf - 1), uint16_t(0x8000 | (inf - 1))};
  while (v.size() < COUNT) {
    uint16_t h = uint16_t(g());
    if (g() % 2) {
      const int mant = bf ? 7 : 10, bias = bf ? 127 : 15;
      h = uint16_t((h & 0x8000) | ((bias + int(g() % 25) - 12) << mant) | (g() & ((1u << mant) - 1)));
    }
    v.push_back(h);
  }
  return v;
}
static std::vector<uint32_t> patterns32(uint32_t seed) {
  std::mt19937 g(seed);
  std::vector<uint32_t> v = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x477fefffu, 0x477ff000u,
                             0x477ff001u, 0x38800000u, 0x33800000u, 0x33000001u, 0x33000000u, 0x3f800000u, 0x7f7fffffu, 1u};
  while (v.size() < COUNT) {
    uint32_t x = g();
    if (g() % 2) x = (x & 0x83ffffffu) | uint32_t(100 + g() % 60) << 23;
    v.push_back(x);
  }
  return v;
}

// Launches fn(a, b, c, d, COUNT) and prints d.
template <class In, class Out>
static int run_form(const char* name, const void* fn, const std::vector<In>& a, const std::vector<In>& b,
                    const std::vector<In>& c) {
  In *da, *db, *dc;
  Out* dd;
  int n = COUNT;
  CK(cudaMalloc(&da, COUNT * sizeof(In)));
  CK(cudaMalloc(&db, COUNT * sizeof(In)));
  CK(cudaMalloc(&dc, COUNT * sizeof(In)));
  CK(cudaMalloc(&dd, COUNT * sizeof(Out)));
  CK(cudaMemcpy(da, a.data(), COUNT * sizeof(In), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, b.data(), COUNT * sizeof(In), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dc, c.data(), COUNT * sizeof(In), cudaMemcpyHostToDevice));
  CK(cudaMemset(dd, 0xff, COUNT * sizeof(Out)));
  void* args[] = {&da, &db, &dc, &dd, &n};
  CK(cudaLaunchKernel(fn, dim3(COUNT / 128), dim3(128), args, 0, 0));
  std::vector<Out> d(COUNT);
  CK(cudaMemcpy(d.data(), dd, COUNT * sizeof(Out), cudaMemcpyDeviceToHost));
  print_values(name, d);
  CK(cudaFree(da));
  CK(cudaFree(db));
  CK(cudaFree(dc));
  CK(cudaFree(dd));
  return 0;
}

// One warp-wide mma / wmma kernel (A, B, C, D), TILES times on fresh random inputs: A and B of
// random sign and exponent in [2^-6, 2^5], C similar; D printed.
template <class CT>
static int run_mma(const char* name, const void* fn, bool bf, size_t na, size_t nb, size_t nc, int tiles) {
  std::mt19937 g(std::hash<std::string>{}(name) & 0xffffffffu);
  auto value = [&](bool bf16) -> uint16_t {
    const int mant = bf16 ? 7 : 10, bias = bf16 ? 127 : 15;
    return uint16_t((g() & 0x8000) | ((bias + int(g() % 12) - 6) << mant) | (g() & ((1u << mant) - 1)));
  };
  uint16_t *da, *db;
  CT *dc, *dd;
  CK(cudaMalloc(&da, na * 2));
  CK(cudaMalloc(&db, nb * 2));
  CK(cudaMalloc(&dc, nc * sizeof(CT)));
  CK(cudaMalloc(&dd, nc * sizeof(CT)));
  std::vector<CT> all;
  for (int tile = 0; tile < tiles; ++tile) {
    std::vector<uint16_t> a(na), b(nb);
    std::vector<CT> c(nc);
    for (auto& x : a) x = value(bf);
    for (auto& x : b) x = value(bf);
    for (auto& x : c) {
      if constexpr (sizeof(CT) == 4) x = CT(int(g() % 2001) - 1000) / CT(64);
      else x = value(false);
    }
    CK(cudaMemcpy(da, a.data(), na * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b.data(), nb * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, c.data(), nc * sizeof(CT), cudaMemcpyHostToDevice));
    CK(cudaMemset(dd, 0xff, nc * sizeof(CT)));
    void* args[] = {&da, &db, &dc, &dd};
    CK(cudaLaunchKernel(fn, dim3(1), dim3(32), args, 0, 0));
    std::vector<CT> d(nc);
    CK(cudaMemcpy(d.data(), dd, nc * sizeof(CT), cudaMemcpyDeviceToHost));
    all.insert(all.end(), d.begin(), d.end());
  }
  print_values(name, all);
  CK(cudaFree(da));
  CK(cudaFree(db));
  CK(cudaFree(dc));
  CK(cudaFree(dd));
  return 0;
}

int main() {
  using u16 = uint16_t;
  using u32 = uint32_t;
  const auto f16a = patterns16(false, 1), f16b = patterns16(false, 2), f16c = patterns16(false, 3);
  const auto bf16a = patterns16(true, 4), bf16b = patterns16(true, 5), bf16c = patterns16(true, 6);
  const auto wa = patterns32(7), wb = patterns32(8), wc = patterns32(9);
  std::vector<u32> f16x2a(COUNT), f16x2b(COUNT), f16x2c(COUNT), bf16x2a(COUNT), bf16x2b(COUNT), bf16x2c(COUNT);
  for (int i = 0; i < COUNT; ++i) {
    f16x2a[i] = f16a[i] | u32(f16b[(i * 7 + 1) % COUNT]) << 16;
    f16x2b[i] = f16b[i] | u32(f16c[(i * 5 + 2) % COUNT]) << 16;
    f16x2c[i] = f16c[i] | u32(f16a[(i * 3 + 3) % COUNT]) << 16;
    bf16x2a[i] = bf16a[i] | u32(bf16b[(i * 7 + 1) % COUNT]) << 16;
    bf16x2b[i] = bf16b[i] | u32(bf16c[(i * 5 + 2) % COUNT]) << 16;
    bf16x2c[i] = bf16c[i] | u32(bf16a[(i * 3 + 3) % COUNT]) << 16;
  }
  int rc = 0;
#define F16(k) rc |= run_form<u16, u16>(#k, (const void*)k, f16a, f16b, f16c)
#define BF16(k) rc |= run_form<u16, u16>(#k, (const void*)k, bf16a, bf16b, bf16c)
#define F16X2(k) rc |= run_form<u32, u32>(#k, (const void*)k, f16x2a, f16x2b, f16x2c)
#define BF16X2(k) rc |= run_form<u32, u32>(#k, (const void*)k, bf16x2a, bf16x2b, bf16x2c)
#define W_TO16(k) rc |= run_form<u32, u16>(#k, (const void*)k, wa, wb, wc)
#define W_TO32(k) rc |= run_form<u32, u32>(#k, (const void*)k, wa, wb, wc)
#define F16_TO32(k) rc |= run_form<u16, u32>(#k, (const void*)k, f16a, f16b, f16c)
  F16(add_f16); F16(add_rn_f16); F16(sub_f16); F16(mul_f16); F16(add_sat_f16); F16(mul_ftz_f16);
  F16(min_f16); F16(max_f16); F16(min_nan_f16); F16(max_nan_f16);
  F16(fma_f16); F16(fma_relu_f16); F16(fma_sat_f16); F16(fma_ftz_f16); F16(neg_f16); F16(abs_f16);
  BF16(add_bf16); BF16(sub_bf16); BF16(mul_bf16); BF16(min_bf16); BF16(max_bf16); BF16(fma_bf16);
  BF16(fma_relu_bf16); BF16(neg_bf16); BF16(abs_bf16);
  F16X2(add_f16x2); F16X2(sub_f16x2); F16X2(mul_f16x2); F16X2(max_f16x2); F16X2(min_f16x2); F16X2(fma_f16x2);
  F16X2(fma_relu_f16x2); F16X2(neg_f16x2); F16X2(abs_f16x2); F16X2(set_lt_u32_f16x2); F16X2(set_equ_f16x2_f16x2);
  BF16X2(add_bf16x2); BF16X2(mul_bf16x2); BF16X2(min_bf16x2); BF16X2(max_nan_bf16x2); BF16X2(fma_bf16x2);
  BF16X2(neg_bf16x2); BF16X2(abs_bf16x2);
  F16(setp_lt_f16); F16(setp_gtu_f16); BF16(setp_ge_bf16); F16X2(setp_neu_f16x2); BF16X2(setp_lt_bf16x2);
  W_TO16(cvt_rn_f16_f32); W_TO16(cvt_rz_f16_f32); W_TO16(cvt_rm_f16_f32); W_TO16(cvt_rp_f16_f32);
  W_TO16(cvt_rn_relu_f16_f32); W_TO16(cvt_rn_satfinite_f16_f32); W_TO16(cvt_rn_bf16_f32); W_TO16(cvt_rz_bf16_f32);
  W_TO16(cvt_rm_bf16_f32); W_TO16(cvt_rp_bf16_f32); W_TO16(cvt_rn_relu_bf16_f32);
  F16_TO32(cvt_f32_f16); F16_TO32(cvt_rzi_s32_f16);
  rc |= run_form<u16, u32>("cvt_f32_bf16", (const void*)cvt_f32_bf16, bf16a, bf16b, bf16c);
  rc |= run_form<u16, u16>("cvt_rni_f16_f16", (const void*)cvt_rni_f16_f16, f16a, f16b, f16c);
  W_TO32(cvt_rn_f16x2_f32); W_TO32(cvt_rn_relu_bf16x2_f32); W_TO32(cvt_rna_tf32_f32); W_TO16(cvt_rn_f16_f64);
  W_TO16(cvt_rn_f16_s32); W_TO16(cvt_rn_bf16_s32); W_TO32(pack_swap_f16x2);
  // mma: A 16 x K, Bt 8 x K, C/D 16 x 8; wmma: 16 x 16 each.
  rc |= run_mma<float>("mma_16816_f32_f16", (const void*)mma_16816_f32_f16, false, 256, 128, 128, 16);
  rc |= run_mma<float>("mma_16816_f32_bf16", (const void*)mma_16816_f32_bf16, true, 256, 128, 128, 16);
  rc |= run_mma<float>("mma_1688_f32_f16", (const void*)mma_1688_f32_f16, false, 128, 64, 128, 16);
  rc |= run_mma<float>("mma_1688_f32_bf16", (const void*)mma_1688_f32_bf16, true, 128, 64, 128, 16);
  rc |= run_mma<u16>("mma_16816_f16_f16", (const void*)mma_16816_f16_f16, false, 256, 128, 128, 16);
  rc |= run_mma<u16>("mma_1688_f16_f16", (const void*)mma_1688_f16_f16, false, 128, 64, 128, 16);
  rc |= run_mma<float>("wmma_rc_f32_global", (const void*)wmma_rc_f32_global, false, 256, 256, 256, 8);
  rc |= run_mma<u16>("wmma_rc_f16_global", (const void*)wmma_rc_f16_global, false, 256, 256, 256, 8);
  if (rc) return 1;
  std::printf("tc_numerics: ok\n");
  return 0;
}
