// C1's entry table for the C ABI library (see tests/support/drills_capi.cu).
#include <cstring>

#include "c1_vector_add.h"
#include "support/drills_capi.h"
#include "support/drills_timing.h"

extern "C" const DrillsEntry drills_entries[] = {
    {"vector_add", reinterpret_cast<void*>(vector_add)},
    {"vector_add_vec4", reinterpret_cast<void*>(vector_add_vec4)},
    {"vector_add_grid_stride", reinterpret_cast<void*>(vector_add_grid_stride)},
    {"vector_add_fast", reinterpret_cast<void*>(vector_add_fast)},
    {"copy_vec4", reinterpret_cast<void*>(copy_vec4)},
    {nullptr, nullptr},
};

// Time one variant on fresh random inputs of n floats (dims: n, or 1 x n). Bytes moved: an add reads
// a and b and writes c (3 n floats); the copy reads x and writes y (2 n floats).
extern "C" int drills_time_variant(const char* name, const long long* dims, int ndims, int warmup, int reps,
                                   float* samples_ms, double* bytes_moved) {
  void* entry = drills_entry(name);
  if (entry == nullptr) return -1;
  long long count = 1;
  for (int d = 0; d < ndims; ++d) count *= dims[d];
  if (ndims < 1 || ndims > 2 || count <= 0 || count > 0x7fffffff) return -2;
  const int n = static_cast<int>(count);
  const bool copy = std::strcmp(name, "copy_vec4") == 0;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  cudaError_t err = cudaMalloc(&a, n * sizeof(float));
  if (err == cudaSuccess) err = cudaMalloc(&b, n * sizeof(float));
  if (err == cudaSuccess) err = cudaMalloc(&c, n * sizeof(float));
  if (err == cudaSuccess) err = drills::fill_random(a, n, static_cast<unsigned>(n) * 7919u + 1);
  if (err == cudaSuccess) err = drills::fill_random(b, n, static_cast<unsigned>(n) * 7919u + 2);
  if (err == cudaSuccess) {
    if (copy) {
      auto fn = reinterpret_cast<void (*)(const float*, float*, int)>(entry);
      err = drills::time_calls([&] { fn(a, c, n); }, warmup, reps, samples_ms);
    } else {
      auto fn = reinterpret_cast<void (*)(const float*, const float*, float*, int)>(entry);
      err = drills::time_calls([&] { fn(a, b, c, n); }, warmup, reps, samples_ms);
    }
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  *bytes_moved = (copy ? 2.0 : 3.0) * n * sizeof(float);
  return err;
}
