// Counter and output validation: GEMMs written with nvcuda::wmma (m16n16k16).
//   wmma_global:  one warp per 16 x 16 tile of C, fragments loaded from global memory (A row-major,
//                 B column-major), f32 accumulators stored row-major
//   wmma_shared:  64 x 64 block tiles staged in shared memory (rows padded by 8 halves), four warps
//                 of 32 x 32, fragments loaded from shared memory (LDSM on sm_90)
//   wmma_f16_acc: f16 accumulators, B row-major, C stored column-major as f16
//   wmma_fragments: the registers a program sees, x[i] of every lane (fragment layout)
// Inputs are multiples of 1/4 in [-1/2, 1/2]: every sum is exact, so outputs match bit for bit.
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "check.h"
#include "outputs.h"

using namespace nvcuda;
constexpr int N = 256;   // M = N = K
constexpr int KF = 64;   // K of the f16-accumulator GEMM (its sums stay exact in f16)

__global__ void wmma_global(const half* __restrict__ A, const half* __restrict__ Bt, float* __restrict__ C) {
  const int warp = threadIdx.x / 32;
  const int tm = blockIdx.y * 2 + warp / 2, tn = blockIdx.x * 2 + warp % 2;  // 2 x 2 tiles a block
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(c, 0.0f);
  for (int k = 0; k < N; k += 16) {
    wmma::load_matrix_sync(a, A + size_t(tm * 16) * N + k, N);
    wmma::load_matrix_sync(b, Bt + size_t(tn * 16) * N + k, N);
    wmma::mma_sync(c, a, b, c);
  }
  wmma::store_matrix_sync(C + size_t(tm * 16) * N + tn * 16, c, N, wmma::mem_row_major);
}

constexpr int TILE = 64, TK = 16, PAD = 8;
__global__ void wmma_shared(const half* __restrict__ A, const half* __restrict__ B, float* __restrict__ C) {
  __shared__ __align__(32) half sa[TILE][TK + PAD];  // A tile, row-major
  __shared__ __align__(32) half sb[TK][TILE + PAD];  // B tile, row-major
  const int warp = threadIdx.x / 32;
  const int bm = blockIdx.y * TILE, bn = blockIdx.x * TILE, wm = (warp / 2) * 32, wn = (warp % 2) * 32;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a[2];
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b[2];
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(c[i][j], 0.0f);
  for (int k = 0; k < N; k += TK) {
    for (int i = threadIdx.x; i < TILE * TK; i += blockDim.x) {
      sa[i / TK][i % TK] = A[size_t(bm + i / TK) * N + k + i % TK];
      sb[i / TILE][i % TILE] = B[size_t(k + i / TILE) * N + bn + i % TILE];
    }
    __syncthreads();
    for (int i = 0; i < 2; ++i) {
      wmma::load_matrix_sync(a[i], &sa[wm + 16 * i][0], TK + PAD);
      wmma::load_matrix_sync(b[i], &sb[0][wn + 16 * i], TILE + PAD);
    }
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) wmma::mma_sync(c[i][j], a[i], b[j], c[i][j]);
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(C + size_t(bm + wm + 16 * i) * N + bn + wn + 16 * j, c[i][j], N, wmma::mem_row_major);
}

__global__ void wmma_f16_acc(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C) {
  const int warp = threadIdx.x / 32;
  const int tm = blockIdx.y * 2 + warp / 2, tn = blockIdx.x * 2 + warp % 2;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> c;
  wmma::fill_fragment(c, __float2half(0.0f));
  for (int k = 0; k < KF; k += 16) {
    wmma::load_matrix_sync(a, A + size_t(tm * 16) * N + k, N);
    wmma::load_matrix_sync(b, B + size_t(k) * N + tn * 16, N);
    wmma::mma_sync(c, a, b, c);
  }
  wmma::store_matrix_sync(C + size_t(tn * 16) * N + tm * 16, c, N, wmma::mem_col_major);
}

__global__ void wmma_fragments(const half* __restrict__ A, const float* __restrict__ Cin, unsigned short* fa,
                               unsigned short* fb, float* fc) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::load_matrix_sync(a, A, 16);
  wmma::load_matrix_sync(b, A, 16);
  wmma::load_matrix_sync(c, Cin, 16, wmma::mem_row_major);
  for (int i = 0; i < a.num_elements; ++i) fa[threadIdx.x * 16 + i] = __half_as_ushort(a.x[i]);
  for (int i = 0; i < b.num_elements; ++i) fb[threadIdx.x * 16 + i] = __half_as_ushort(b.x[i]);
  for (int i = 0; i < c.num_elements; ++i) fc[threadIdx.x * 8 + i] = c.x[i];
}

