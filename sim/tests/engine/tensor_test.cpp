// Tensor-core rows (mma, wmma, ldmatrix, stmatrix, movmatrix, cp) on the checked-in fixtures
// ptx/tensor.ptx and ptx/tensor_sm90.ptx, each against a host reference written from the PTX ISA.
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

float h2f(u16 h) { _Float16 x; memcpy(&x, &h, 2); return float(x); }
u16 f2h(float f) { _Float16 x = _Float16(f); u16 h; memcpy(&h, &x, 2); return h; }
float bf2f(u16 h) { u32 b = u32(h) << 16; float f; memcpy(&f, &b, 4); return f; }
u16 f2bf(float f) { u32 b; memcpy(&b, &f, 4); return u16(b >> 16); }  // exact for the values used here

struct Kernels {
  std::unique_ptr<sim::Module> mod;
  TestMemory mem;
  explicit Kernels(const char* file) : mod(sim::Module::parse(simtest::read_ptx(file))) {}
  sim::LaunchReport launch(const std::string& k, Args& a, uint32_t threads = 32, uint32_t blocks = 1) {
    sim::LaunchParams lp;
    lp.kernel = k;
    lp.grid = {blocks, 1, 1};
    lp.block = {threads, 1, 1};
    lp.args = a.get();
    lp.host_threads = 1;
    return mod->launch(lp, mem);
  }
};
uint64_t metric(const sim::LaunchReport& r, const std::string& name) {
  auto it = r.metrics.find(name);
  return it == r.metrics.end() ? 0 : it->second;
}

// Small multiples of 1/4: every product and sum below is exact in f32, whatever the order.
std::vector<float> small_values(size_t n, int seed) {
  std::mt19937 g{uint32_t(seed)};
  std::vector<float> v(n);
  for (auto& x : v) x = float(int(g() % 17) - 8) * 0.25f;
  return v;
}

// ---- mma

