// Counter validation: vector accesses. 2^20 floats copied
//   copy_float4: LDG.128/STG.128, 16 sectors a request
//   copy_float2: LDG.64/STG.64, 8 sectors a request
//   copy_float4_shared: float4 staged through shared memory (STS.128: 4 wavefronts; LDS.128 read
//     at a rotated index, contiguous within each quarter warp: 4 wavefronts ideal)
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "check.h"
#include "outputs.h"

constexpr int COUNT = 1 << 20;
constexpr int THREADS = 256;

__global__ void copy_float4(const float4* __restrict__ x, float4* __restrict__ y, int n4) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) y[i] = x[i];
}

__global__ void copy_float2(const float2* __restrict__ x, float2* __restrict__ y, int n2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) y[i] = x[i];
}

// Each block moves 256 float4; thread t stores the float4 that thread (t + 32) % 256 loaded.
__global__ void copy_float4_shared(const float4* __restrict__ x, float4* __restrict__ y, int n4) {
  __shared__ float4 stage[THREADS];
  const int base = blockIdx.x * THREADS;
  const int t = threadIdx.x;
  if (base + t < n4) stage[t] = x[base + t];
  __syncthreads();
  const int from = (t + 32) % THREADS;
  if (base + from < n4) y[base + from] = stage[from];
}

static bool check(const char* name, const std::vector<float>& y, const std::vector<float>& x) {
  double checksum = 0;
  for (int i = 0; i < COUNT; ++i) {
    if (y[i] != x[i]) {
      std::printf("%s: y[%d] = %g, want %g\n", name, i, y[i], x[i]);
      return false;
    }
    checksum += y[i] * (double)(i % 7);
  }
  std::printf("%s: ok, checksum %.0f\n", name, checksum);
  print_result(name, y);
  return true;
}

int main() {
  std::vector<float> x(COUNT), y(COUNT);
  for (int i = 0; i < COUNT; ++i) x[i] = (float)((i * 2654435761u) >> 12);
  float *dx = nullptr, *dy = nullptr;
  CK(cudaMalloc(&dx, COUNT * sizeof(float)));
  CK(cudaMalloc(&dy, COUNT * sizeof(float)));
  CK(cudaMemcpy(dx, x.data(), COUNT * sizeof(float), cudaMemcpyHostToDevice));
  bool ok = true;

  CK(cudaMemset(dy, 0, COUNT * sizeof(float)));
  copy_float4<<<COUNT / 4 / THREADS, THREADS>>>(reinterpret_cast<const float4*>(dx), reinterpret_cast<float4*>(dy), COUNT / 4);
  CK(cudaGetLastError());
  CK(cudaMemcpy(y.data(), dy, COUNT * sizeof(float), cudaMemcpyDeviceToHost));
  ok = check("copy_float4", y, x) && ok;

  CK(cudaMemset(dy, 0, COUNT * sizeof(float)));
  copy_float2<<<COUNT / 2 / THREADS, THREADS>>>(reinterpret_cast<const float2*>(dx), reinterpret_cast<float2*>(dy), COUNT / 2);
  CK(cudaGetLastError());
  CK(cudaMemcpy(y.data(), dy, COUNT * sizeof(float), cudaMemcpyDeviceToHost));
  ok = check("copy_float2", y, x) && ok;

  CK(cudaMemset(dy, 0, COUNT * sizeof(float)));
  copy_float4_shared<<<COUNT / 4 / THREADS, THREADS>>>(reinterpret_cast<const float4*>(dx), reinterpret_cast<float4*>(dy), COUNT / 4);
  CK(cudaGetLastError());
  CK(cudaMemcpy(y.data(), dy, COUNT * sizeof(float), cudaMemcpyDeviceToHost));
  ok = check("copy_float4_shared", y, x) && ok;

  CK(cudaFree(dx));
  CK(cudaFree(dy));
  return ok ? 0 : 1;
}
