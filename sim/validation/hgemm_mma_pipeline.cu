// Counter and output validation: an HGEMM built from mma.sync.m16n8k16 (f16 in, f32 accumulate),
// ldmatrix (.x4 for A, .x4.trans for B) and a 3-stage cp.async.cg pipeline, as a tensor-core GEMM
// chapter writes it. C (M x N, f32) = A (M x K, row-major f16) * B (K x N, row-major f16).
// Block tile 64 x 64 x 32, four warps of 32 x 32 (2 x 4 mma tiles).
//   hgemm_pipeline<true>:  XOR-swizzled shared tiles: ldmatrix without bank conflicts
//   hgemm_pipeline<false>: plain tiles: A rows of 64 bytes (2-way... 4-way conflicts), B rows of
//                          128 bytes (8-way)
// Inputs are multiples of 1/4 in [-1/2, 1/2], so every sum is exact in f32 and the result does not
// depend on the order of the tensor cores' additions: outputs must match the GPU bit for bit.
//   ./hgemm_mma_pipeline [N]   N x N x N, default 256 (a multiple of 64)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "check.h"
#include "outputs.h"

constexpr int BM = 64, BN = 64, BK = 32, STAGES = 3, THREADS = 128;

// A stage: A tile BM x BK (rows of 4 chunks of 16 bytes), B tile BK x BN (rows of 8 chunks).
// Swizzled, chunk c of row r is stored at chunk c ^ f(r), with f spreading 8 rows over the banks.
template <bool SWIZZLE>
__device__ __forceinline__ int a_chunk(int r, int c) { return SWIZZLE ? c ^ ((r >> 1) & 3) : c; }
template <bool SWIZZLE>
__device__ __forceinline__ int b_chunk(int r, int c) { return SWIZZLE ? c ^ (r & 7) : c; }