// The H200's f32 sum (sim/engine/ops_tensor.cpp, measured with sim/validation/tc_numerics.cu),
// written plainly: align c and the products to the largest nominal exponent e (the factors'
// exponents added), truncate each to a multiple of 2^(e - 25), add, round toward zero to f32.
float tensor_core_sum(const std::vector<u16>& A, const std::vector<u16>& Bt, float c, int i, int j, int K) {
  auto expo = [](double v) { return v == 0 ? -100000 : std::max(std::ilogb(v), -14); };  // f16 inputs
  int e = c == 0 ? -100000 : std::max(std::ilogb(c), -126);
  for (int k = 0; k < K; ++k) {
    const double a = h2f(A[size_t(i * K + k)]), b = h2f(Bt[size_t(j * K + k)]);
    if (a != 0 && b != 0) e = std::max(e, expo(a) + expo(b));
  }
  const double q = std::ldexp(1.0, e - 25);
  double sum = std::trunc(c / q);
  for (int k = 0; k < K; ++k) sum += std::trunc(double(h2f(A[size_t(i * K + k)])) * h2f(Bt[size_t(j * K + k)]) / q);
  const double x = sum * q;
  float f = float(x);
  if (std::fabs(double(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);
  return f;
}

// Random f16 inputs whose sums are not exact: the truncating sum above, on the vector path (all
// finite) and on the scalar one (a NaN in C[0][0] sends the instruction there; D[0][0] is NaN,
// the rest must not change).
TEST(Mma, TruncatingSumOnBothPaths) {
  std::mt19937 g{7};
  for (int K : {16, 8}) {
    std::vector<u16> A(size_t(16 * K)), Bt(size_t(8 * K));
    std::vector<float> C(128);
    for (auto* v : {&A, &Bt})
      for (auto& h : *v) h = u16((g() & 0x8000) | ((15 + int(g() % 12) - 6) << 10) | (g() & 0x3ff));
    for (auto& c : C) c = float(int(g() % 2001) - 1000) / 64.0f;
    A[3] = 0;  // a zero factor takes no part in the alignment
    std::vector<float> want(128);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 8; ++j) want[size_t(i * 8 + j)] = tensor_core_sum(A, Bt, C[size_t(i * 8 + j)], i, j, K);
    for (bool nan : {false, true}) {
      SCOPED_TRACE(std::string("K ") + std::to_string(K) + (nan ? " scalar path" : " vector path"));
      Kernels run("tensor.ptx");
      std::vector<float> c = C;
      if (nan) c[0] = NAN;
      uint64_t dA = run.mem.upload(A), dB = run.mem.upload(Bt), dC = run.mem.upload(c), dD = run.mem.alloc(128 * 4);
      Args a;
      a.add(dA).add(dB).add(dC).add(dD);
      auto r = run.launch(K == 16 ? "mma_16816_f32_f16" : "mma_1688_f32_f16", a);
      ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
      auto D = run.mem.download<float>(dD, 128);
      int inexact = 0;
      for (int i = 0; i < 128; ++i) {
        if (nan && i == 0) { EXPECT_TRUE(std::isnan(D[0])); continue; }
        ASSERT_EQ(D[size_t(i)], want[size_t(i)]) << "D[" << i / 8 << "][" << i % 8 << "]";
        double exact = C[size_t(i)];
        for (int k = 0; k < K; ++k) exact += double(h2f(A[size_t(i / 8 * K + k)])) * h2f(Bt[size_t(i % 8 * K + k)]);
        inexact += D[size_t(i)] != float(exact);
      }
      EXPECT_GT(inexact, 10);  // the truncation shows: this is not the correctly rounded sum
    }
  }
}

void check_mma(const char* kernel, int K, bool bf16, bool f16_acc) {
  SCOPED_TRACE(kernel);
  Kernels run("tensor.ptx");
  auto fa = small_values(size_t(16 * K), 1), fb = small_values(size_t(8 * K), 2), fc = small_values(128, 3);
  std::vector<u16> A(fa.size()), Bt(fb.size()), C16(128);
  for (size_t i = 0; i < fa.size(); ++i) A[i] = bf16 ? f2bf(fa[i]) : f2h(fa[i]);
  for (size_t i = 0; i < fb.size(); ++i) Bt[i] = bf16 ? f2bf(fb[i]) : f2h(fb[i]);
  for (size_t i = 0; i < 128; ++i) C16[i] = f2h(fc[i]);
  uint64_t dA = run.mem.upload(A), dB = run.mem.upload(Bt);
  uint64_t dC = f16_acc ? run.mem.upload(C16) : run.mem.upload(fc), dD = run.mem.alloc(128 * 4);
  Args a;
  a.add(dA).add(dB).add(dC).add(dD);
  auto r = run.launch(kernel, a);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  auto D32 = run.mem.download<float>(dD, 128);
  auto D16 = run.mem.download<u16>(dD, 128);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double want = fc[size_t(i * 8 + j)];
      for (int k = 0; k < K; ++k) want += double(fa[size_t(i * K + k)]) * fb[size_t(j * K + k)];
      float got = f16_acc ? h2f(D16[size_t(i * 8 + j)]) : D32[size_t(i * 8 + j)];
      ASSERT_EQ(got, float(want)) << "D[" << i << "][" << j << "]";
    }
  EXPECT_EQ(metric(r, "smsp__inst_executed_pipe_tensor_op_hmma.sum"), 1u);
}

TEST(Mma, M16n8k16F16F32) { check_mma("mma_16816_f32_f16", 16, false, false); }
TEST(Mma, M16n8k16Bf16F32) { check_mma("mma_16816_f32_bf16", 16, true, false); }
TEST(Mma, M16n8k8F16F32) { check_mma("mma_1688_f32_f16", 8, false, false); }
TEST(Mma, M16n8k8Bf16F32) { check_mma("mma_1688_f32_bf16", 8, true, false); }
TEST(Mma, M16n8k16F16F16) { check_mma("mma_16816_f16_f16", 16, false, true); }
TEST(Mma, M16n8k8F16F16) { check_mma("mma_1688_f16_f16", 8, false, true); }

