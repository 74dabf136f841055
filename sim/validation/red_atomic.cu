// Counter validation: global atomics, with and without a used result. 2^20 threads.
//   red_add_float:     atomicAdd(&acc[i % 4096], x[i]), result unused -> RED, 4 sectors a request
//   red_add_same:      atomicAdd(counter, 1), result unused, one address for the whole warp
//   atom_add_used:     old[i] = atomicAdd(&slots[i], 1), result used -> ATOM, 4 sectors a request
// The float inputs are small integers, so the sums are exact in any order.
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "check.h"
#include "outputs.h"

constexpr int COUNT = 1 << 20;
constexpr int SLOTS = 4096;
constexpr int THREADS = 256;

__global__ void red_add_float(const float* __restrict__ x, float* __restrict__ acc, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&acc[i % SLOTS], x[i]);
}

__global__ void red_add_same(unsigned int* __restrict__ counter, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(counter, 1u);
}

__global__ void atom_add_used(unsigned int* __restrict__ slots, unsigned int* __restrict__ old, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) old[i] = atomicAdd(&slots[i], 1u);
}

int main() {
  const int blocks = COUNT / THREADS;
  std::vector<float> x(COUNT), acc(SLOTS);
  std::vector<unsigned int> slots(COUNT), old(COUNT);
  for (int i = 0; i < COUNT; ++i) {
    x[i] = (float)(i % 5);
    slots[i] = (unsigned int)(i * 3);
  }
  float *dx = nullptr, *dacc = nullptr;
  unsigned int *dcounter = nullptr, *dslots = nullptr, *dold = nullptr;
  CK(cudaMalloc(&dx, COUNT * sizeof(float)));
  CK(cudaMalloc(&dacc, SLOTS * sizeof(float)));
  CK(cudaMalloc(&dcounter, sizeof(unsigned int)));
  CK(cudaMalloc(&dslots, COUNT * sizeof(unsigned int)));
  CK(cudaMalloc(&dold, COUNT * sizeof(unsigned int)));
  CK(cudaMemcpy(dx, x.data(), COUNT * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dslots, slots.data(), COUNT * sizeof(unsigned int), cudaMemcpyHostToDevice));
  CK(cudaMemset(dacc, 0, SLOTS * sizeof(float)));
  CK(cudaMemset(dcounter, 0, sizeof(unsigned int)));
  CK(cudaMemset(dold, 0, COUNT * sizeof(unsigned int)));

  red_add_float<<<blocks, THREADS>>>(dx, dacc, COUNT);
  CK(cudaGetLastError());
  red_add_same<<<blocks, THREADS>>>(dcounter, COUNT);
  CK(cudaGetLastError());
  atom_add_used<<<blocks, THREADS>>>(dslots, dold, COUNT);
  CK(cudaGetLastError());

  unsigned int counter = 0;
  CK(cudaMemcpy(acc.data(), dacc, SLOTS * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&counter, dcounter, sizeof(unsigned int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(slots.data(), dslots, COUNT * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(old.data(), dold, COUNT * sizeof(unsigned int), cudaMemcpyDeviceToHost));

  print_result("red_add_float", acc);
  print_result("red_add_same", std::vector<unsigned int>{counter});
  print_result("atom_add_used_old", old);
  print_result("atom_add_used_new", slots);
  double checksum = 0;
  for (int s = 0; s < SLOTS; ++s) {
    double want = 0;
    for (int i = s; i < COUNT; i += SLOTS) want += x[i];
    if (acc[s] != (float)want) {
      std::printf("red_add_float: acc[%d] = %g, want %g\n", s, acc[s], want);
      return 1;
    }
    checksum += acc[s] * (s % 11);
  }
  std::printf("red_add_float: ok, checksum %.0f\n", checksum);
  if (counter != (unsigned int)COUNT) {
    std::printf("red_add_same: counter = %u, want %d\n", counter, COUNT);
    return 1;
  }
  std::printf("red_add_same: ok, counter %u\n", counter);
  for (int i = 0; i < COUNT; ++i)
    if (old[i] != (unsigned int)(i * 3) || slots[i] != (unsigned int)(i * 3 + 1)) {
      std::printf("atom_add_used: slot %d old %u new %u, want %u and %u\n", i, old[i], slots[i], i * 3, i * 3 + 1);
      return 1;
    }
  std::printf("atom_add_used: ok\n");
  CK(cudaFree(dx));
  CK(cudaFree(dacc));
  CK(cudaFree(dcounter));
  CK(cudaFree(dslots));
  CK(cudaFree(dold));
  return 0;
}
