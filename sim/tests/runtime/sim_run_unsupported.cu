// A program with a kernel whose PTX the simulator cannot run, and one it can.
#include <cstdio>

__global__ void profiled(int* p) {
  asm volatile("pmevent 1;");   // no simulator row: the launch must fail, not run half a kernel
  p[threadIdx.x] = 1;
}
__global__ void plain(int* p) { p[threadIdx.x] = 2; }

int main() {
  int* d = nullptr;
  cudaMalloc(&d, 32 * sizeof(int));
  cudaMemset(d, 0, 32 * sizeof(int));
  profiled<<<1, 32>>>(d);
  printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  int h = -1;
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("after the failed launch: %d\n", h);
  plain<<<1, 32>>>(d);
  printf("plain: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("after plain: %d\n", h);
  return 0;
}
