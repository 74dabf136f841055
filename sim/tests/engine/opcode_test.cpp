// One conformance case (at least) per opcode-table row, run as a hand-written PTX kernel on 32 lanes,
// and a test that walks the table and fails when a row has no case here.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <set>

#include "covered_rows.h"
#include "program.h"
#include "test_memory.h"

namespace {

uint64_t F(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
uint64_t D(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }

struct Case {
  const char* row;     // opcode-table row this case covers
  const char* body;    // PTX: inputs in %rd1..3 / %r1..3 / %f1..3 / %fd1..3, result in %rd10
  uint64_t a, b, c;
  uint64_t expect;     // lane 0's %rd10 (every lane gets the same inputs unless the body uses %laneid)
};

// Shorthands for the body: 32-bit result to %rd10.
#define R32(x) x " cvt.u64.u32 %rd10, %r9;"
#define RF(x) x " mov.b32 %r9, %f9; cvt.u64.u32 %rd10, %r9;"
#define RD(x) x " mov.b64 %rd10, %fd9;"
#define RP(x) x " selp.u64 %rd10, 1, 0, %p9;"

const Case kCases[] = {
    {"add", R32("add.s32 %r9, %r1, %r2;"), 3, uint64_t(-5), 0, uint32_t(-2)},
    {"add", RF("add.rz.f32 %f9, %f1, %f2;"), F(1.0f), F(1e-8f), 0, F(1.0f)},
    {"add", RF("add.rp.f32 %f9, %f1, %f2;"), F(1.0f), F(1e-8f), 0, F(std::nextafter(1.0f, 2.0f))},
    {"add", R32("add.sat.s32 %r9, %r1, %r2;"), 0x7fffffff, 5, 0, 0x7fffffff},
    {"sub", "sub.s64 %rd10, %rd1, %rd2;", 10, 20, 0, uint64_t(-10)},
    {"mul", R32("mul.lo.s32 %r9, %r1, %r2;"), 100000, 100000, 0, uint32_t(10000000000ull)},
    {"mul", R32("mul.hi.u32 %r9, %r1, %r2;"), 0x80000000u, 6, 0, 3},
    {"mul", "mul.wide.s32 %rd10, %r1, %r2;", uint32_t(-3), 7, 0, uint64_t(-21)},
    {"mul", RD("mul.rn.f64 %fd9, %fd1, %fd2;"), D(1.5), D(-2.0), 0, D(-3.0)},
    {"mad", R32("mad.lo.s32 %r9, %r1, %r2, %r3;"), 6, 7, 8, 50},
    {"mad", "mad.wide.u32 %rd10, %r1, %r2, %rd3;", 0x10000, 0x10000, 5, 0x100000005ull},
    {"fma", RF("fma.rn.f32 %f9, %f1, %f2, %f3;"), F(2.0f), F(3.0f), F(-1.0f), F(5.0f)},
    {"fma", RF("fma.rp.f32 %f9, %f1, %f2, %f3;"), F(1.0f), F(1.0f), F(1e-8f), F(std::nextafter(1.0f, 2.0f))},
    {"fma", RF("fma.rm.f32 %f9, %f1, %f2, %f3;"), F(1.0f), F(1.0f), F(-1e-8f), F(std::nextafter(1.0f, 0.0f))},
    {"div", R32("div.s32 %r9, %r1, %r2;"), uint32_t(-7), 2, 0, uint32_t(-3)},
    {"div", RD("div.rn.f64 %fd9, %fd1, %fd2;"), D(1.0), D(3.0), 0, D(1.0 / 3.0)},
    {"div", R32("div.u32 %r9, %r1, %r2;"), 7, 0, 0, 0xffffffffu},
    {"rem", R32("rem.s32 %r9, %r1, %r2;"), uint32_t(-7), 3, 0, uint32_t(-1)},
    {"min", R32("min.s32 %r9, %r1, %r2;"), uint32_t(-7), 3, 0, uint32_t(-7)},
    {"min", R32("min.u32 %r9, %r1, %r2;"), uint32_t(-7), 3, 0, 3},
    {"max", RF("max.f32 %f9, %f1, %f2;"), F(NAN), F(2.0f), 0, F(2.0f)},
    {"and", R32("and.b32 %r9, %r1, %r2;"), 0xf0f0, 0xff00, 0, 0xf000},
    {"or", R32("or.b32 %r9, %r1, %r2;"), 0xf0f0, 0xff00, 0, 0xfff0},
    {"or", RP("setp.eq.s32 %p1, %r1, 1; setp.eq.s32 %p2, %r2, 1; or.pred %p9, %p1, %p2;"), 0, 1, 0, 1},
    {"xor", R32("xor.b32 %r9, %r1, %r2;"), 0xf0f0, 0xff00, 0, 0x0ff0},
    {"not", R32("not.b32 %r9, %r1;"), 0, 0, 0, 0xffffffffu},
    {"not", RP("setp.eq.s32 %p1, %r1, 1; not.pred %p9, %p1;"), 1, 0, 0, 0},
    {"cnot", R32("cnot.b32 %r9, %r1;"), 0, 0, 0, 1},
    {"shl", R32("shl.b32 %r9, %r1, %r2;"), 1, 33, 0, 0},
    {"shl", "shl.b64 %rd10, %rd1, 40;", 1, 0, 0, 1ull << 40},
    {"shr", R32("shr.s32 %r9, %r1, %r2;"), uint32_t(-16), 2, 0, uint32_t(-4)},
    {"shr", R32("shr.u32 %r9, %r1, %r2;"), uint32_t(-16), 28, 0, 0xf},
    {"neg", R32("neg.s32 %r9, %r1;"), 5, 0, 0, uint32_t(-5)},
    {"neg", RF("neg.f32 %f9, %f1;"), F(0.0f), 0, 0, F(-0.0f)},
    {"abs", R32("abs.s32 %r9, %r1;"), uint32_t(-5), 0, 0, 5},
    {"abs", RD("abs.f64 %fd9, %fd1;"), D(-2.5), 0, 0, D(2.5)},
    {"popc", R32("popc.b64 %r9, %rd1;"), 0xff000000000000ffull, 0, 0, 16},
    {"clz", R32("clz.b32 %r9, %r1;"), 0x00010000, 0, 0, 15},
    {"brev", R32("brev.b32 %r9, %r1;"), 1, 0, 0, 0x80000000u},
    {"bfind", R32("bfind.u32 %r9, %r1;"), 0x00010000, 0, 0, 16},
    {"bfind", R32("bfind.s32 %r9, %r1;"), uint32_t(-1), 0, 0, 0xffffffffu},
    {"bfe", R32("bfe.u32 %r9, %r1, 4, 8;"), 0x12345678, 0, 0, 0x67},
    {"bfe", R32("bfe.s32 %r9, %r1, 4, 4;"), 0x000000f0, 0, 0, 0xffffffffu},
    {"bfi", R32("bfi.b32 %r9, %r1, %r2, 8, 4;"), 0xf, 0x12345678, 0, 0x12345f78},
    {"prmt", R32("prmt.b32 %r9, %r1, %r2, 0x3210;"), 0x11223344, 0x55667788, 0, 0x11223344},
    {"prmt", R32("prmt.b32 %r9, %r1, %r2, 0x4567;"), 0x11223344, 0x55667788, 0, 0x88776655},
    {"selp", R32("setp.ne.s32 %p1, %r3, 0; selp.b32 %r9, %r1, %r2, %p1;"), 10, 20, 1, 10},
    {"setp", RP("setp.lt.s32 %p9, %r1, %r2;"), uint32_t(-1), 1, 0, 1},
    {"setp", RP("setp.lo.u32 %p9, %r1, %r2;"), uint32_t(-1), 1, 0, 0},
    {"setp", RP("setp.ltu.f32 %p9, %f1, %f2;"), F(NAN), F(1.0f), 0, 1},
    {"setp", RP("setp.lt.f32 %p9, %f1, %f2;"), F(NAN), F(1.0f), 0, 0},
    {"setp", RP("setp.ne.s32 %p1, %r3, 0; setp.gt.and.s32 %p9, %r1, %r2, %p1;"), 5, 1, 0, 0},
    {"set", R32("set.gt.u32.s32 %r9, %r1, %r2;"), 5, 1, 0, 0xffffffffu},
    {"testp", RP("testp.notanumber.f32 %p9, %f1;"), F(NAN), 0, 0, 1},
    {"copysign", RF("copysign.f32 %f9, %f1, %f2;"), F(-1.0f), F(3.0f), 0, F(-3.0f)},
    {"rcp", RF("rcp.rn.f32 %f9, %f1;"), F(4.0f), 0, 0, F(0.25f)},
    {"sqrt", RD("sqrt.rn.f64 %fd9, %fd1;"), D(2.0), 0, 0, D(std::sqrt(2.0))},
    {"rsqrt", RF("rsqrt.approx.f32 %f9, %f1;"), F(4.0f), 0, 0, F(0.5f)},
    {"ex2", RF("ex2.approx.ftz.f32 %f9, %f1;"), F(3.0f), 0, 0, F(8.0f)},
    // The float forms C4, C5 and G1's kernels compile to (__expf, a / b, __fdividef, 1.0f / d, fmaxf on
    // softmax's empty part {-FLT_MAX, 0}), each with the case that tells the variants apart.
    {"ex2", RF("ex2.approx.f32 %f9, %f1;"), F(-130.0f), 0, 0, F(std::ldexp(1.0f, -130))},  // subnormal kept
    {"ex2", RF("ex2.approx.ftz.f32 %f9, %f1;"), F(-130.0f), 0, 0, F(0.0f)},                // flushed
    {"div", RF("div.rn.f32 %f9, %f1, %f2;"), F(1.0f), F(3.0f), 0, F(1.0f / 3.0f)},
    {"div", RF("div.full.f32 %f9, %f1, %f2;"), F(6.0f), F(4.0f), 0, F(1.5f)},
    {"div", RF("div.approx.f32 %f9, %f1, %f2;"), F(1.0f), F(4.0f), 0, F(0.25f)},
    {"mul", RF("mul.rn.f32 %f9, %f1, %f2;"), F(1.1f), F(1.1f), 0, F(1.1f * 1.1f)},
    {"rcp", RF("rcp.rn.f32 %f9, %f1;"), F(0.0f), 0, 0, F(INFINITY)},  // an all -inf row's 1 / d
    {"max", RF("max.f32 %f9, %f1, %f2;"), F(-INFINITY), F(-FLT_MAX), 0, F(-FLT_MAX)},
    {"selp", RF("setp.ne.s32 %p1, %r3, 0; selp.f32 %f9, %f1, %f2, %p1;"), F(1.5f), F(2.5f), 0, F(2.5f)},
    {"setp", RP("setp.eq.f32 %p9, %f1, %f2;"), F(NAN), F(NAN), 0, 0},
    {"neg", "neg.s64 %rd10, %rd1;", 5, 0, 0, uint64_t(-5)},
    {"lg2", RF("lg2.approx.f32 %f9, %f1;"), F(8.0f), 0, 0, F(3.0f)},
    {"sin", RF("sin.approx.f32 %f9, %f1;"), F(0.0f), 0, 0, F(0.0f)},
    {"cos", RF("cos.approx.f32 %f9, %f1;"), F(0.0f), 0, 0, F(1.0f)},
    {"tanh", RF("tanh.approx.f32 %f9, %f1;"), F(0.0f), 0, 0, F(0.0f)},
    {"cvt", R32("cvt.rni.s32.f32 %r9, %f1;"), F(2.5f), 0, 0, 2},
    {"cvt", R32("cvt.rzi.s32.f32 %r9, %f1;"), F(-2.7f), 0, 0, uint32_t(-2)},
    {"cvt", R32("cvt.rmi.s32.f32 %r9, %f1;"), F(-2.2f), 0, 0, uint32_t(-3)},
    {"cvt", R32("cvt.rzi.u32.f32 %r9, %f1;"), F(-5.0f), 0, 0, 0},
    {"cvt", RF("cvt.rn.f32.s32 %f9, %r1;"), uint32_t(-3), 0, 0, F(-3.0f)},
    {"cvt", RF("cvt.sat.f32.f32 %f9, %f1;"), F(1.5f), 0, 0, F(1.0f)},
    {"cvt", RF("cvt.rn.f32.f64 %f9, %fd1;"), D(0.1), 0, 0, F(0.1f)},
    {"cvt", "cvt.s64.s32 %rd10, %r1;", uint32_t(-4), 0, 0, uint64_t(-4)},
    {"cvt", R32("cvt.u8.u32 %r9, %r1;"), 0x1234, 0, 0, 0x34},
    {"cvt", RF("cvt.rn.f16.f32 %rs1, %f1; cvt.f32.f16 %f9, %rs1;"), F(0.1f), 0, 0, F(float(_Float16(0.1f)))},
    {"cvta", "cvta.to.global.u64 %rd10, %rd1;", 0x1000, 0, 0, 0x1000},
    {"mov", "mov.b64 {%r5, %r6}, %rd1; mov.b64 %rd10, {%r6, %r5};", 0x1111111122222222ull, 0, 0, 0x2222222211111111ull},
    {"mov", R32("mov.u32 %r9, %laneid;"), 0, 0, 0, 0},
    {"ld", "ld.global.u64 %rd10, [%rd0];", 0, 0, 0, 0xabcdef},  // %rd0: this lane's input record
    {"ld", "ld.global.v2.u32 {%r5, %r6}, [%rd0]; cvt.u64.u32 %rd10, %r5;", 0, 0, 0, 0xabcdef},
    {"ld", "createpolicy.fractional.L2::evict_last.b64 %rd5, 1.0; ld.global.L2::cache_hint.u64 %rd10, [%rd0], %rd5;", 0, 0, 0, 0xabcdef},
    {"ld", "ld.global.L1::evict_last.u64 %rd10, [%rd0];", 0, 0, 0, 0xabcdef},
    {"ldu", "ldu.global.u64 %rd10, [%rd0];", 0, 0, 0, 0xabcdef},
    {"st", "st.global.u32 [%rd0+8], %r1; ld.global.u64 %rd10, [%rd0+8];", 7, 0x100000000ull, 0, 0x100000007ull},
    {"st", "createpolicy.fractional.L2::evict_first.b64 %rd5, 0.5; st.global.L2::cache_hint.u32 [%rd0+8], %r1, %rd5; "
           "ld.global.u64 %rd10, [%rd0+8];", 7, 0x100000000ull, 0, 0x100000007ull},
    {"createpolicy", "createpolicy.fractional.L2::evict_last.b64 %rd10, 1.0;", 0, 0, 0, 0x5ca1e00000000002ull},
    {"createpolicy", "createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %rd10;", 0, 0, 0, 0x5ca1e00000000041ull},
    {"createpolicy", "createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %rd10, [%rd0], 128, 256;", 0, 0, 0,
     0x5ca1e00000000122ull},
    {"atom", "atom.global.add.u64 %rd5, [%rd0+8], 1; ld.global.u64 %rd10, [%rd0+8]; add.s64 %rd10, %rd10, %rd5;", 0, 5, 0, 11},
    {"red", "red.global.max.u32 [%rd0+8], 9; ld.global.u64 %rd10, [%rd0+8];", 0, 3, 0, 9},
    {"bra", "mov.u64 %rd10, 1; setp.eq.s32 %p1, %r1, 0; @%p1 bra L1; mov.u64 %rd10, 2; L1: add.u64 %rd10, %rd10, 0;", 0, 0, 0, 1},
    {"call", "", 0, 0, 0, 0},     // covered by Control.NestedDivergenceLoopsAndCalls and Control.Printf
    {"ret", "", 0, 0, 0, 0},      // ditto
    {"exit", "mov.u64 %rd10, 5; st.global.u64 [%rd11], %rd10; exit; mov.u64 %rd10, 6;", 0, 0, 0, 5},
    {"trap", "", 0, 0, 0, 0},     // Checks.Trap
    {"bar", "bar.sync 0; mov.u64 %rd10, 3;", 0, 0, 0, 3},
    {"barrier", "barrier.sync 0; mov.u64 %rd10, 3;", 0, 0, 0, 3},
    {"membar", "membar.gl; mov.u64 %rd10, 4;", 0, 0, 0, 4},
    {"fence", "fence.acq_rel.gpu; mov.u64 %rd10, 4;", 0, 0, 0, 4},
    {"nanosleep", "nanosleep.u32 100; mov.u64 %rd10, 4;", 0, 0, 0, 4},
    {"prefetch", "prefetch.global.L2 [%rd0]; mov.u64 %rd10, 4;", 0, 0, 0, 4},
    {"shfl", R32("mov.u32 %r5, %laneid; shfl.sync.bfly.b32 %r9|%p1, %r5, 1, 31, -1;"), 0, 0, 0, 1},
    {"vote", R32("mov.u32 %r5, %laneid; setp.lt.u32 %p1, %r5, 4; vote.sync.ballot.b32 %r9, %p1, -1;"), 0, 0, 0, 0xf},
    {"activemask", R32("activemask.b32 %r9;"), 0, 0, 0, 0xffffffffu},
    {"redux", R32("mov.u32 %r5, %laneid; redux.sync.add.u32 %r9, %r5, -1;"), 0, 0, 0, 496},
    {"match", R32("match.any.sync.b32 %r9, %r1, -1;"), 7, 0, 0, 0xffffffffu},
};

std::string kernel_for(const Case& c) {
  return std::string(".version 9.0\n.target sm_80\n.address_size 64\n") +
         ".visible .entry t(.param .u64 t_out, .param .u64 t_in)\n{\n"
         " .reg .pred %p<10>;\n .reg .b16 %rs<4>;\n .reg .b32 %r<10>;\n .reg .b64 %rd<16>;\n"
         " .reg .f32 %f<10>;\n .reg .f64 %fd<10>;\n"
         " ld.param.u64 %rd14, [t_out];\n ld.param.u64 %rd15, [t_in];\n"
         " mov.u32 %r0, %tid.x;\n mul.wide.u32 %rd13, %r0, 32;\n add.s64 %rd0, %rd15, %rd13;\n"
         " mul.wide.u32 %rd12, %r0, 8;\n add.s64 %rd11, %rd14, %rd12;\n"
         " ld.global.u64 %rd1, [%rd0];\n ld.global.u64 %rd2, [%rd0+8];\n ld.global.u64 %rd3, [%rd0+16];\n"
         " cvt.u32.u64 %r1, %rd1;\n cvt.u32.u64 %r2, %rd2;\n cvt.u32.u64 %r3, %rd3;\n"
         " mov.b32 %f1, %r1;\n mov.b32 %f2, %r2;\n mov.b32 %f3, %r3;\n"
         " mov.b64 %fd1, %rd1;\n mov.b64 %fd2, %rd2;\n mov.b64 %fd3, %rd3;\n"
         " mov.u64 %rd10, 0;\n " +
         c.body + "\n st.global.u64 [%rd11], %rd10;\n ret;\n}\n";
}

TEST(Opcodes, EveryCase) {
  for (const Case& c : kCases) {
    if (!*c.body) continue;
    SCOPED_TRACE(c.body);
    std::unique_ptr<sim::Module> m;
    ASSERT_NO_THROW(m = sim::Module::parse(kernel_for(c)));
    simtest::TestMemory mem;
    std::vector<uint64_t> in(32 * 4);
    for (int l = 0; l < 32; ++l) {
      in[l * 4 + 0] = c.a, in[l * 4 + 1] = c.b, in[l * 4 + 2] = c.c, in[l * 4 + 3] = 0;
      if (std::string(c.row) == "ld" || std::string(c.row) == "ldu") in[l * 4] = 0xabcdef;
    }
    uint64_t din = mem.upload(in), dout = mem.alloc(32 * 8);
    simtest::Args a;
    a.add(dout).add(din);
    sim::LaunchParams lp;
    lp.kernel = "t";
    lp.block = {32, 1, 1};
    lp.args = a.get();
    lp.host_threads = 1;
    auto r = m->launch(lp, mem);
    ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
    auto out = mem.download<uint64_t>(dout, 32);
    EXPECT_EQ(out[0], c.expect) << std::hex << "got 0x" << out[0] << " want 0x" << c.expect;
  }
}

// Every opcode-table row has at least one case above.
TEST(Opcodes, TableIsCovered) {
  std::set<std::string> covered;
  for (const Case& c : kCases) covered.insert(c.row);
  for (const auto& [row, tests] : simtest::covered_rows()) covered.insert(row);  // tensor_test.cpp, half_test.cpp
  for (const std::string& row : sim::eng::opcode_names()) EXPECT_TRUE(covered.count(row)) << "no test for opcode row " << row;
}

}  // namespace
