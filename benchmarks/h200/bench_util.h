// Timing and checking helpers for the chapter benchmarks (benchmarks/h200/*.cu): CUDA events, 5
// warm-up calls, median of 50, fresh random inputs, outputs poisoned (NaN bits) before checked runs.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); std::exit(1); } } while (0)

namespace bench {

template <class Call>
float median_ms(Call call, int warmup = 5, int reps = 50) {
  for (int i = 0; i < warmup; ++i) call();
  CK(cudaGetLastError());
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> ms(reps);
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a));
    call();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms[i], a, b));
  }
  CK(cudaGetLastError());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  return ms[reps / 2];
}

inline std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) do x = dist(gen); while (x == 0.0f);
  return v;
}

inline float* to_device(const std::vector<float>& h) {
  float* d = nullptr;
  CK(cudaMalloc(&d, h.size() * sizeof(float)));
  CK(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

inline void poison(float* d, size_t n) { CK(cudaMemset(d, 0xFF, n * sizeof(float))); }

inline std::vector<float> to_host(const float* d, size_t n) {
  std::vector<float> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

inline double gbps(double bytes, float ms) { return bytes / (ms * 1e-3) / 1e9; }

}  // namespace bench
