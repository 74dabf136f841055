// Problem 81 (C4): C (M×N) = A (M×K) · B (K×N) in float32, first one thread per element, then
// through shared-memory tiles. Read content/c4.md first. Judge with: python practice/judge.py 81
//
// The tests call the host functions at the bottom; keep their names and signatures. A, B and C
// are device pointers, row-major; launch on the default stream and return. M, N and K can be
// anything from 1 up: tiles that stick out of a matrix must not read or write outside it.
#include <cstdint>
#include <cuda_runtime.h>

constexpr int TILE = 32;  // a tile is 32×32 elements; the tiled kernel's block is 32×32 threads

// Warm-up: one thread per element of C. threadIdx.x runs along a row of C (blockIdx.x * 32 +
// threadIdx.x is the column), so a warp reads 32 neighbouring floats of B's row k.
__global__ void sgemm_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  // TODO: (about 6 lines) n = column of C, m = row of C; if both are inside C, sum
  // A[m][k] * B[k][n] over k in a float and store it in C[m][n]. Index rows with (int64_t)m * K.
}

// The exercise: each block computes one 32×32 tile of C, walking along K one pair of tiles at a time.
__global__ void sgemm_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  // TODO: declare two shared tiles, As[TILE][TILE] (rows of C × k) and Bs[TILE][TILE] (k × columns of C).

  // TODO: (about 10 lines) for k0 = 0, TILE, 2*TILE, ... < K:
  //   - thread (ty, tx) loads A[m][k0 + tx] into As[ty][tx] and B[k0 + ty][n] into Bs[ty][tx],
  //     and 0.0f where the index is outside A or B (the last tile along K is partial unless
  //     K % TILE == 0);
  //   - wait until the whole tile is loaded;
  //   - add As[ty][k] * Bs[k][tx] for k = 0 .. TILE-1 to the thread's sum;
  //   - wait again before the next iteration overwrites the tiles.

  // TODO: store the sum in C[m][n] if (m, n) is inside C.
}

void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  dim3 block(32, 8);
  dim3 grid((N + 31) / 32, (M + 7) / 8);
  sgemm_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

void sgemm_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  dim3 block(TILE, TILE);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  sgemm_tiled_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

// Optional, after the chapter's ladder: define
//   void sgemm_fast(const float* A, const float* B, float* C, int M, int N, int K);
// with your best kernel (register blocking, float4, warp tiles). The judge then tests it too and
// times it against cuBLAS instead of sgemm_tiled.
