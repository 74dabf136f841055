// Event timing shared by every chapter's C ABI library: warm-up calls, then one event pair per
// timed call, so the caller can take the median (and see the spread).
#pragma once

#include <cuda_runtime.h>

#include <cstring>
#include <random>
#include <vector>

namespace drills {

// The drills simulator names itself in the device name. There, a timed call is a time-model
// prediction (sim/model/variants.py) from counters that do not depend on the values.
inline bool on_simulator() {
  static const bool sim = [] {
    cudaDeviceProp prop;
    return cudaGetDeviceProperties(&prop, 0) == cudaSuccess && std::strstr(prop.name, "simulator") != nullptr;
  }();
  return sim;
}

template <class Call>
cudaError_t time_calls(Call call, int warmup, int reps, float* samples_ms) {
  for (int i = 0; i < warmup; ++i) call();
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(start);
    call();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    cudaEventElapsedTime(&samples_ms[i], start, stop);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaError_t err = cudaGetLastError();
  return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

// Fresh random floats in [-1, 1), never zero, straight into device memory. Not on the simulator,
// where a gigabyte of them would cost minutes and change no counter.
inline cudaError_t fill_random(float* device, size_t count, unsigned seed) {
  if (on_simulator()) return cudaSuccess;
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> host(count < (1u << 22) ? count : (1u << 22));
  for (auto& v : host) {
    do v = dist(gen); while (v == 0.0f);
  }
  for (size_t done = 0; done < count; done += host.size()) {
    const size_t n = count - done < host.size() ? count - done : host.size();
    cudaError_t err = cudaMemcpy(device + done, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace drills
