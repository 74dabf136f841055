// Counter validation: a sum with __shfl_down_sync. 2^20 floats, 256-thread blocks, each thread
// adds 4 coalesced elements, warps reduce with shuffles, lane 0 of each warp stages its sum in
// shared memory, warp 0 reduces those and writes the block's sum (a store) and adds it to the
// total with an atomicAdd whose result is unused (RED). Inputs are small integers, so every
// partial sum is exact and the result does not depend on the order of the float atomics.
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "check.h"
#include "outputs.h"

constexpr int COUNT = 1 << 20;
constexpr int THREADS = 256, PER_THREAD = 4;

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void reduce_shfl(const float* __restrict__ x, float* __restrict__ block_sums,
                            float* __restrict__ total, int n) {
  __shared__ float warp_sums[32];
  const int base = blockIdx.x * blockDim.x * PER_THREAD + threadIdx.x;
  float v = 0.f;
  for (int k = 0; k < PER_THREAD; ++k) {
    const int i = base + k * blockDim.x;
    if (i < n) v += x[i];
  }
  v = warp_sum(v);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.f;
    v = warp_sum(v);
    if (lane == 0) {
      block_sums[blockIdx.x] = v;
      atomicAdd(total, v);
    }
  }
}

int main() {
  const int blocks = COUNT / (THREADS * PER_THREAD);
  std::vector<float> x(COUNT), sums(blocks);
  for (int i = 0; i < COUNT; ++i) x[i] = (float)((i * 37 + 11) % 8);  // 0..7: sums stay exact
  float *dx = nullptr, *dsums = nullptr, *dtotal = nullptr;
  CK(cudaMalloc(&dx, COUNT * sizeof(float)));
  CK(cudaMalloc(&dsums, blocks * sizeof(float)));
  CK(cudaMalloc(&dtotal, sizeof(float)));
  CK(cudaMemcpy(dx, x.data(), COUNT * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemset(dsums, 0, blocks * sizeof(float)));
  CK(cudaMemset(dtotal, 0, sizeof(float)));
  reduce_shfl<<<blocks, THREADS>>>(dx, dsums, dtotal, COUNT);
  CK(cudaGetLastError());
  float total = 0;
  CK(cudaMemcpy(sums.data(), dsums, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&total, dtotal, sizeof(float), cudaMemcpyDeviceToHost));
  print_result("reduce_shfl_blocks", sums);
  print_result("reduce_shfl_total", std::vector<float>{total});
  double want_total = 0;
  for (int b = 0; b < blocks; ++b) {
    double want = 0;
    for (int i = 0; i < THREADS * PER_THREAD; ++i) want += x[(size_t)b * THREADS * PER_THREAD + i];
    if (sums[b] != (float)want) {
      std::printf("reduce_shfl: block %d sum %g, want %g\n", b, sums[b], want);
      return 1;
    }
    want_total += want;
  }
  if (total != (float)want_total) {
    std::printf("reduce_shfl: total %g, want %g\n", total, want_total);
    return 1;
  }
  std::printf("reduce_shfl: ok, total %.0f\n", total);
  CK(cudaFree(dx));
  CK(cudaFree(dsums));
  CK(cudaFree(dtotal));
  return 0;
}
