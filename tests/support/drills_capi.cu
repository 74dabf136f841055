// The C ABI every chapter's shared library exports, so pytest (ctypes) and the judge's timing
// reach device memory and the kernels without any CUDA Python package, on a GPU or the simulator.
// Each chapter adds one table, drills_entries[], naming its host functions.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>

#include "drills_capi.h"
#include "drills_timing.h"

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

// cudaMemcpy device to device: the bandwidth ceiling, measured in the same run as the kernels.
int drills_time_memcpy(void* dst, const void* src, size_t bytes, int warmup, int reps, float* samples_ms) {
  return drills::time_calls([&] { cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice); }, warmup, reps,
                            samples_ms);
}

}  // extern "C"
