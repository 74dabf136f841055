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
  const int n = blockIdx.x * 32 + threadIdx.x;  // column of C
  const int m = blockIdx.y * 8 + threadIdx.y;   // row of C
  if (m >= M || n >= N) return;
  float sum = 0.0f;
  for (int k = 0; k < K; ++k) sum += A[(int64_t)m * K + k] * B[(int64_t)k * N + n];
  C[(int64_t)m * N + n] = sum;
}

// The exercise: each block computes one 32×32 tile of C, walking along K one pair of tiles at a time.
__global__ void sgemm_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int m = blockIdx.y * TILE + ty, n = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[ty][tx] = (m < M && k0 + tx < K) ? A[(int64_t)m * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && n < N) ? B[(int64_t)(k0 + ty) * N + n] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (m < M && n < N) C[(int64_t)m * N + n] = sum;
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
