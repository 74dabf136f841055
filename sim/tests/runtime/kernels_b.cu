#include "test_kernels.h"

constexpr int TILE = 32;

__device__ float table[16];

// x is m x n, y is n x m, both row-major.
__global__ void transpose_naive(const float* x, float* y, int m, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;  // column of x
  int r = blockIdx.y * blockDim.y + threadIdx.y;  // row of x
  if (r < m && c < n) y[c * m + r] = x[r * n + c];
}

__global__ void transpose_tiled(const float* x, float* y, int m, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int c = blockIdx.x * TILE + threadIdx.x;
  for (int k = threadIdx.y; k < TILE; k += blockDim.y) {
    int r = blockIdx.y * TILE + k;
    if (r < m && c < n) tile[k][threadIdx.x] = x[r * n + c];
  }
  __syncthreads();
  int yc = blockIdx.y * TILE + threadIdx.x;  // column of y = row of x
  for (int k = threadIdx.y; k < TILE; k += blockDim.y) {
    int yr = blockIdx.x * TILE + k;  // row of y = column of x
    if (yr < n && yc < m) y[yr * m + yc] = tile[threadIdx.x][k];
  }
}

const void* kernel_transpose_naive() { return reinterpret_cast<const void*>(transpose_naive); }
const void* kernel_transpose_tiled() { return reinterpret_cast<const void*>(transpose_tiled); }
const void* symbol_table() { return &table; }

cudaError_t launch_transpose_naive(const float* x, float* y, int m, int n) {
  dim3 block(32, 8);
  dim3 grid((n + 31) / 32, (m + 7) / 8);
  transpose_naive<<<grid, block>>>(x, y, m, n);
  return cudaGetLastError();
}

cudaError_t launch_transpose_tiled(const float* x, float* y, int m, int n) {
  dim3 block(TILE, 8);
  dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  transpose_tiled<<<grid, block>>>(x, y, m, n);
  return cudaGetLastError();
}