// One sum for the whole instruction, not one f32 addition per k: 2^24 + 1 + 1 gives 2^24 + 2
// (exact at the alignment's 2^(24 - 25)); adding 1 to 2^24 in f32 twice would give 2^24.
TEST(Mma, OneRoundingAtTheEnd) {
  Kernels run("tensor.ptx");
  std::vector<u16> A(256, f2h(0.0f)), Bt(128, f2h(0.0f));
  std::vector<float> C(128, 16777216.0f);
  A[0] = A[1] = f2h(1.0f);        // row 0, k = 0 and 1
  Bt[0] = Bt[1] = f2h(1.0f);      // column 0, k = 0 and 1
  uint64_t dA = run.mem.upload(A), dB = run.mem.upload(Bt), dC = run.mem.upload(C), dD = run.mem.alloc(512);
  Args a;
  a.add(dA).add(dB).add(dC).add(dD);
  auto r = run.launch("mma_16816_f32_f16", a);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  EXPECT_EQ(run.mem.download<float>(dD, 1)[0], 16777218.0f);
}

TEST(Mma, NeedsTheWholeWarp) {
  Kernels run("tensor.ptx");
  uint64_t d = run.mem.alloc(4096);
  Args a;
  a.add(d).add(d).add(d).add(d);
  auto r = run.launch("mma_partial_warp", a, 16);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].kind, "sync-mask");
  EXPECT_NE(r.errors[0].message.find("all 32 lanes"), std::string::npos) << r.errors[0].message;
}

// ---- ldmatrix / movmatrix

// What lane l's register j holds, from the PTX ISA: row l/4, columns 2(l%4), 2(l%4)+1 of matrix j
// (.trans: rows 2(l%4), 2(l%4)+1 of column l/4); matrix j's row r is M[(8j + r) * pitch ...].
u32 ldmatrix_ref(const std::vector<u16>& M, int pitch, int j, int l, bool trans) {
  auto at = [&](int r, int c) { return u32(M[size_t((8 * j + r) * pitch + c)]); };
  const int g = l / 4, t = l % 4;
  return trans ? at(2 * t, g) | at(2 * t + 1, g) << 16 : at(g, 2 * t) | at(g, 2 * t + 1) << 16;
}

