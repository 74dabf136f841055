// The base of the single-file submissions: a correct naive and tiled transpose. Each <name>.patch
// makes <name>.cu (test_grade_batch.py writes them into the submissions folder it grades).
#include <cuda_runtime.h>
constexpr int TILE = 32;
constexpr int ROWS = 8;

__global__ void naive_kernel(const float* x, float* y, int M, int N) {
  int c = blockIdx.x * TILE + threadIdx.x;
  for (int j = 0; j < TILE; j += ROWS) {
    int r = blockIdx.y * TILE + threadIdx.y + j;
    if (r < M && c < N) y[(size_t)c * M + r] = x[(size_t)r * N + c];
  }
}

__global__ void tiled_kernel(const float* x, float* y, int M, int N) {
  __shared__ float tile[TILE][TILE + 1];
  int c = blockIdx.x * TILE + threadIdx.x;
  for (int j = 0; j < TILE; j += ROWS) {
    int r = blockIdx.y * TILE + threadIdx.y + j;
    if (r < M && c < N) tile[threadIdx.y + j][threadIdx.x] = x[(size_t)r * N + c];
  }
  __syncthreads();
  int yc = blockIdx.y * TILE + threadIdx.x;  // column of y = row of x
  for (int j = 0; j < TILE; j += ROWS) {
    int yr = blockIdx.x * TILE + threadIdx.y + j;  // row of y = column of x
    if (yr < N && yc < M) y[(size_t)yr * M + yc] = tile[threadIdx.x][threadIdx.y + j];
  }
}

static dim3 grid_for(int M, int N) { return dim3((N + TILE - 1) / TILE, (M + TILE - 1) / TILE); }

void transpose_naive(const float* x, float* y, int M, int N) {
  naive_kernel<<<grid_for(M, N), dim3(TILE, ROWS)>>>(x, y, M, N);
}

void transpose_tiled(const float* x, float* y, int M, int N) {
  tiled_kernel<<<grid_for(M, N), dim3(TILE, ROWS)>>>(x, y, M, N);
}
