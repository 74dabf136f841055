// Prints the simulated device, for the DRILLS_SIM_DEVICE tests.
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return 1;
  printf("%s | cc %d.%d | %d SMs | %zu shared optin | %d L2\n", p.name, p.major, p.minor,
         p.multiProcessorCount, p.sharedMemPerBlockOptin, p.l2CacheSize);
  return 0;
}
