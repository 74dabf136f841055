// The C ABI every chapter's shared library exports, so pytest (ctypes) and the judge's timing
// reach device memory and the kernels without any CUDA Python package, on a GPU or the simulator.
// Each chapter adds one table, drills_entries[], naming its host functions.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>

#include "drills_capi.h"

extern "C" {

int drills_malloc(void** ptr, size_t bytes) { return cudaMalloc(ptr, bytes); }
int drills_free(void* ptr) { return cudaFree(ptr); }
int drills_to_device(void* dst, const void* src, size_t bytes) {
  return cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
}
int drills_to_host(void* dst, const void* src, size_t bytes) {
  return cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
}
int drills_memset(void* ptr, int value, size_t bytes) { return cudaMemset(ptr, value, bytes); }
// Launch errors surface here: the last launch's, then the first asynchronous one.
int drills_sync(void) {
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  return cudaDeviceSynchronize();
}
const char* drills_error_name(int err) { return cudaGetErrorName(static_cast<cudaError_t>(err)); }
const char* drills_error_string(int err) { return cudaGetErrorString(static_cast<cudaError_t>(err)); }

int drills_device_name(char* out, size_t size) {
  cudaDeviceProp prop;
  cudaError_t err = cudaGetDeviceProperties(&prop, 0);
  if (err != cudaSuccess) return err;
  std::strncpy(out, prop.name, size - 1);
  out[size - 1] = '\0';
  return cudaSuccess;
}

// The address of a host function the file under test defines, or null (weak and undefined).
void* drills_entry(const char* name) {
  for (const DrillsEntry* e = drills_entries; e->name != nullptr; ++e)
    if (std::strcmp(e->name, name) == 0) return e->fn;
  return nullptr;
}

// Time `reps` calls of fn(x, y, M, N) with CUDA events, one pair per call, after `warmup` calls.
// samples_ms receives each call's time. Returns a cudaError_t.
int drills_time_xy(void* fn, const float* x, float* y, int M, int N, int warmup, int reps, float* samples_ms) {
  auto call = reinterpret_cast<void (*)(const float*, float*, int, int)>(fn);
  for (int i = 0; i < warmup; ++i) call(x, y, M, N);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(start);
    call(x, y, M, N);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    cudaEventElapsedTime(&samples_ms[i], start, stop);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return drills_sync();
}

// The same for cudaMemcpy device to device: the bandwidth ceiling measured in the same run.
int drills_time_memcpy(void* dst, const void* src, size_t bytes, int warmup, int reps, float* samples_ms) {
  for (int i = 0; i < warmup; ++i) cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(start);
    cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    cudaEventElapsedTime(&samples_ms[i], start, stop);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return drills_sync();
}

}  // extern "C"
