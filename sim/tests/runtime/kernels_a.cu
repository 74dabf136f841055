#include "test_kernels.h"

__device__ int counter;
__constant__ float coef[4];

__global__ void add(const float* a, const float* b, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a[i] + b[i] * coef[0];
    atomicAdd(&counter, 1);
  }
}

template <typename T>
__global__ void fill(T* p, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

__global__ void shared_tile(float* p) {
  __shared__ float tile[32][33];
  tile[threadIdx.y][threadIdx.x] = p[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  p[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

__global__ void dynamic_shared(float* p, int n) {
  extern __shared__ float buffer[];
  int i = threadIdx.x;
  if (i < n) buffer[i] = p[i];
  __syncthreads();
  if (i < n) p[i] = buffer[n - 1 - i];
}

__global__ void __launch_bounds__(128) bounded(float* p) { p[threadIdx.x] = 1.0f; }

__global__ void out_of_bounds(float* p, int n) {
  if (threadIdx.x == 0) p[n + 100000] = 1.0f;
}

__global__ void spin(volatile int* flag) {
  while (*flag == 0) {
  }
}

// A persistent kernel's grid barrier: every block counts itself in, then waits (nanosleep) until
// all have. On a GPU it finishes only when the whole grid is resident at once.
__global__ void all_arrive(unsigned* arrived, unsigned* seen) {
  if (threadIdx.x == 0) {
    atomicAdd(arrived, 1u);
    while (*(volatile unsigned*)arrived < gridDim.x) __nanosleep(100);
    seen[blockIdx.x] = *(volatile unsigned*)arrived;
  }
  __syncthreads();
}

const void* kernel_add() { return reinterpret_cast<const void*>(add); }
const void* kernel_fill_float() { return reinterpret_cast<const void*>(fill<float>); }
const void* kernel_shared_tile() { return reinterpret_cast<const void*>(shared_tile); }
const void* kernel_dynamic_shared() { return reinterpret_cast<const void*>(dynamic_shared); }
const void* kernel_bounded() { return reinterpret_cast<const void*>(bounded); }
const void* kernel_all_arrive() { return reinterpret_cast<const void*>(all_arrive); }
const void* symbol_counter() { return &counter; }
const void* symbol_coef() { return &coef; }

cudaError_t launch_add(const float* a, const float* b, float* y, int n, cudaStream_t s) {
  add<<<(n + 255) / 256, 256, 0, s>>>(a, b, y, n);
  return cudaGetLastError();
}

cudaError_t launch_fill(float* p, float v, int n) {
  fill<<<(n + 127) / 128, 128>>>(p, v, n);
  return cudaGetLastError();
}

cudaError_t launch_dynamic(float* p, int n, size_t shared_bytes) {
  dynamic_shared<<<1, n, shared_bytes>>>(p, n);
  return cudaGetLastError();
}

cudaError_t launch_out_of_bounds(float* p, int n) {
  out_of_bounds<<<1, 32>>>(p, n);
  return cudaGetLastError();
}

cudaError_t launch_with_block(dim3 block) {
  fill<float><<<1, block>>>(nullptr, 0.0f, 0);
  return cudaGetLastError();
}

cudaError_t launch_spin(int* flag) {
  spin<<<1, 32>>>(flag);
  return cudaGetLastError();
}

cudaError_t launch_all_arrive(unsigned* arrived, unsigned* seen, int blocks, int threads) {
  all_arrive<<<blocks, threads>>>(arrived, seen);
  return cudaGetLastError();
}
