// C3 transposes: x is M x N row-major, y = x^T (N x M). 32x32 tile, 32x8 block, 4 elements a thread.
#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose_naive(float* y, const float* x, int M, int N) {
  int c = blockIdx.x * TILE + threadIdx.x;  // column of x
  int r = blockIdx.y * TILE + threadIdx.y;  // row of x
  for (int k = 0; k < TILE; k += ROWS)
    if (r + k < M && c < N) y[c * M + r + k] = x[(r + k) * N + c];
}

template <int PAD>
__device__ void transpose_tile(float* y, const float* x, int M, int N) {
  __shared__ float tile[TILE][TILE + PAD];
  int c = blockIdx.x * TILE + threadIdx.x;  // column of x
  int r = blockIdx.y * TILE + threadIdx.y;  // row of x
  for (int k = 0; k < TILE; k += ROWS)
    if (r + k < M && c < N) tile[threadIdx.y + k][threadIdx.x] = x[(r + k) * N + c];
  __syncthreads();
  int yc = blockIdx.y * TILE + threadIdx.x;  // column of y = row of x
  int yr = blockIdx.x * TILE + threadIdx.y;  // row of y = column of x
  for (int k = 0; k < TILE; k += ROWS)
    if (yr + k < N && yc < M) y[(yr + k) * M + yc] = tile[threadIdx.x][threadIdx.y + k];
}

extern "C" __global__ void transpose_tile32(float* y, const float* x, int M, int N) {
  transpose_tile<0>(y, x, M, N);
}
extern "C" __global__ void transpose_tile33(float* y, const float* x, int M, int N) {
  transpose_tile<1>(y, x, M, N);
}

// The same padded tile for doubles: 64-bit shared accesses.
extern "C" __global__ void transpose_tile33_f64(double* y, const double* x, int M, int N) {
  __shared__ double tile[TILE][TILE + 1];
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  for (int k = 0; k < TILE; k += ROWS)
    if (r + k < M && c < N) tile[threadIdx.y + k][threadIdx.x] = x[(r + k) * N + c];
  __syncthreads();
  int yc = blockIdx.y * TILE + threadIdx.x;
  int yr = blockIdx.x * TILE + threadIdx.y;
  for (int k = 0; k < TILE; k += ROWS)
    if (yr + k < N && yc < M) y[(yr + k) * M + yc] = tile[threadIdx.x][threadIdx.y + k];
}

// Forgot __syncthreads(): a shared-memory race between warps.
extern "C" __global__ void transpose_racy(float* y, const float* x, int M, int N) {
  __shared__ float tile[TILE][TILE + 1];
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  for (int k = 0; k < TILE; k += ROWS)
    if (r + k < M && c < N) tile[threadIdx.y + k][threadIdx.x] = x[(r + k) * N + c];
  int yc = blockIdx.y * TILE + threadIdx.x;
  int yr = blockIdx.x * TILE + threadIdx.y;
  for (int k = 0; k < TILE; k += ROWS)
    if (yr + k < N && yc < M) y[(yr + k) * M + yc] = tile[threadIdx.x][threadIdx.y + k];
}

// Dynamic shared memory (extern __shared__), row copy through it.
extern "C" __global__ void copy_dynamic_shared(float* y, const float* x, int n) {
  extern __shared__ float buf[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[threadIdx.x] = x[i];
  __syncthreads();
  int j = blockDim.x - 1 - threadIdx.x;
  int o = blockIdx.x * blockDim.x + j;
  if (o < n) y[o] = buf[j];
}
