// Half precision, one instruction per kernel (inline PTX, so the form under test is exactly the one
// named): thread i applies it to a[i], b[i], c[i] (16-bit patterns, or 32-bit for x2 and f32) and
// writes d[i].
using u16 = unsigned short;
using u32 = unsigned;

#define BIN16(name, insn)                                                                            \
  extern "C" __global__ void name(const u16* a, const u16* b, const u16*, u16* d, int n) {          \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {       \
      u16 r;                                                                                        \
      asm(insn " %0, %1, %2;" : "=h"(r) : "h"(a[i]), "h"(b[i]));                                    \
      d[i] = r;                                                                                     \
    }                                                                                               \
  }
#define FMA16(name, insn)                                                                            \
  extern "C" __global__ void name(const u16* a, const u16* b, const u16* c, u16* d, int n) {        \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {       \
      u16 r;                                                                                        \
      asm(insn " %0, %1, %2, %3;" : "=h"(r) : "h"(a[i]), "h"(b[i]), "h"(c[i]));                     \
      d[i] = r;                                                                                     \
    }                                                                                               \
  }
#define UN16(name, insn)                                                                             \
  extern "C" __global__ void name(const u16* a, const u16*, const u16*, u16* d, int n) {            \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {       \
      u16 r;                                                                                        \
      asm(insn " %0, %1;" : "=h"(r) : "h"(a[i]));                                                   \
      d[i] = r;                                                                                     \
    }                                                                                               \
  }
#define BIN32(name, insn)                                                                            \
  extern "C" __global__ void name(const u32* a, const u32* b, const u32*, u32* d, int n) {          \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {       \
      u32 r;                                                                                        \
      asm(insn " %0, %1, %2;" : "=r"(r) : "r"(a[i]), "r"(b[i]));                                    \
      d[i] = r;                                                                                     \
    }                                                                                               \
  }
#define FMA32(name, insn)                                                                            \
  extern "C" __global__ void name(const u32* a, const u32* b, const u32* c, u32* d, int n) {        \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {       \
      u32 r;                                                                                        \
      asm(insn " %0, %1, %2, %3;" : "=r"(r) : "r"(a[i]), "r"(b[i]), "r"(c[i]));                     \
      d[i] = r;                                                                                     \
    }                                                                                               \
  }
#define UN32(name, insn)                                                                             \
  extern "C" __global__ void name(const u32* a, const u32*, const u32*, u32* d, int n) {            \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {       \
      u32 r;                                                                                        \
      asm(insn " %0, %1;" : "=r"(r) : "r"(a[i]));                                                   \
      d[i] = r;                                                                                     \
    }                                                                                               \
  }
// f32 (as bits) to a 16-bit result, and 16-bit to f32
#define CVT_TO16(name, insn)                                                                         \
  extern "C" __global__ void name(const u32* a, const u32*, const u32*, u16* d, int n) {            \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {       \
      u16 r;                                                                                        \
      asm(insn " %0, %1;" : "=h"(r) : "f"(__uint_as_float(a[i])));                                  \
      d[i] = r;                                                                                     \
    }                                                                                               \
  }
#define CVT_FROM16(name, insn)                                                                       \
  extern "C" __global__ void name(const u16* a, const u16*, const u16*, u32* d, int n) {            \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {       \
      float r;                                                                                      \
      asm(insn " %0, %1;" : "=f"(r) : "h"(a[i]));                                                   \
      d[i] = __float_as_uint(r);                                                                    \
    }                                                                                               \
  }

BIN16(add_f16, "add.f16")
BIN16(add_rn_f16, "add.rn.f16")
BIN16(sub_f16, "sub.f16")
BIN16(mul_f16, "mul.f16")
BIN16(add_sat_f16, "add.sat.f16")
BIN16(mul_ftz_f16, "mul.ftz.f16")
BIN16(min_f16, "min.f16")
BIN16(max_f16, "max.f16")
BIN16(min_nan_f16, "min.NaN.f16")
BIN16(max_nan_f16, "max.NaN.f16")
FMA16(fma_f16, "fma.rn.f16")
FMA16(fma_relu_f16, "fma.rn.relu.f16")
FMA16(fma_sat_f16, "fma.rn.sat.f16")
FMA16(fma_ftz_f16, "fma.rn.ftz.f16")
UN16(neg_f16, "neg.f16")
UN16(abs_f16, "abs.f16")
BIN16(add_bf16, "add.rn.bf16")
BIN16(sub_bf16, "sub.rn.bf16")
BIN16(mul_bf16, "mul.rn.bf16")
BIN16(min_bf16, "min.bf16")
BIN16(max_bf16, "max.bf16")
FMA16(fma_bf16, "fma.rn.bf16")
FMA16(fma_relu_bf16, "fma.rn.relu.bf16")
UN16(neg_bf16, "neg.bf16")
UN16(abs_bf16, "abs.bf16")
BIN32(add_f16x2, "add.f16x2")
BIN32(sub_f16x2, "sub.f16x2")
BIN32(mul_f16x2, "mul.f16x2")
BIN32(max_f16x2, "max.f16x2")
BIN32(min_f16x2, "min.f16x2")
FMA32(fma_f16x2, "fma.rn.f16x2")
FMA32(fma_relu_f16x2, "fma.rn.relu.f16x2")
UN32(neg_f16x2, "neg.f16x2")
UN32(abs_f16x2, "abs.f16x2")
BIN32(add_bf16x2, "add.rn.bf16x2")
BIN32(mul_bf16x2, "mul.rn.bf16x2")
BIN32(min_bf16x2, "min.bf16x2")
BIN32(max_nan_bf16x2, "max.NaN.bf16x2")
FMA32(fma_bf16x2, "fma.rn.bf16x2")
UN32(neg_bf16x2, "neg.bf16x2")
UN32(abs_bf16x2, "abs.bf16x2")
BIN32(set_lt_u32_f16x2, "set.lt.u32.f16x2")
BIN32(set_equ_f16x2_f16x2, "set.equ.f16x2.f16x2")
CVT_TO16(cvt_rn_f16_f32, "cvt.rn.f16.f32")
CVT_TO16(cvt_rz_f16_f32, "cvt.rz.f16.f32")
CVT_TO16(cvt_rm_f16_f32, "cvt.rm.f16.f32")
CVT_TO16(cvt_rp_f16_f32, "cvt.rp.f16.f32")
CVT_TO16(cvt_rn_relu_f16_f32, "cvt.rn.relu.f16.f32")
CVT_TO16(cvt_rn_satfinite_f16_f32, "cvt.rn.satfinite.f16.f32")
CVT_TO16(cvt_rn_bf16_f32, "cvt.rn.bf16.f32")
CVT_TO16(cvt_rz_bf16_f32, "cvt.rz.bf16.f32")
CVT_TO16(cvt_rm_bf16_f32, "cvt.rm.bf16.f32")
CVT_TO16(cvt_rp_bf16_f32, "cvt.rp.bf16.f32")
CVT_TO16(cvt_rn_relu_bf16_f32, "cvt.rn.relu.bf16.f32")
CVT_FROM16(cvt_f32_f16, "cvt.f32.f16")
CVT_FROM16(cvt_f32_bf16, "cvt.f32.bf16")

