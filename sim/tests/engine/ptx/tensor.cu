// Tensor-core instructions, one kernel (or a few) per opcode row: mma, wmma, ldmatrix, movmatrix,
// cp.async. Fragments are loaded lane by lane from global memory where the test is about the
// arithmetic, so one row's test does not depend on another row.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

using u16 = unsigned short;
using u32 = unsigned;

__device__ u32 pack(u16 lo, u16 hi) { return u32(lo) | u32(hi) << 16; }

// ---- mma.sync: A 16xK row-major, B stored as Bt (8 x K, i.e. column-major K x 8), C/D 16x8 f32
// The fragment registers are built from the PTX ISA's layouts; g = lane / 4, t = lane % 4.
template <int K>
__device__ void frag_ab(const u16* A, const u16* Bt, u32* a, u32* b) {
  const int l = threadIdx.x % 32, g = l >> 2, t = l & 3;
  for (int r = 0; r < K / 4; ++r) {
    const int i = 2 * r, row = g + 8 * ((i >> 1) & 1), col = 2 * t + 8 * (i >> 2);
    a[r] = pack(A[row * K + col], A[row * K + col + 1]);
  }
  for (int r = 0; r < K / 8; ++r) {
    const int k = 2 * t + 8 * r;
    b[r] = pack(Bt[g * K + k], Bt[g * K + k + 1]);
  }
}
__device__ void store_d32(float* D, const float* d) {
  const int l = threadIdx.x % 32, g = l >> 2, t = l & 3;
  for (int i = 0; i < 4; ++i) D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
}
__device__ void load_c32(const float* C, float* c) {
  const int l = threadIdx.x % 32, g = l >> 2, t = l & 3;
  for (int i = 0; i < 4; ++i) c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
}

extern "C" __global__ void mma_16816_f32_f16(const u16* A, const u16* Bt, const float* C, float* D) {
  u32 a[4], b[2];
  float c[4];
  frag_ab<16>(A, Bt, a, b);
  load_c32(C, c);
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  store_d32(D, c);
}
extern "C" __global__ void mma_16816_f32_bf16(const u16* A, const u16* Bt, const float* C, float* D) {
  u32 a[4], b[2];
  float c[4];
  frag_ab<16>(A, Bt, a, b);
  load_c32(C, c);
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  store_d32(D, c);
}
extern "C" __global__ void mma_1688_f32_f16(const u16* A, const u16* Bt, const float* C, float* D) {
  u32 a[2], b[1];
  float c[4];
  frag_ab<8>(A, Bt, a, b);
  load_c32(C, c);
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  store_d32(D, c);
}
extern "C" __global__ void mma_1688_f32_bf16(const u16* A, const u16* Bt, const float* C, float* D) {
  u32 a[2], b[1];
  float c[4];
  frag_ab<8>(A, Bt, a, b);
  load_c32(C, c);
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  store_d32(D, c);
}
// f16 accumulators: C and D are 16x8 halves, two registers.
extern "C" __global__ void mma_16816_f16_f16(const u16* A, const u16* Bt, const u16* C, u16* D) {
  u32 a[4], b[2], c[2];
  frag_ab<16>(A, Bt, a, b);
  const int l = threadIdx.x % 32, g = l >> 2, t = l & 3;
  for (int r = 0; r < 2; ++r) c[r] = pack(C[(g + 8 * r) * 8 + 2 * t], C[(g + 8 * r) * 8 + 2 * t + 1]);
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
               : "+r"(c[0]), "+r"(c[1])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  for (int r = 0; r < 2; ++r) {
    D[(g + 8 * r) * 8 + 2 * t] = u16(c[r]);
    D[(g + 8 * r) * 8 + 2 * t + 1] = u16(c[r] >> 16);
  }
}
extern "C" __global__ void mma_1688_f16_f16(const u16* A, const u16* Bt, const u16* C, u16* D) {
  u32 a[2], b[1], c[2];
  frag_ab<8>(A, Bt, a, b);
  const int l = threadIdx.x % 32, g = l >> 2, t = l & 3;
  for (int r = 0; r < 2; ++r) c[r] = pack(C[(g + 8 * r) * 8 + 2 * t], C[(g + 8 * r) * 8 + 2 * t + 1]);
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%0,%1};"
               : "+r"(c[0]), "+r"(c[1])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  for (int r = 0; r < 2; ++r) {
    D[(g + 8 * r) * 8 + 2 * t] = u16(c[r]);
    D[(g + 8 * r) * 8 + 2 * t + 1] = u16(c[r] >> 16);
  }
}
// A warp with lanes missing (blockDim 16): mma must refuse.
extern "C" __global__ void mma_partial_warp(const u16* A, const u16* Bt, const float* C, float* D) {
  u32 a[4] = {}, b[2] = {};
  float c[4] = {};
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  D[threadIdx.x] = c[0];
}

