// Problem 78 (C3): transpose x (M×N) into y (N×M) through a shared-memory tile.
// Read content/c3.md first. Judge with: python practice/judge.py 78
//
// The tests call the two host functions at the bottom; keep their names and signatures.
// x and y are device pointers, row-major; launch on the default stream and return.
#include <cstdint>
#include <cuda_runtime.h>

constexpr int TILE = 32;       // a tile is 32×32 elements
constexpr int BLOCK_ROWS = 8;  // a block is 32×8 threads: each thread moves TILE / BLOCK_ROWS elements

// Warm-up: one thread per element of a 32-column strip, no shared memory.
__global__ void transpose_naive_kernel(const float* x, float* y, int M, int N) {
  int c = blockIdx.x * TILE + threadIdx.x;        // column of x
  int r0 = blockIdx.y * TILE + threadIdx.y;       // first row of x for this thread
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    if (r0 + j < M && c < N) y[(int64_t)c * M + r0 + j] = x[(int64_t)(r0 + j) * N + c];
  }
}

// The exercise: stage the tile through shared memory so that reads AND writes are coalesced.
__global__ void transpose_tiled_kernel(const float* x, float* y, int M, int N) {
  __shared__ float tile[TILE][TILE + 1];  // +1: a column's 32 words fall in 32 banks

  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    if (r + j < M && c < N) tile[threadIdx.y + j][threadIdx.x] = x[(int64_t)(r + j) * N + c];
  }

  int yc = blockIdx.y * TILE + threadIdx.x;       // column of y = row of x
  int yr = blockIdx.x * TILE + threadIdx.y;       // row of y = column of x
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    if (yr + j < N && yc < M) y[(int64_t)(yr + j) * M + yc] = tile[threadIdx.x][threadIdx.y + j];
  }
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
