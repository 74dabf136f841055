// Problem 78 (C3): transpose x (M×N) into y (N×M) through a shared-memory tile.
#include <cstdint>
#include <cuda_runtime.h>

constexpr int TILE = 32;
constexpr int BLOCK_ROWS = 8;

__global__ void transpose_naive_kernel(const float* x, float* y, int M, int N) {
  const int c = blockIdx.x * TILE + threadIdx.x;
  const int r0 = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (r0 + j < M && c < N) y[(int64_t)c * M + r0 + j] = x[(int64_t)(r0 + j) * N + c];
}

__global__ void transpose_tiled_kernel(const float* x, float* y, int M, int N) {
  __shared__ float tile[TILE][TILE + 1];
  const int c = blockIdx.x * TILE + threadIdx.x;   // column of x
  const int r0 = blockIdx.y * TILE + threadIdx.y;  // row of x
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (r0 + j < M && c < N) tile[threadIdx.y + j][threadIdx.x] = x[(int64_t)(r0 + j) * N + c];

  __syncthreads();

  const int yc = blockIdx.y * TILE + threadIdx.x;   // column of y = row of x
  const int yr0 = blockIdx.x * TILE + threadIdx.y;  // row of y = column of x
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (yr0 + j < N && yc < M) y[(int64_t)(yr0 + j) * M + yc] = tile[threadIdx.x][threadIdx.y + j];
}

void transpose_naive(const float* x, float* y, int M, int N) {
  if (M <= 0 || N <= 0) return;
  dim3 block(TILE, BLOCK_ROWS);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  transpose_naive_kernel<<<grid, block>>>(x, y, M, N);
}

void transpose_tiled(const float* x, float* y, int M, int N) {
  if (M <= 0 || N <= 0) return;
  dim3 block(TILE, BLOCK_ROWS);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  transpose_tiled_kernel<<<grid, block>>>(x, y, M, N);
}
