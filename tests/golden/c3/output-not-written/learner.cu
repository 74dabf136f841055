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
  // TODO: (about 5 lines) c = column of x, r0 = first row of x for this thread; for j = 0, 8, 16,
  // 24 copy x[r0 + j][c] to y[c][r0 + j] when both indices are inside the matrix.
}

// The exercise: stage the tile through shared memory so that reads AND writes are coalesced.
__global__ void transpose_tiled_kernel(const float* x, float* y, int M, int N) {
  // TODO: declare the shared tile, sized so that reading one of its columns is conflict-free.

  // TODO: stage 1 (about 5 lines): read tile (blockIdx.y, blockIdx.x) of x row by row.

  // TODO: wait until the whole tile is in shared memory.

  // TODO: stage 2 (about 6 lines): write it as tile (blockIdx.x, blockIdx.y) of y, row by row,
  // reading the shared tile down a column. Mind which bound is M and which is N.
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
