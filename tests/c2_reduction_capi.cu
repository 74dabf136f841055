// C2's entry table for the C ABI library (see tests/support/drills_capi.cu).
#include <cstring>

#include "c2_reduction.h"
#include "support/drills_capi.h"
#include "support/drills_timing.h"

extern "C" const DrillsEntry drills_entries[] = {
    {"reduce_sum", reinterpret_cast<void*>(reduce_sum)},
    {"reduce_sum_int", reinterpret_cast<void*>(reduce_sum_int)},
    {"reduce_interleaved_divergent", reinterpret_cast<void*>(reduce_interleaved_divergent)},
    {"reduce_interleaved_strided", reinterpret_cast<void*>(reduce_interleaved_strided)},
    {"reduce_sequential", reinterpret_cast<void*>(reduce_sequential)},
    {"reduce_first_add", reinterpret_cast<void*>(reduce_first_add)},
    {"reduce_warp_shuffle", reinterpret_cast<void*>(reduce_warp_shuffle)},
    {"reduce_grid_stride", reinterpret_cast<void*>(reduce_grid_stride)},
    {"reduce_atomic", reinterpret_cast<void*>(reduce_atomic)},
    {"copy_vec4", reinterpret_cast<void*>(copy_vec4)},
    {nullptr, nullptr},
};

// Time one float variant on a fresh random input of n floats (dims: n, or 1 x n). Bytes moved: a
// sum reads x once (4 n bytes; writing one float is nothing); the copy reads and writes (8 n).
extern "C" int drills_time_variant(const char* name, const long long* dims, int ndims, int warmup, int reps,
                                   float* samples_ms, double* bytes_moved) {
  void* entry = drills_entry(name);
  if (entry == nullptr || std::strcmp(name, "reduce_sum_int") == 0) return -1;
  long long count = 1;
  for (int d = 0; d < ndims; ++d) count *= dims[d];
  if (ndims < 1 || ndims > 2 || count <= 0 || count > 0x7fffffff) return -2;
  const int n = static_cast<int>(count);
  const bool copy = std::strcmp(name, "copy_vec4") == 0;
  float *x = nullptr, *y = nullptr;
  cudaError_t err = cudaMalloc(&x, n * sizeof(float));
  if (err == cudaSuccess) err = cudaMalloc(&y, (copy ? n : 1) * sizeof(float));
  if (err == cudaSuccess) err = drills::fill_random(x, n, static_cast<unsigned>(n) * 7919u + 3);
  if (err == cudaSuccess) {
    auto fn = reinterpret_cast<void (*)(const float*, float*, int)>(entry);
    err = drills::time_calls([&] { fn(x, y, n); }, warmup, reps, samples_ms);
  }
  cudaFree(x);
  cudaFree(y);
  *bytes_moved = (copy ? 2.0 : 1.0) * n * sizeof(float);
  return err;
}