// setp on f16 / bf16 (p: 1 or 0) and on f16x2 / bf16x2 (p|q: bit 0 p, bit 1 q).
#define SETP(name, insn, TY, C, DEST, SET_Q)                                                         \
  extern "C" __global__ void name(const TY* a, const TY* b, const TY*, TY* d, int n) {              \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {       \
      u32 r;                                                                                        \
      asm("{ .reg .pred p, q; " insn " " DEST ", %1, %2; selp.u32 %0, 1, 0, p; " SET_Q " }"           \
          : "=r"(r) : C(a[i]), C(b[i]));                                                            \
      d[i] = TY(r);                                                                                 \
    }                                                                                               \
  }
SETP(setp_lt_f16, "setp.lt.f16", u16, "h", "p", "")
SETP(setp_gtu_f16, "setp.gtu.f16", u16, "h", "p", "")
SETP(setp_ge_bf16, "setp.ge.bf16", u16, "h", "p", "")
SETP(setp_neu_f16x2, "setp.neu.f16x2", u32, "r", "p|q", "@q add.u32 %0, %0, 2;")
SETP(setp_lt_bf16x2, "setp.lt.bf16x2", u32, "r", "p|q", "@q add.u32 %0, %0, 2;")

// Pairs, tf32, f64 and integers.
extern "C" __global__ void cvt_rn_f16x2_f32(const u32* a, const u32* b, const u32*, u32* d, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    u32 r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(__uint_as_float(a[i])), "f"(__uint_as_float(b[i])));
    d[i] = r;
  }
}
extern "C" __global__ void cvt_rn_relu_bf16x2_f32(const u32* a, const u32* b, const u32*, u32* d, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    u32 r;
    asm("cvt.rn.relu.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(__uint_as_float(a[i])), "f"(__uint_as_float(b[i])));
    d[i] = r;
  }
}
extern "C" __global__ void cvt_rna_tf32_f32(const u32* a, const u32*, const u32*, u32* d, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    u32 r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(__uint_as_float(a[i])));
    d[i] = r;
  }
}
// f64 to f16 (a and b are the low and high words of the double).
extern "C" __global__ void cvt_rn_f16_f64(const u32* a, const u32* b, const u32*, u16* d, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    u16 r;
    asm("cvt.rn.f16.f64 %0, %1;" : "=h"(r) : "d"(__hiloint2double(int(b[i]), int(a[i]))));
    d[i] = r;
  }
}
extern "C" __global__ void cvt_rn_f16_s32(const u32* a, const u32*, const u32*, u16* d, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    u16 r;
    asm("cvt.rn.f16.s32 %0, %1;" : "=h"(r) : "r"(a[i]));
    d[i] = r;
  }
}
extern "C" __global__ void cvt_rn_bf16_s32(const u32* a, const u32*, const u32*, u16* d, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    u16 r;
    asm("cvt.rn.bf16.s32 %0, %1;" : "=h"(r) : "r"(a[i]));
    d[i] = r;
  }
}
extern "C" __global__ void cvt_rzi_s32_f16(const u16* a, const u16*, const u16*, u32* d, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    u32 r;
    asm("cvt.rzi.s32.f16 %0, %1;" : "=r"(r) : "h"(a[i]));
    d[i] = r;
  }
}
extern "C" __global__ void cvt_rni_f16_f16(const u16* a, const u16*, const u16*, u16* d, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    u16 r;
    asm("cvt.rni.f16.f16 %0, %1;" : "=h"(r) : "h"(a[i]));
    d[i] = r;
  }
}
// Packing and unpacking through f16 registers, as cuda_fp16.h does.
extern "C" __global__ void pack_swap_f16x2(const u32* a, const u32*, const u32*, u32* d, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    u32 r;
    asm("{ .reg .f16 lo, hi; mov.b32 {lo, hi}, %1; mov.b32 %0, {hi, lo}; }" : "=r"(r) : "r"(a[i]));
    d[i] = r;
  }
}