// ---- ldmatrix: the tile (4 matrices of 8 rows of 8 halves) goes to shared memory with `pitch`
// halves between rows; matrix j's row r starts at element (8 * j + r) * pitch. Out: out[reg][lane].
template <int NUM, bool TRANS>
__device__ void ldmatrix_test(const u16* M, u32* out, int pitch) {
  __shared__ __align__(16) u16 tile[32 * 72];
  for (int i = threadIdx.x; i < 32 * pitch; i += 32) tile[i] = M[i];
  __syncwarp();
  const int l = threadIdx.x;
  const u32 addr = u32(__cvta_generic_to_shared(tile + (l % (8 * NUM)) * pitch));
  u32 r[4] = {0, 0, 0, 0};
  if (NUM == 1 && !TRANS) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
  if (NUM == 2 && !TRANS) asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
  if (NUM == 4 && !TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  if (NUM == 1 && TRANS) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
  if (NUM == 2 && TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
  if (NUM == 4 && TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  for (int j = 0; j < NUM; ++j) out[j * 32 + l] = r[j];
}
extern "C" __global__ void ldmatrix_x1(const u16* M, u32* out, int pitch) { ldmatrix_test<1, false>(M, out, pitch); }
extern "C" __global__ void ldmatrix_x2(const u16* M, u32* out, int pitch) { ldmatrix_test<2, false>(M, out, pitch); }
extern "C" __global__ void ldmatrix_x4(const u16* M, u32* out, int pitch) { ldmatrix_test<4, false>(M, out, pitch); }
extern "C" __global__ void ldmatrix_x1_trans(const u16* M, u32* out, int pitch) { ldmatrix_test<1, true>(M, out, pitch); }
extern "C" __global__ void ldmatrix_x2_trans(const u16* M, u32* out, int pitch) { ldmatrix_test<2, true>(M, out, pitch); }
extern "C" __global__ void ldmatrix_x4_trans(const u16* M, u32* out, int pitch) { ldmatrix_test<4, true>(M, out, pitch); }
// The XOR-swizzled tile of a GEMM stage: 8 rows of 64 halves, 16-byte chunk c of row r stored at
// chunk c ^ (r % 8). Lane l reads chunk 0 of row l % 8 (and chunks 1..3 for matrices 1..3).
extern "C" __global__ void ldmatrix_x4_swizzled(const u16* M, u32* out, int swizzle) {
  __shared__ __align__(16) u16 tile[8 * 64];
  for (int i = threadIdx.x; i < 8 * 64; i += 32) {
    const int r = i / 64, c = (i % 64) / 8, e = i % 8;
    tile[r * 64 + ((swizzle ? c ^ r : c) * 8) + e] = M[i];
  }
  __syncwarp();
  const int l = threadIdx.x, r = l % 8, c = l / 8;
  const u32 addr = u32(__cvta_generic_to_shared(tile + r * 64 + (swizzle ? c ^ r : c) * 8));
  u32 v[4];
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]) : "r"(addr));
  for (int j = 0; j < 4; ++j) out[j * 32 + l] = v[j];
}
extern "C" __global__ void movmatrix_trans(const u32* in, u32* out) {
  u32 d;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(d) : "r"(in[threadIdx.x]));
  out[threadIdx.x] = d;
}

