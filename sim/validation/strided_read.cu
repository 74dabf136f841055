// Counter validation: how a warp's 32 float loads map to 32-byte sectors.
//   read_strided, stride 1:  128 contiguous bytes, 4 sectors a request (the baseline)
//   read_strided, stride 2:  every other float, 256 bytes, 8 sectors a request
//   read_strided, stride 32: one float per 128-byte line, 32 sectors a request
//   read_offset, offset 1:   contiguous but shifted by one float, 5 sectors a request
// Each writes y[i] contiguously (4 sectors a request). 2^18 outputs, 256-thread blocks.
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "check.h"
#include "outputs.h"

constexpr int COUNT = 1 << 18;
constexpr int MAX_STRIDE = 32;
constexpr int THREADS = 256;

__global__ void read_strided(const float* __restrict__ x, float* __restrict__ y, int n, int stride) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[(int64_t)i * stride];
}

__global__ void read_offset(const float* __restrict__ x, float* __restrict__ y, int n, int offset) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i + offset];
}

static bool check(const char* name, const std::vector<float>& y, const std::vector<float>& x, int stride, int offset) {
  double checksum = 0;
  for (int i = 0; i < COUNT; ++i) {
    const float want = x[(size_t)i * stride + offset];
    if (y[i] != want) {
      std::printf("%s: y[%d] = %g, want %g\n", name, i, y[i], want);
      return false;
    }
    checksum += y[i];
  }
  std::printf("%s: ok, checksum %.0f\n", name, checksum);
  return true;
}

int main() {
  const size_t xcount = (size_t)COUNT * MAX_STRIDE + 1;
  std::vector<float> x(xcount), y(COUNT);
  for (size_t i = 0; i < xcount; ++i) x[i] = (float)(i % 1000003);
  float *dx = nullptr, *dy = nullptr;
  CK(cudaMalloc(&dx, xcount * sizeof(float)));
  CK(cudaMalloc(&dy, COUNT * sizeof(float)));
  CK(cudaMemcpy(dx, x.data(), xcount * sizeof(float), cudaMemcpyHostToDevice));
  const int blocks = COUNT / THREADS;
  bool ok = true;
  char name[64];

  const int strides[] = {1, 2, 32};
  for (int stride : strides) {
    CK(cudaMemset(dy, 0, COUNT * sizeof(float)));
    read_strided<<<blocks, THREADS>>>(dx, dy, COUNT, stride);
    CK(cudaGetLastError());
    CK(cudaMemcpy(y.data(), dy, COUNT * sizeof(float), cudaMemcpyDeviceToHost));
    std::snprintf(name, sizeof name, "read_strided stride %d", stride);
    ok = check(name, y, x, stride, 0) && ok;
    std::snprintf(name, sizeof name, "read_strided_stride_%d", stride);
    print_result(name, y);
  }

  CK(cudaMemset(dy, 0, COUNT * sizeof(float)));
  read_offset<<<blocks, THREADS>>>(dx, dy, COUNT, 1);
  CK(cudaGetLastError());
  CK(cudaMemcpy(y.data(), dy, COUNT * sizeof(float), cudaMemcpyDeviceToHost));
  ok = check("read_offset offset 1", y, x, 1, 1) && ok;
  print_result("read_offset_offset_1", y);

  CK(cudaFree(dx));
  CK(cudaFree(dy));
  return ok ? 0 : 1;
}
