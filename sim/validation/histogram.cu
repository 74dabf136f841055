// Counter validation: 256-bin histograms of 2^20 ints.
//   histogram_shared: a per-block histogram in shared memory (atomicAdd on shared), then one
//     atomicAdd per bin on the global histogram (result unused: RED, coalesced).
//   histogram_global: atomicAdd straight on the global histogram (RED, scattered addresses).
// The data are skewed (a quarter of the values fall in 8 bins) so shared atomics collide.
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "check.h"
#include "outputs.h"

constexpr int COUNT = 1 << 20;
constexpr int BINS = 256;
constexpr int THREADS = 256, BLOCKS = 128;

__global__ void histogram_shared(const int* __restrict__ data, int n, unsigned int* __restrict__ hist) {
  __shared__ unsigned int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i] & (BINS - 1)], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}

__global__ void histogram_global(const int* __restrict__ data, int n, unsigned int* __restrict__ hist) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&hist[data[i] & (BINS - 1)], 1u);
}

static bool check(const char* name, const std::vector<unsigned int>& got, const std::vector<unsigned int>& want) {
  unsigned long long checksum = 0;
  for (int b = 0; b < BINS; ++b) {
    if (got[b] != want[b]) {
      std::printf("%s: bin %d = %u, want %u\n", name, b, got[b], want[b]);
      return false;
    }
    checksum += (unsigned long long)got[b] * (b + 1);
  }
  std::printf("%s: ok, checksum %llu\n", name, checksum);
  print_result(name, got);
  return true;
}

int main() {
  std::vector<int> data(COUNT);
  std::vector<unsigned int> want(BINS, 0), got(BINS);
  uint32_t state = 12345u;
  for (int i = 0; i < COUNT; ++i) {
    state = state * 1664525u + 1013904223u;  // fixed LCG
    const uint32_t r = state >> 8;
    data[i] = (r % 4 == 0) ? (int)(r / 4 % 8) * 3 : (int)(r / 4 % 100000);
    ++want[data[i] & (BINS - 1)];
  }
  int* ddata = nullptr;
  unsigned int* dhist = nullptr;
  CK(cudaMalloc(&ddata, COUNT * sizeof(int)));
  CK(cudaMalloc(&dhist, BINS * sizeof(unsigned int)));
  CK(cudaMemcpy(ddata, data.data(), COUNT * sizeof(int), cudaMemcpyHostToDevice));
  bool ok = true;

  CK(cudaMemset(dhist, 0, BINS * sizeof(unsigned int)));
  histogram_shared<<<BLOCKS, THREADS>>>(ddata, COUNT, dhist);
  CK(cudaGetLastError());
  CK(cudaMemcpy(got.data(), dhist, BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  ok = check("histogram_shared", got, want) && ok;

  CK(cudaMemset(dhist, 0, BINS * sizeof(unsigned int)));
  histogram_global<<<BLOCKS, THREADS>>>(ddata, COUNT, dhist);
  CK(cudaGetLastError());
  CK(cudaMemcpy(got.data(), dhist, BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  ok = check("histogram_global", got, want) && ok;

  CK(cudaFree(ddata));
  CK(cudaFree(dhist));
  return ok ? 0 : 1;
}
