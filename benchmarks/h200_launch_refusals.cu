// Which error a CUDA 13 runtime returns for each launch configuration a driver refuses: run on the
// H200 (benchmarks/h200-launch-refusals-2026-12-02.md) and on the simulator (tests/test_launch_refusals.py).
#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(float* p) { if (p) p[0] = 1.f; }
__global__ void __launch_bounds__(128) kb(float* p) { if (p) p[0] = 1.f; }
__global__ void kd(float* p) { extern __shared__ float s[]; s[threadIdx.x] = 1.f; if (p) p[0] = s[0]; }
__global__ void ks(float* p) { __shared__ float s[12000]; s[threadIdx.x] = 1.f; __syncthreads(); if (p) p[0] = s[5]; }
static void row(const char* what, cudaError_t launch, cudaError_t sync) {
  printf("%-46s launch=%-32s sync=%s\n", what, cudaGetErrorName(launch), cudaGetErrorName(sync));
}
#define TRY(what, ...) do { __VA_ARGS__; cudaError_t l = cudaGetLastError(); cudaError_t s = cudaDeviceSynchronize(); row(what, l, s); cudaGetLastError(); } while (0)
int main() {
  float* p = nullptr;
  TRY("ok <<<1,32>>>", k<<<1, 32>>>(p));
  TRY("block 1025 threads (1025,1,1)", k<<<1, 1025>>>(p));
  TRY("block (32,32,2) = 2048 threads", k<<<1, dim3(32, 32, 2)>>>(p));
  TRY("block (1,1,65)", k<<<1, dim3(1, 1, 65)>>>(p));
  TRY("block (1,1025,1)", k<<<1, dim3(1, 1025, 1)>>>(p));
  TRY("block 0 threads (0,1,1)", k<<<1, dim3(0, 1, 1)>>>(p));
  TRY("grid (0,1,1)", k<<<dim3(0, 1, 1), 32>>>(p));
  TRY("grid (1,0,1)", k<<<dim3(1, 0, 1), 32>>>(p));
  TRY("grid (1,1,0)", k<<<dim3(1, 1, 0), 32>>>(p));
  TRY("grid (1,65536,1)", k<<<dim3(1, 65536, 1), 32>>>(p));
  TRY("grid (1,1,65536)", k<<<dim3(1, 1, 65536), 32>>>(p));
  TRY("grid (2^31,1,1)", k<<<dim3(2147483648u, 1, 1), 32>>>(p));
  TRY("launch_bounds(128) kernel with 256 threads", kb<<<1, 256>>>(p));
  TRY("dynamic smem 49153 B without attribute", kd<<<1, 32, 49153>>>(p));
  TRY("dynamic smem 48 KiB exactly", kd<<<1, 32, 49152>>>(p));
  cudaFuncSetAttribute(kd, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000);
  TRY("dynamic smem 100000 B with attribute 100000", kd<<<1, 32, 100000>>>(p));
  TRY("dynamic smem 100001 B with attribute 100000", kd<<<1, 32, 100001>>>(p));
  cudaError_t a = cudaFuncSetAttribute(kd, cudaFuncAttributeMaxDynamicSharedMemorySize, 300000);
  printf("%-46s %s\n", "cudaFuncSetAttribute 300000", cudaGetErrorName(a)); cudaGetLastError();
  TRY("static 48000 B + dynamic 4096 B", ks<<<1, 32, 4096>>>(p));
  TRY("static 48000 B + dynamic 0", ks<<<1, 32>>>(p));
  return 0;
}