// ---- cp.async: sizes, zero fill, ignore-src, groups.
// Thread t copies 16 bytes of src (bytes 16t..16t+15) in pieces that exercise every form, then
// waits and writes what landed to out.
extern "C" __global__ void cp_async_forms(const unsigned char* src, unsigned char* out, int tail) {
  __shared__ __align__(16) unsigned char s[6][32 * 16];
  const int t = threadIdx.x;
  const unsigned char* g = src + 16 * t;
  auto sh = [&](int k) { return u32(__cvta_generic_to_shared(&s[k][16 * t])); };
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(sh(0)), "l"(g));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(sh(0) + 4), "l"(g + 4));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(sh(0) + 8), "l"(g + 8));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sh(1)), "l"(g));
  asm volatile("cp.async.commit_group;");
  // zero fill: src-size `tail` (0..16) of 16
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(sh(2)), "l"(g), "r"(tail));
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;" ::"r"(sh(3)), "l"(g), "r"(t % 2 ? 16 : 0));
  asm volatile("{ .reg .pred p; setp.ne.s32 p, %2, 0; cp.async.cg.shared.global [%0], [%1], 16, p; }"
               ::"r"(sh(4)), "l"(g), "r"(t % 3));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 1;");  // the first group has landed
  for (int i = 0; i < 16; ++i) out[(0 * 32 + t) * 16 + i] = s[0][16 * t + i];
  asm volatile("cp.async.wait_all;");
  for (int k = 1; k < 5; ++k)
    for (int i = 0; i < 16; ++i) out[(k * 32 + t) * 16 + i] = s[k][16 * t + i];
}
// Reads its own copy's destination before waiting: a race naming both lines.
extern "C" __global__ void cp_async_read_before_wait(const float* x, float* y) {
  __shared__ float s[64];
  const u32 d = u32(__cvta_generic_to_shared(&s[threadIdx.x]));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d), "l"(x + threadIdx.x));
  asm volatile("cp.async.commit_group;");
  y[threadIdx.x] = s[threadIdx.x];  // no wait
  asm volatile("cp.async.wait_all;");
}
// Waits for its own copy but reads another warp's without a barrier: a race.
extern "C" __global__ void cp_async_no_barrier(const float* x, float* y, int barrier) {
  __shared__ float s[64];
  const u32 d = u32(__cvta_generic_to_shared(&s[threadIdx.x]));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d), "l"(x + threadIdx.x));
  asm volatile("cp.async.wait_all;");
  if (barrier) __syncthreads();
  y[threadIdx.x] = s[63 - threadIdx.x];
}
// A software pipeline with STAGES buffers: block sums x (n floats) tile by tile of 128.
template <int STAGES>
__device__ void pipeline_sum(const float* x, float* y, int ntiles) {
  __shared__ __align__(16) float buf[STAGES][128];
  const int t = threadIdx.x;  // 32 threads, 16 bytes each
  float acc = 0;
  auto issue = [&](int tile) {
    if (tile < ntiles) {
      const u32 d = u32(__cvta_generic_to_shared(&buf[tile % STAGES][4 * t]));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(x + tile * 128 + 4 * t));
    }
    asm volatile("cp.async.commit_group;");
  };
  for (int s = 0; s < STAGES - 1; ++s) issue(s);
  for (int tile = 0; tile < ntiles; ++tile) {
    issue(tile + STAGES - 1);
    asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 1));
    __syncthreads();
    acc += buf[tile % STAGES][(t * 4 + 5) % 128];  // another thread's copy: needs the barrier
    __syncthreads();
  }
  y[t] = acc;
}
extern "C" __global__ void cp_async_pipeline2(const float* x, float* y, int ntiles) { pipeline_sum<2>(x, y, ntiles); }
extern "C" __global__ void cp_async_pipeline3(const float* x, float* y, int ntiles) { pipeline_sum<3>(x, y, ntiles); }
extern "C" __global__ void cp_async_pipeline4(const float* x, float* y, int ntiles) { pipeline_sum<4>(x, y, ntiles); }

