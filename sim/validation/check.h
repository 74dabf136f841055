// Shared by the validation programs: each checks every CUDA call and exits 1 on the first failure,
// so a program that ran under ncu or the simulator and exited 0 did what it claims.
#pragma once

#include <cstdio>
#include <cuda_runtime.h>

#define CK(call)                                                                         \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));            \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)
