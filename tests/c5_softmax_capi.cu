// C5's entry table for the C ABI library (see tests/support/drills_capi.cu).
#include <cstring>

#include "c5_softmax.h"
#include "support/drills_capi.h"
#include "support/drills_timing.h"

extern "C" const DrillsEntry drills_entries[] = {
    {"softmax_naive", reinterpret_cast<void*>(softmax_naive)},
    {"softmax_online", reinterpret_cast<void*>(softmax_online)},
    {"softmax_by_width", reinterpret_cast<void*>(softmax_by_width)},
    {"softmax_registers", reinterpret_cast<void*>(softmax_registers)},
    {"softmax_split", reinterpret_cast<void*>(softmax_split)},
    {"softmax_fast", reinterpret_cast<void*>(softmax_fast)},
    {"copy_vec4", reinterpret_cast<void*>(copy_vec4)},
    {"log_softmax_online", reinterpret_cast<void*>(log_softmax_online)},
    {nullptr, nullptr},
};

// Time one variant on a fresh random rows×cols input. Bytes moved: what softmax must move at least,
// x read once and y written once (the copy kernel moves the same), however often a variant reads x.
extern "C" int drills_time_variant(const char* name, const long long* dims, int ndims, int warmup, int reps,
                                   float* samples_ms, double* bytes_moved) {
  auto fn = reinterpret_cast<void (*)(const float*, float*, int, int)>(drills_entry(name));
  if (fn == nullptr) return -1;
  if (ndims != 2 || dims[0] <= 0 || dims[1] <= 0 || dims[0] * dims[1] > 0x7fffffffLL) return -2;
  const int rows = static_cast<int>(dims[0]), cols = static_cast<int>(dims[1]);
  const size_t count = static_cast<size_t>(rows) * cols;
  float *x = nullptr, *y = nullptr;
  cudaError_t err = cudaMalloc(&x, count * sizeof(float));
  if (err == cudaSuccess) err = cudaMalloc(&y, count * sizeof(float));
  if (err == cudaSuccess) err = drills::fill_random(x, count, static_cast<unsigned>(rows * 7919u + cols));
  if (err == cudaSuccess) err = drills::time_calls([&] { fn(x, y, rows, cols); }, warmup, reps, samples_ms);
  cudaFree(x);
  cudaFree(y);
  *bytes_moved = 2.0 * count * sizeof(float);
  return err;
}
