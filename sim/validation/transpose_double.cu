// Counter validation: a double-precision transpose through a padded [32][33] shared tile at
// M=1024, N=2048, 32x8 block, 4 elements per thread. 8-byte lanes: a global request covers
// 8 sectors, and a shared access is served in two half-warp phases (ideal 2 wavefronts).
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "check.h"
#include "outputs.h"

constexpr int M = 1024, N = 2048;
constexpr int TILE = 32, BLOCK_ROWS = 8;

__global__ void transpose_tile_double(const double* __restrict__ x, double* __restrict__ y, int m, int n) {
  __shared__ double tile[TILE][TILE + 1];
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

int main() {
  const size_t count = (size_t)M * N, bytes = count * sizeof(double);
  std::vector<double> x(count), y(count);
  for (size_t i = 0; i < count; ++i) x[i] = (double)i + 0.25;
  double *dx = nullptr, *dy = nullptr;
  CK(cudaMalloc(&dx, bytes));
  CK(cudaMalloc(&dy, bytes));
  CK(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice));
  CK(cudaMemset(dy, 0, bytes));
  transpose_tile_double<<<dim3(N / TILE, M / TILE), dim3(TILE, BLOCK_ROWS)>>>(dx, dy, M, N);
  CK(cudaGetLastError());
  CK(cudaMemcpy(y.data(), dy, bytes, cudaMemcpyDeviceToHost));
  print_result("transpose_tile_double", y);
  double checksum = 0;
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      const double want = x[(size_t)r * N + c], got = y[(size_t)c * M + r];
      if (got != want) {
        std::printf("transpose_tile_double: y[%d][%d] = %g, want %g\n", c, r, got, want);
        return 1;
      }
      checksum += got * ((c * 7 + r) % 13);
    }
  std::printf("transpose_tile_double: ok, checksum %.2f\n", checksum);
  CK(cudaFree(dx));
  CK(cudaFree(dy));
  return 0;
}