template <class T>
static bool same(const char* name, const std::vector<T>& got, const std::vector<double>& want, float (*to_float)(T)) {
  for (size_t i = 0; i < got.size(); ++i)
    if (to_float(got[i]) != float(want[i])) {
      std::printf("%s: element %zu = %g, want %g\n", name, i, to_float(got[i]), want[i]);
      return false;
    }
  return true;
}
static float f32(float x) { return x; }
static float h16(half x) { return __half2float(x); }

int main() {
  const size_t nn = size_t(N) * N;
  std::vector<half> a(nn), b(nn), bt(nn);
  std::vector<float> fa(nn), fb(nn);
  for (size_t i = 0; i < nn; ++i) {
    fa[i] = float(int((i * 2654435761u) % 5) - 2) * 0.25f;
    fb[i] = float(int((i * 40503u + 7) % 5) - 2) * 0.25f;
    a[i] = __float2half(fa[i]);
    b[i] = __float2half(fb[i]);
  }
  for (int k = 0; k < N; ++k)
    for (int j = 0; j < N; ++j) bt[size_t(j) * N + k] = b[size_t(k) * N + j];
  auto gemm = [&](int K) {
    std::vector<double> c(nn, 0.0);
    for (int i = 0; i < N; ++i)
      for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j) c[size_t(i) * N + j] += double(fa[size_t(i) * N + k]) * fb[size_t(k) * N + j];
    return c;
  };
  const std::vector<double> want = gemm(N), want16 = gemm(KF);
  half *da, *db, *dbt, *dc16;
  float* dc;
  CK(cudaMalloc(&da, nn * sizeof(half)));
  CK(cudaMalloc(&db, nn * sizeof(half)));
  CK(cudaMalloc(&dbt, nn * sizeof(half)));
  CK(cudaMalloc(&dc, nn * sizeof(float)));
  CK(cudaMalloc(&dc16, nn * sizeof(half)));
  CK(cudaMemcpy(da, a.data(), nn * sizeof(half), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, b.data(), nn * sizeof(half), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dbt, bt.data(), nn * sizeof(half), cudaMemcpyHostToDevice));
  std::vector<float> c(nn);

  CK(cudaMemset(dc, 0xff, nn * sizeof(float)));
  wmma_global<<<dim3(N / 32, N / 32), 128>>>(da, dbt, dc);
  CK(cudaGetLastError());
  CK(cudaMemcpy(c.data(), dc, nn * sizeof(float), cudaMemcpyDeviceToHost));
  if (!same("wmma_global", c, want, f32)) return 1;
  print_result("wmma_global", c);

  CK(cudaMemset(dc, 0xff, nn * sizeof(float)));
  wmma_shared<<<dim3(N / TILE, N / TILE), 128>>>(da, db, dc);
  CK(cudaGetLastError());
  CK(cudaMemcpy(c.data(), dc, nn * sizeof(float), cudaMemcpyDeviceToHost));
  if (!same("wmma_shared", c, want, f32)) return 1;
  print_result("wmma_shared", c);

  CK(cudaMemset(dc16, 0xff, nn * sizeof(half)));
  wmma_f16_acc<<<dim3(N / 32, N / 32), 128>>>(da, db, dc16);
  CK(cudaGetLastError());
  std::vector<half> c16(nn), c16_rowmajor(nn);
  CK(cudaMemcpy(c16.data(), dc16, nn * sizeof(half), cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) c16_rowmajor[size_t(i) * N + j] = c16[size_t(j) * N + i];
  if (!same("wmma_f16_acc", c16_rowmajor, want16, h16)) return 1;
  print_result("wmma_f16_acc", c16);

  // Fragment registers: A holds its element numbers, C element (r, c) = 16r + c.
  std::vector<half> seq(256);
  std::vector<float> cin(256);
  for (int i = 0; i < 256; ++i) seq[size_t(i)] = __ushort_as_half((unsigned short)i), cin[size_t(i)] = float(i);
  unsigned short *dfa, *dfb;
  float *dcin, *dfc;
  CK(cudaMemcpy(da, seq.data(), 512, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&dcin, 1024));
  CK(cudaMemcpy(dcin, cin.data(), 1024, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&dfa, 1024));
  CK(cudaMalloc(&dfb, 1024));
  CK(cudaMalloc(&dfc, 1024));
  wmma_fragments<<<1, 32>>>(da, dcin, dfa, dfb, dfc);
  CK(cudaGetLastError());
  std::vector<unsigned short> xa(512), xb(512);
  std::vector<float> xc(256);
  CK(cudaMemcpy(xa.data(), dfa, 1024, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(xb.data(), dfb, 1024, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(xc.data(), dfc, 1024, cudaMemcpyDeviceToHost));
  print_values("wmma_fragment_a", xa);
  print_values("wmma_fragment_b", xb);
  print_values("wmma_fragment_c", xc);
  std::printf("hgemm_wmma: ok\n");
  return 0;
}