// ---- wmma m16n16k16: one tile through every load/store form.
using namespace nvcuda;
template <class LA, class LB, class Acc, bool SHARED>
__device__ void wmma_tile(const half* A, const half* B, const Acc* C, Acc* D, wmma::layout_t lc) {
  __shared__ __align__(32) half sa[256], sb[256];
  __shared__ __align__(32) Acc sc[256];
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, LA> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, LB> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, Acc> c;
  if (SHARED) {
    for (int i = threadIdx.x; i < 256; i += 32) sa[i] = A[i], sb[i] = B[i], sc[i] = C[i];
    __syncwarp();
    wmma::load_matrix_sync(a, sa, 16);
    wmma::load_matrix_sync(b, sb, 16);
    wmma::load_matrix_sync(c, sc, 16, lc);
  } else {
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, B, 16);
    wmma::load_matrix_sync(c, C, 16, lc);
  }
  wmma::mma_sync(c, a, b, c);
  if (SHARED) {
    __syncwarp();
    wmma::store_matrix_sync(sc, c, 16, lc);
    __syncwarp();
    for (int i = threadIdx.x; i < 256; i += 32) D[i] = sc[i];
  } else {
    wmma::store_matrix_sync(D, c, 16, lc);
  }
}
#define WMMA_KERNEL(name, LA, LB, Acc, SH, LC)                                                      \
  extern "C" __global__ void name(const half* A, const half* B, const Acc* C, Acc* D) {            \
    wmma_tile<wmma::LA, wmma::LB, Acc, SH>(A, B, C, D, wmma::LC);                                   \
  }
WMMA_KERNEL(wmma_rc_f32_global, row_major, col_major, float, false, mem_row_major)
WMMA_KERNEL(wmma_cr_f32_global_colc, col_major, row_major, float, false, mem_col_major)
WMMA_KERNEL(wmma_rr_f32_shared, row_major, row_major, float, true, mem_row_major)
WMMA_KERNEL(wmma_cc_f32_shared_colc, col_major, col_major, float, true, mem_col_major)
WMMA_KERNEL(wmma_rc_f16_global, row_major, col_major, half, false, mem_row_major)
WMMA_KERNEL(wmma_cr_f16_shared_colc, col_major, row_major, half, true, mem_col_major)
// The fragment registers as the program sees them: x[i] of lane l to out[l * 16 + i].
extern "C" __global__ void wmma_fragments(const half* A, const float* C, u16* fa, u16* fb, float* fc) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::load_matrix_sync(a, A, 16);
  wmma::load_matrix_sync(b, A, 16);
  wmma::fill_fragment(c, 0.0f);
  wmma::load_matrix_sync(c, C, 16, wmma::mem_row_major);
  for (int i = 0; i < a.num_elements; ++i) fa[threadIdx.x * 16 + i] = __half_as_ushort(a.x[i]);
  for (int i = 0; i < b.num_elements; ++i) fb[threadIdx.x * 16 + i] = __half_as_ushort(b.x[i]);
  for (int i = 0; i < c.num_elements; ++i) fc[threadIdx.x * 8 + i] = c.x[i];
}

// ---- speed: `iters` back-to-back mma per warp (engine_bench_tensor)
extern "C" __global__ void mma_loop(const u16* A, const u16* Bt, float* D, int iters) {
  u32 a[4], b[2];
  float c[4] = {0, 0, 0, 0};
  frag_ab<16>(A, Bt, a, b);
  for (int i = 0; i < iters; ++i)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  D[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + 0] = c[0];
  D[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + 1] = c[1];
  D[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + 2] = c[2];
  D[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + 3] = c[3];
}
