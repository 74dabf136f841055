// C3's entry table for the C ABI library (see tests/support/drills_capi.cu).
#include <cstring>

#include "c3_transpose.h"
#include "support/drills_capi.h"
#include "support/drills_timing.h"

extern "C" const DrillsEntry drills_entries[] = {
    {"transpose_naive", reinterpret_cast<void*>(transpose_naive)},
    {"transpose_tiled", reinterpret_cast<void*>(transpose_tiled)},
    {"transpose_tiled_unpadded", reinterpret_cast<void*>(transpose_tiled_unpadded)},
    {"transpose_tiled_swizzled", reinterpret_cast<void*>(transpose_tiled_swizzled)},
    {"transpose_fast", reinterpret_cast<void*>(transpose_fast)},
    {"copy_tiled", reinterpret_cast<void*>(copy_tiled)},
    {"transpose_inplace_square", reinterpret_cast<void*>(transpose_inplace_square)},
    {nullptr, nullptr},
};

// Time one variant on a fresh random M×N input: bytes moved = read x + write y.
extern "C" int drills_time_variant(const char* name, const long long* dims, int ndims, int warmup, int reps,
                                   float* samples_ms, double* bytes_moved) {
  auto fn = reinterpret_cast<void (*)(const float*, float*, int, int)>(drills_entry(name));
  if (fn == nullptr || std::strcmp(name, "transpose_inplace_square") == 0) return -1;
  if (ndims != 2 || dims[0] <= 0 || dims[1] <= 0) return -2;
  const int M = static_cast<int>(dims[0]), N = static_cast<int>(dims[1]);
  const size_t count = static_cast<size_t>(M) * N;
  float *x = nullptr, *y = nullptr;
  cudaError_t err = cudaMalloc(&x, count * sizeof(float));
  if (err == cudaSuccess) err = cudaMalloc(&y, count * sizeof(float));
  if (err == cudaSuccess) err = drills::fill_random(x, count, static_cast<unsigned>(M * 7919u + N));
  if (err == cudaSuccess) err = drills::time_calls([&] { fn(x, y, M, N); }, warmup, reps, samples_ms);
  cudaFree(x);
  cudaFree(y);
  *bytes_moved = 2.0 * count * sizeof(float);
  return err;
}
