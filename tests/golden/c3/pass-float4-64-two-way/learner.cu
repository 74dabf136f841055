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

// A 64x64 tile, 256 threads, float4 global loads and stores where rows are 16-byte aligned.
constexpr int VT = 64;
__device__ __forceinline__ int chunk_at(int row, int chunk) { return row * (VT / 4) + (chunk ^ ((row >> 2) & 3)); }

__global__ void transpose_vec4_kernel(const float* x, float* y, int M, int N) {
  __shared__ float4 tile[VT * VT / 4];
  const int t = threadIdx.x;
  const int m0 = blockIdx.y * VT, n0 = blockIdx.x * VT;
  const int q = t % 16;
  for (int row = t / 16; row < VT; row += 16) {
    const int m = m0 + row, n = n0 + 4 * q;
    if (m < M && n < N) tile[chunk_at(row, q)] = *reinterpret_cast<const float4*>(x + (int64_t)m * N + n);
  }
  __syncthreads();
  const float* s = reinterpret_cast<const float*>(tile);
  const int p = t % 8;
  for (int pass = 0; pass < 4; ++pass) {
    const int col = (t / 32) * 4 + (t % 32) / 8 + (pass % 2) * 32;
    const int mrow = 4 * (p + 8 * (pass / 2));
    const int n = n0 + col, m = m0 + mrow;
    float4 v;
    v.x = s[4 * chunk_at(mrow + 0, col / 4) + col % 4];
    v.y = s[4 * chunk_at(mrow + 1, col / 4) + col % 4];
    v.z = s[4 * chunk_at(mrow + 2, col / 4) + col % 4];
    v.w = s[4 * chunk_at(mrow + 3, col / 4) + col % 4];
    if (n < N && m < M) *reinterpret_cast<float4*>(y + (int64_t)n * M + m) = v;
  }
}

void transpose_tiled(const float* x, float* y, int M, int N) {
  if (M <= 0 || N <= 0) return;
  const bool vec4 = M % 4 == 0 && N % 4 == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0 &&
                    reinterpret_cast<uintptr_t>(y) % 16 == 0;
  if (vec4) {
    transpose_vec4_kernel<<<dim3((N + VT - 1) / VT, (M + VT - 1) / VT), 256>>>(x, y, M, N);
    return;
  }
  dim3 block(TILE, BLOCK_ROWS);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  transpose_tiled_kernel<<<grid, block>>>(x, y, M, N);
}