__device__ __forceinline__ uint32_t smem(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

template <bool SWIZZLE>
__global__ void __launch_bounds__(THREADS) hgemm_pipeline(const half* __restrict__ A, const half* __restrict__ B,
                                                            float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(128) half sa[STAGES][BM * BK];
  __shared__ __align__(128) half sb[STAGES][BK * BN];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;  // this warp's 32 x 32 of the block tile

  auto load_stage = [&](int stage, int kt) {
    for (int i = tid; i < BM * BK / 8; i += THREADS) {  // A: 256 chunks
      const int r = i / 4, c = i % 4;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem(&sa[stage][r * BK + a_chunk<SWIZZLE>(r, c) * 8])),
                   "l"(A + size_t(bm + r) * K + kt * BK + c * 8));
    }
    for (int i = tid; i < BK * BN / 8; i += THREADS) {  // B: 256 chunks
      const int r = i / 8, c = i % 8;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem(&sb[stage][r * BN + b_chunk<SWIZZLE>(r, c) * 8])),
                   "l"(B + size_t(kt * BK + r) * N + bn + c * 8));
    }
  };

  float acc[2][4][4] = {};
  const int KT = K / BK;
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < KT) load_stage(s, s);
    asm volatile("cp.async.commit_group;");
  }
  for (int kt = 0; kt < KT; ++kt) {
    asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 2));
    __syncthreads();  // tile kt is in; every warp is done with the stage about to be refilled
    if (kt + STAGES - 1 < KT) load_stage((kt + STAGES - 1) % STAGES, kt + STAGES - 1);
    asm volatile("cp.async.commit_group;");
    const half* ta = sa[kt % STAGES];
    const half* tb = sb[kt % STAGES];
    for (int kk = 0; kk < BK; kk += 16) {
      uint32_t af[2][4], bf[4][2];
      for (int mi = 0; mi < 2; ++mi) {  // A 16 x 16: lanes 0-15 rows 0-15 at k, lanes 16-31 at k + 8
        const int r = wm + mi * 16 + lane % 16, c = kk / 8 + lane / 16;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(af[mi][0]), "=r"(af[mi][1]), "=r"(af[mi][2]), "=r"(af[mi][3])
                     : "r"(smem(&ta[r * BK + a_chunk<SWIZZLE>(r, c) * 8])));
      }
      for (int nj = 0; nj < 4; nj += 2) {  // B 16 x 16 (k x n), transposed: two n8 fragments
        const int r = kk + lane % 16, c = (wn + nj * 8) / 8 + lane / 16;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(bf[nj][0]), "=r"(bf[nj][1]), "=r"(bf[nj + 1][0]), "=r"(bf[nj + 1][1])
                     : "r"(smem(&tb[r * BN + b_chunk<SWIZZLE>(r, c) * 8])));
      }
      for (int mi = 0; mi < 2; ++mi)
        for (int nj = 0; nj < 4; ++nj)
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                       : "+f"(acc[mi][nj][0]), "+f"(acc[mi][nj][1]), "+f"(acc[mi][nj][2]), "+f"(acc[mi][nj][3])
                       : "r"(af[mi][0]), "r"(af[mi][1]), "r"(af[mi][2]), "r"(af[mi][3]), "r"(bf[nj][0]), "r"(bf[nj][1]));
    }
  }
  asm volatile("cp.async.wait_all;");
  const int g = lane / 4, t = lane % 4;
  for (int mi = 0; mi < 2; ++mi)
    for (int nj = 0; nj < 4; ++nj)
      for (int i = 0; i < 4; ++i) {
        const int row = bm + wm + mi * 16 + g + 8 * (i / 2), col = bn + wn + nj * 8 + 2 * t + (i % 2);
        C[size_t(row) * N + col] = acc[mi][nj][i];
      }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  if (n <= 0 || n % 64) { std::printf("N must be a positive multiple of 64\n"); return 1; }
  const size_t nn = size_t(n) * n;
  std::vector<half> a(nn), b(nn);
  std::vector<float> fa(nn), fb(nn);
  for (size_t i = 0; i < nn; ++i) {
    fa[i] = float(int((i * 2654435761u) % 5) - 2) * 0.25f;
    fb[i] = float(int((i * 40503u + 7) % 5) - 2) * 0.25f;
    a[i] = __float2half(fa[i]);
    b[i] = __float2half(fb[i]);
  }
  std::vector<double> want(nn, 0.0);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      const double x = fa[size_t(i) * n + k];
      if (x == 0) continue;
      for (int j = 0; j < n; ++j) want[size_t(i) * n + j] += x * fb[size_t(k) * n + j];
    }
  half *da, *db;
  float* dc;
  CK(cudaMalloc(&da, nn * sizeof(half)));
  CK(cudaMalloc(&db, nn * sizeof(half)));
  CK(cudaMalloc(&dc, nn * sizeof(float)));
  CK(cudaMemcpy(da, a.data(), nn * sizeof(half), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, b.data(), nn * sizeof(half), cudaMemcpyHostToDevice));
  std::vector<float> c(nn);
  for (int swizzle = 1; swizzle >= 0; --swizzle) {
    const char* name = swizzle ? "hgemm_pipeline_swizzled" : "hgemm_pipeline_plain";
    CK(cudaMemset(dc, 0xff, nn * sizeof(float)));  // poison: a tile never written shows as NaN
    dim3 grid(n / BN, n / BM);
    if (swizzle) hgemm_pipeline<true><<<grid, THREADS>>>(da, db, dc, n, n, n);
    else hgemm_pipeline<false><<<grid, THREADS>>>(da, db, dc, n, n, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(c.data(), dc, nn * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < nn; ++i)
      if (c[i] != float(want[i])) {
        std::printf("%s: C[%zu][%zu] = %g, want %g\n", name, i / n, i % n, c[i], want[i]);
        return 1;
      }
    print_result(name, c);
  }
  std::printf("hgemm_mma_pipeline: ok, %d x %d x %d\n", n, n, n);
  return 0;
}