TEST(Ldmatrix, EveryCountAndTranspose) {
  for (int pitch : {8, 16, 64, 72}) {
    for (int num : {1, 2, 4})
      for (bool trans : {false, true}) {
        std::string k = "ldmatrix_x" + std::to_string(num) + (trans ? "_trans" : "");
        SCOPED_TRACE(k + " pitch " + std::to_string(pitch));
        Kernels run("tensor.ptx");
        std::vector<u16> M(size_t(32 * pitch));
        for (size_t i = 0; i < M.size(); ++i) M[i] = u16(i * 7 + 1);
        uint64_t dM = run.mem.upload(M), dO = run.mem.alloc(4 * 32 * 4);
        Args a;
        a.add(dM).add(dO).add(pitch);
        auto r = run.launch(k, a);
        ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
        auto out = run.mem.download<u32>(dO, size_t(num * 32));
        for (int j = 0; j < num; ++j)
          for (int l = 0; l < 32; ++l) ASSERT_EQ(out[size_t(j * 32 + l)], ldmatrix_ref(M, pitch, j, l, trans)) << j << " " << l;
        // Nsight Compute's view: one LDSM; a matrix is one wavefront unless its rows share banks.
        EXPECT_EQ(metric(r, "smsp__sass_inst_executed_op_ldsm.sum"), 1u);
        const uint64_t per_matrix = pitch == 64 ? 8 : pitch == 16 ? 2 : 1;  // 128 B rows: 8-way; 32 B: 2-way
        EXPECT_EQ(metric(r, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum"), uint64_t(num) * per_matrix);
        EXPECT_EQ(metric(r, "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum"), uint64_t(num) * (per_matrix - 1));
      }
  }
}

// An unswizzled 8 x 64 tile read by columns of 16-byte chunks conflicts 8 ways; XOR-swizzled, none.
TEST(Ldmatrix, SwizzleRemovesConflicts) {
  for (int swizzle : {0, 1}) {
    Kernels run("tensor.ptx");
    std::vector<u16> M(512);
    for (size_t i = 0; i < M.size(); ++i) M[i] = u16(i);
    uint64_t dM = run.mem.upload(M), dO = run.mem.alloc(512);
    Args a;
    a.add(dM).add(dO).add(swizzle);
    auto r = run.launch("ldmatrix_x4_swizzled", a);
    ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
    auto out = run.mem.download<u32>(dO, 128);
    for (int j = 0; j < 4; ++j)
      for (int l = 0; l < 32; ++l) {  // matrix j = chunk j of rows 0..7 of the logical tile
        const int g = l / 4, t = l % 4;
        u32 want = u32(M[size_t(g * 64 + 8 * j + 2 * t)]) | u32(M[size_t(g * 64 + 8 * j + 2 * t + 1)]) << 16;
        ASSERT_EQ(out[size_t(j * 32 + l)], want);
      }
    EXPECT_EQ(metric(r, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum"), swizzle ? 4u : 32u);
    EXPECT_EQ(metric(r, "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum"), swizzle ? 0u : 28u);
  }
}

// stmatrix (sm_90): the inverse of ldmatrix, counted as STSM.
TEST(Stmatrix, EveryCountAndTranspose) {
  for (int pitch : {8, 64}) {
    for (int num : {1, 2, 4})
      for (bool trans : {false, true}) {
        std::string k = "stmatrix_x" + std::to_string(num) + (trans ? "_trans" : "");
        SCOPED_TRACE(k + " pitch " + std::to_string(pitch));
        Kernels run("tensor_sm90.ptx");
        std::vector<u32> in(128);
        for (u32 i = 0; i < 128; ++i) in[i] = (2 * i + 1) | (2 * i + 2) << 16;
        uint64_t di = run.mem.upload(in), dO = run.mem.alloc(size_t(32 * pitch) * 2);
        Args a;
        a.add(di).add(dO).add(pitch);
        auto r = run.launch(k, a);
        ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
        auto out = run.mem.download<u16>(dO, size_t(32 * pitch));
        std::vector<u16> want(out.size(), 0xffff);
        for (int j = 0; j < num; ++j)
          for (int l = 0; l < 32; ++l) {  // ldmatrix_ref backwards
            const int g = l / 4, t = l % 4;
            const u32 v = in[size_t(j * 32 + l)];
            auto put = [&](int row, int col, u16 x) { want[size_t((8 * j + row) * pitch + col)] = x; };
            if (trans) put(2 * t, g, u16(v)), put(2 * t + 1, g, u16(v >> 16));
            else put(g, 2 * t, u16(v)), put(g, 2 * t + 1, u16(v >> 16));
          }
        ASSERT_EQ(out, want);
        EXPECT_EQ(metric(r, "smsp__sass_inst_executed_op_shared_stsm.sum"), 1u);
        EXPECT_EQ(metric(r, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum"), uint64_t(num) * (pitch == 64 ? 8 : 1));
      }
  }
}

TEST(Movmatrix, Transposes) {
  Kernels run("tensor.ptx");
  std::vector<u32> in(32);
  for (u32 l = 0; l < 32; ++l) in[l] = (2 * l) | (2 * l + 1) << 16;  // element (r, c) = 8r + c
  uint64_t di = run.mem.upload(in), dO = run.mem.alloc(128);
  Args a;
  a.add(di).add(dO);
  auto r = run.launch("movmatrix_trans", a);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  auto out = run.mem.download<u32>(dO, 32);
  for (u32 l = 0; l < 32; ++l) {  // lane l holds (row l/4, columns 2(l%4), +1) of the transpose
    u32 g = l / 4, t = l % 4;
    EXPECT_EQ(out[l], (8 * (2 * t) + g) | (8 * (2 * t + 1) + g) << 16) << l;
  }
}

// ---- cp.async

TEST(CpAsync, EveryFormLandsWhatItShould) {
  for (int tail : {0, 5, 16}) {
    Kernels run("tensor.ptx");
    std::vector<uint8_t> src(512);
    for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 13 + 1);
    uint64_t ds = run.mem.upload(src), dO = run.mem.alloc(5 * 512);
    Args a;
    a.add(ds).add(dO).add(tail);
    auto r = run.launch("cp_async_forms", a);
    ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
    auto out = run.mem.download<uint8_t>(dO, 5 * 512);
    for (int t = 0; t < 32; ++t)
      for (int i = 0; i < 16; ++i) {
        const uint8_t s = src[size_t(16 * t + i)];
        ASSERT_EQ(out[size_t((0 * 32 + t) * 16 + i)], s);                          // 4 + 4 + 8 bytes, .ca
        ASSERT_EQ(out[size_t((1 * 32 + t) * 16 + i)], s);                          // 16 bytes, .cg
        ASSERT_EQ(out[size_t((2 * 32 + t) * 16 + i)], i < tail ? s : 0) << tail;   // src-size, zero fill
        ASSERT_EQ(out[size_t((3 * 32 + t) * 16 + i)], t % 2 ? s : 0);              // src-size 0 or 16
        ASSERT_EQ(out[size_t((4 * 32 + t) * 16 + i)], t % 3 ? 0 : s);              // ignore-src
      }
    // One LDGSTS per cp.async; .ca counts as cache access, .cg as bypass.
    EXPECT_EQ(metric(r, "smsp__sass_inst_executed_op_ldgsts.sum"), 7u);
    EXPECT_EQ(metric(r, "smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum"), 3u);
    EXPECT_EQ(metric(r, "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_access.sum"), tail ? 4u : 3u);
    // .cg 16 bytes by 32 lanes: 512 contiguous bytes, 16 sectors; the odd lanes: 16; every third: 11
    EXPECT_EQ(metric(r, "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum"), 16u + 16u + 11u);
    // The H200 counts LDGSTS's requests in the global op_ld counters too.
    EXPECT_EQ(metric(r, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), tail ? 7u : 6u);
    // Shared wavefronts as the H200 counts them: one group per 128-byte source line (4 per
    // instruction here), and one per lane that reads nothing: tail 0: 32 lanes; t % 2 ? 16 : 0:
    // 16 lanes + 4 lines; ignore-src on t % 3 != 0: 21 lanes + 4 lines.
    EXPECT_EQ(metric(r, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"), (tail ? 4u : 32u) + 16u + 20u + 25u);
    EXPECT_EQ(metric(r, "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum"), 0u);
  }
}

TEST(CpAsync, ReadBeforeWaitIsARaceNamingBothLines) {
  Kernels run("tensor.ptx");
  uint64_t dx = run.mem.alloc(256), dy = run.mem.alloc(256);
  Args a;
  a.add(dx).add(dy);
  auto r = run.launch("cp_async_read_before_wait", a);
  ASSERT_EQ(r.errors.size(), 1u);
  const sim::SimError& e = r.errors[0];
  EXPECT_EQ(e.kind, "shared-race");
  EXPECT_NE(e.message.find("before the cp.async at line "), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("wait_group"), std::string::npos) << e.message;
  EXPECT_GT(e.line, 0);
  EXPECT_NE(e.detail.find("cp.async at line"), std::string::npos);
}

TEST(CpAsync, AnotherThreadsCopyNeedsABarrierAfterTheWait) {
  for (int barrier : {0, 1}) {
    Kernels run("tensor.ptx");
    std::vector<float> x(64);
    for (int i = 0; i < 64; ++i) x[size_t(i)] = float(i);
    uint64_t dx = run.mem.upload(x), dy = run.mem.alloc(256);
    Args a;
    a.add(dx).add(dy).add(barrier);
    auto r = run.launch("cp_async_no_barrier", a, 64);
    if (barrier) {
      ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
      auto y = run.mem.download<float>(dy, 64);
      for (int i = 0; i < 64; ++i) EXPECT_EQ(y[size_t(i)], float(63 - i));
    } else {
      ASSERT_EQ(r.errors.size(), 1u);
      EXPECT_EQ(r.errors[0].kind, "shared-race");
      EXPECT_NE(r.errors[0].message.find("with no barrier between"), std::string::npos) << r.errors[0].message;
    }
  }
}

TEST(CpAsync, PipelinesOfTwoToFourStages) {
  for (int stages : {2, 3, 4}) {
    Kernels run("tensor.ptx");
    const int ntiles = 9;
    std::vector<float> x(size_t(ntiles * 128));
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 97);
    uint64_t dx = run.mem.upload(x), dy = run.mem.alloc(128);
    Args a;
    a.add(dx).add(dy).add(ntiles);
    auto r = run.launch("cp_async_pipeline" + std::to_string(stages), a);
    ASSERT_TRUE(r.errors.empty()) << stages << ": " << r.errors[0].message;
    auto y = run.mem.download<float>(dy, 32);
    for (int t = 0; t < 32; ++t) {
      float want = 0;
      for (int tile = 0; tile < ntiles; ++tile) want += x[size_t(tile * 128 + (t * 4 + 5) % 128)];
      EXPECT_EQ(y[size_t(t)], want) << stages << " stages, thread " << t;
    }
  }
}

// ---- wmma

void check_wmma(const char* kernel, bool a_col, bool b_col, bool f16_acc, bool c_col) {
  SCOPED_TRACE(kernel);
  Kernels run("tensor.ptx");
  auto fa = small_values(256, 4), fb = small_values(256, 5), fc = small_values(256, 6);
  std::vector<u16> A(256), B(256), C16(256);
  for (int i = 0; i < 256; ++i) A[size_t(i)] = f2h(fa[size_t(i)]), B[size_t(i)] = f2h(fb[size_t(i)]), C16[size_t(i)] = f2h(fc[size_t(i)]);
  uint64_t dA = run.mem.upload(A), dB = run.mem.upload(B);
  uint64_t dC = f16_acc ? run.mem.upload(C16) : run.mem.upload(fc), dD = run.mem.alloc(1024);
  Args a;
  a.add(dA).add(dB).add(dC).add(dD);
  auto r = run.launch(kernel, a);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  auto at = [](const std::vector<float>& v, bool col, int i, int j) { return double(col ? v[size_t(j * 16 + i)] : v[size_t(i * 16 + j)]); };
  auto D32 = run.mem.download<float>(dD, 256);
  auto D16 = run.mem.download<u16>(dD, 256);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      double want = at(fc, c_col, i, j);
      for (int k = 0; k < 16; ++k) want += at(fa, a_col, i, k) * at(fb, b_col, k, j);
      const size_t o = c_col ? size_t(j * 16 + i) : size_t(i * 16 + j);
      ASSERT_EQ(f16_acc ? h2f(D16[o]) : D32[o], float(want)) << "D[" << i << "][" << j << "]";
    }
  EXPECT_EQ(metric(r, "smsp__inst_executed_pipe_tensor_op_hmma.sum"), 2u);
}

TEST(Wmma, RowColF32Global) { check_wmma("wmma_rc_f32_global", false, true, false, false); }
TEST(Wmma, ColRowF32GlobalColumnMajorC) { check_wmma("wmma_cr_f32_global_colc", true, false, false, true); }
TEST(Wmma, RowRowF32Shared) { check_wmma("wmma_rr_f32_shared", false, false, false, false); }
TEST(Wmma, ColColF32SharedColumnMajorC) { check_wmma("wmma_cc_f32_shared_colc", true, true, false, true); }
TEST(Wmma, RowColF16Global) { check_wmma("wmma_rc_f16_global", false, true, true, false); }
TEST(Wmma, ColRowF16SharedColumnMajorC) { check_wmma("wmma_cr_f16_shared_colc", true, false, true, true); }

// The counters ptxas's code gives on sm_90: from global, four 32-bit loads per a/b fragment and four
// 64-bit loads/stores per row-major f32 c/d; from shared, one LDSM per a/b fragment.
TEST(Wmma, CountsAsTheSassDoes) {
  {
    Kernels run("tensor.ptx");
    uint64_t d = run.mem.alloc(2048), o = run.mem.alloc(1024);
    Args a;
    a.add(d).add(d).add(d).add(o);
    auto r = run.launch("wmma_rc_f32_global", a);
    ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
    EXPECT_EQ(metric(r, "smsp__inst_executed_op_global_ld.sum"), 12u);
    EXPECT_EQ(metric(r, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), 4u);
    EXPECT_EQ(metric(r, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), 3 * 4u * 8);  // 8 rows of one 8 x 8 block each
    EXPECT_EQ(metric(r, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), 4u * 8);
  }
  {
    Kernels run("tensor.ptx");
    uint64_t d = run.mem.alloc(2048), o = run.mem.alloc(1024);
    Args a;
    a.add(d).add(d).add(d).add(o);
    auto r = run.launch("wmma_rr_f32_shared", a);
    ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
    EXPECT_EQ(metric(r, "smsp__sass_inst_executed_op_ldsm.sum"), 2u);
    // 16 x 16 halves: rows of 32 bytes, two rows a bank line: 2-way conflicts in each 8 x 8 matrix
    EXPECT_EQ(metric(r, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum"), 16u);
  }
}

// The registers a program can read: sm_80/sm_90's fragment layout (see ops_tensor.cpp).
TEST(Wmma, FragmentRegistersAsOnTheGpu) {
  Kernels run("tensor.ptx");
  std::vector<u16> A(256);
  for (int i = 0; i < 256; ++i) A[size_t(i)] = u16(i);  // element (r, c) = 16r + c
  std::vector<float> C(256);
  for (int i = 0; i < 256; ++i) C[size_t(i)] = float(i);
  uint64_t dA = run.mem.upload(A), dC = run.mem.upload(C), fa = run.mem.alloc(1024), fb = run.mem.alloc(1024), fc = run.mem.alloc(1024);
  Args a;
  a.add(dA).add(dC).add(fa).add(fb).add(fc);
  auto r = run.launch("wmma_fragments", a);
  ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
  auto xa = run.mem.download<u16>(fa, 512), xb = run.mem.download<u16>(fb, 512);
  auto xc = run.mem.download<float>(fc, 256);
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    for (int i = 0; i < 16; ++i) {
      const int ii = i & 7;
      EXPECT_EQ(xa[size_t(l * 16 + i)], 16 * (g + 8 * ((ii >> 1) & 1)) + 2 * t + (ii & 1) + 8 * (ii >> 2)) << l << " a " << i;
      EXPECT_EQ(xb[size_t(l * 16 + i)], 16 * (2 * t + (ii & 1) + 8 * ((ii >> 1) & 1)) + g + 8 * (ii >> 2)) << l << " b " << i;
    }
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(xc[size_t(l * 8 + i)], float(16 * (g + 8 * ((i >> 1) & 1)) + 2 * t + (i & 1) + 8 * (i >> 2))) << l << " c " << i;
  }
}

const simtest::CoveredRows kRows({{"mma", "Mma.*"}, {"wmma", "Wmma.*"}, {"ldmatrix", "Ldmatrix.*"}, {"stmatrix", "Stmatrix.*"},
                                   {"movmatrix", "Movmatrix.Transposes"}, {"cp", "CpAsync.*"}});

}  // namespace
