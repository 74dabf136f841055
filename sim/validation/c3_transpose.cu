// Counter validation: the three C3 transposes (naive, shared [32][32], shared [32][33]) at
// M=1024, N=2048, float32, 32x8 block, 4 elements per thread. Ground truth for the counters is
// ncu on an H200 (sim/validation/h200-ncu.json); sim/validation/compare.py compares.
// Self-contained: build with nvcc -O3 -arch=sm_90 -lineinfo, or run with `judge.py sim-run`.
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "check.h"
#include "outputs.h"

constexpr int M = 1024, N = 2048;
constexpr int TILE = 32, BLOCK_ROWS = 8;

// A warp reads 32 neighbours of a row of x and writes them down a column of y: 32 sectors a store.
__global__ void transpose_naive(const float* __restrict__ x, float* __restrict__ y, int m, int n) {
  const int c = blockIdx.x * TILE + threadIdx.x;
  const int r0 = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int r = r0 + j;
    if (r < m && c < n) y[(int64_t)c * m + r] = x[(int64_t)r * n + c];
  }
}

// PAD = 0: [32][32], a column read is a 32-way bank conflict. PAD = 1: [32][33], conflict-free.
template <int PAD>
__global__ void transpose_tile(const float* __restrict__ x, float* __restrict__ y, int m, int n) {
  __shared__ float tile[TILE][TILE + PAD];
  const int c = blockIdx.x * TILE + threadIdx.x;
  const int r0 = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int r = r0 + j;
    if (r < m && c < n) tile[threadIdx.y + j][threadIdx.x] = x[(int64_t)r * n + c];
  }
  __syncthreads();
  const int yc = blockIdx.y * TILE + threadIdx.x;
  const int yr0 = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int yr = yr0 + j;
    if (yr < n && yc < m) y[(int64_t)yr * m + yc] = tile[threadIdx.x][threadIdx.y + j];
  }
}

static bool check(const char* name, const std::vector<float>& x, const std::vector<float>& y) {
  double checksum = 0;
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      const float want = x[(size_t)r * N + c], got = y[(size_t)c * M + r];
      if (got != want) {
        std::printf("%s: y[%d][%d] = %g, want %g\n", name, c, r, got, want);
        return false;
      }
      checksum += got * (double)((c * 7 + r) % 13);
    }
  std::printf("%s: ok, checksum %.1f\n", name, checksum);
  print_result(name, y);
  return true;
}

int main() {
  const size_t count = (size_t)M * N, bytes = count * sizeof(float);
  std::vector<float> x(count), y(count);
  for (size_t i = 0; i < count; ++i) x[i] = (float)i;  // every value exact and distinct (< 2^24)
  float *dx = nullptr, *dy = nullptr;
  CK(cudaMalloc(&dx, bytes));
  CK(cudaMalloc(&dy, bytes));
  CK(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice));
  const dim3 grid(N / TILE, M / TILE), block(TILE, BLOCK_ROWS);
  bool ok = true;

  CK(cudaMemset(dy, 0, bytes));
  transpose_naive<<<grid, block>>>(dx, dy, M, N);
  CK(cudaGetLastError());
  CK(cudaMemcpy(y.data(), dy, bytes, cudaMemcpyDeviceToHost));
  ok = check("transpose_naive", x, y) && ok;

  CK(cudaMemset(dy, 0, bytes));
  transpose_tile<0><<<grid, block>>>(dx, dy, M, N);
  CK(cudaGetLastError());
  CK(cudaMemcpy(y.data(), dy, bytes, cudaMemcpyDeviceToHost));
  ok = check("transpose_tile[32][32]", x, y) && ok;

  CK(cudaMemset(dy, 0, bytes));
  transpose_tile<1><<<grid, block>>>(dx, dy, M, N);
  CK(cudaGetLastError());
  CK(cudaMemcpy(y.data(), dy, bytes, cudaMemcpyDeviceToHost));
  ok = check("transpose_tile[32][33]", x, y) && ok;

  CK(cudaFree(dx));
  CK(cudaFree(dy));
  return ok ? 0 : 1;
}
