// The padded tile transpose ([32][33] shared tile, 32x8 block, 4 elements a thread) for
// benchmarks/sim_vs_numba.py: x is M x N float32, launched REPS times, result checked.
//   usage: sim_transpose_padded [M N REPS]   (default 2048 2048 3)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

constexpr int TILE = 32, BLOCK_ROWS = 8;

__global__ void transpose_padded(const float* __restrict__ x, float* __restrict__ y, int m, int n) {
  __shared__ float tile[TILE][TILE + 1];
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

int main(int argc, char** argv) {
  const int M = argc > 1 ? std::atoi(argv[1]) : 2048, N = argc > 2 ? std::atoi(argv[2]) : 2048;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 3;
  const size_t count = (size_t)M * N;
  std::vector<float> x(count), y(count);
  for (size_t i = 0; i < count; ++i) x[i] = (float)(i % 16777216);
  float *dx = nullptr, *dy = nullptr;
  if (cudaMalloc(&dx, count * sizeof(float)) || cudaMalloc(&dy, count * sizeof(float))) return 1;
  cudaMemcpy(dx, x.data(), count * sizeof(float), cudaMemcpyHostToDevice);
  const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE), block(TILE, BLOCK_ROWS);
  for (int r = 0; r < reps; ++r) transpose_padded<<<grid, block>>>(dx, dy, M, N);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  cudaMemcpy(y.data(), dy, count * sizeof(float), cudaMemcpyDeviceToHost);
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c)
      if (y[(size_t)c * M + r] != x[(size_t)r * N + c]) {
        std::printf("transpose_padded: y[%d][%d] wrong\n", c, r);
        return 1;
      }
  std::printf("transpose_padded %dx%d x%d: ok\n", M, N, reps);
  return 0;
}
