// C4's entry table for the C ABI library (see tests/support/drills_capi.cu), and the timing hook.
//
// The performance bound is cuBLAS SGEMM timed in the same run. The library does not link cuBLAS
// (the simulator has none, and the build stays the same for every chapter): on a GPU it opens
// libcublas at run time, sets CUBLAS_PEDANTIC_MATH (no TF32, no reduced-precision tensor cores)
// and calls cublasSgemm; where libcublas cannot be opened the bound is reported as undefined.
#include <dlfcn.h>

#include <cstring>

#include "c4_sgemm.h"
#include "support/drills_capi.h"
#include "support/drills_timing.h"

extern "C" const DrillsEntry drills_entries[] = {
    {"sgemm_naive", reinterpret_cast<void*>(sgemm_naive)},
    {"sgemm_tiled", reinterpret_cast<void*>(sgemm_tiled)},
    {"sgemm_fast", reinterpret_cast<void*>(sgemm_fast)},
    {"sgemm_uncoalesced", reinterpret_cast<void*>(sgemm_uncoalesced)},
    {"sgemm_blocktile_1d", reinterpret_cast<void*>(sgemm_blocktile_1d)},
    {"sgemm_blocktile_2d", reinterpret_cast<void*>(sgemm_blocktile_2d)},
    {"sgemm_vectorized", reinterpret_cast<void*>(sgemm_vectorized)},
    {"sgemm_warptile", reinterpret_cast<void*>(sgemm_warptile)},
    {"sgemm_double_buffered", reinterpret_cast<void*>(sgemm_double_buffered)},
    {nullptr, nullptr},
};

namespace {

using Gemm = void (*)(const float*, const float*, float*, int, int, int);

// The few cuBLAS entry points the bound needs, with cuBLAS's own values for the enums.
struct Cublas {
  using Create = int (*)(void**);
  using SetMathMode = int (*)(void*, int);
  using Sgemm = int (*)(void*, int, int, int, int, int, const float*, const float*, int, const float*, int,
                        const float*, float*, int);
  static constexpr int OP_N = 0, PEDANTIC_MATH = 2;
  void* handle = nullptr;
  Sgemm sgemm = nullptr;

  static Cublas* get() {
    static Cublas c;
    static bool tried = false;
    if (!tried) {
      tried = true;
      void* lib = nullptr;
      for (const char* name : {"libcublas.so", "libcublas.so.13", "libcublas.so.12"})
        if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
      if (lib != nullptr) {
        auto create = reinterpret_cast<Create>(dlsym(lib, "cublasCreate_v2"));
        auto mode = reinterpret_cast<SetMathMode>(dlsym(lib, "cublasSetMathMode"));
        c.sgemm = reinterpret_cast<Sgemm>(dlsym(lib, "cublasSgemm_v2"));
        if (create && mode && c.sgemm && create(&c.handle) == 0 && mode(c.handle, PEDANTIC_MATH) == 0) return &c;
      }
      c.sgemm = nullptr;
    }
    return c.sgemm ? &c : nullptr;
  }
};

// Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: hand cuBLAS B first.
void cublas_sgemm(const float* A, const float* B, float* C, int M, int N, int K) {
  const float one = 1.0f, zero = 0.0f;
  Cublas* c = Cublas::get();
  c->sgemm(c->handle, Cublas::OP_N, Cublas::OP_N, N, M, K, &one, B, N, A, K, &zero, C, N);
}

}  // namespace

// Time one variant on fresh random inputs. dims = (M, N, K). `bytes_moved` reports the FLOPs of
// one call, 2·M·N·K, so that the judge's rate is FLOP/s and its ratio to the bound a speed ratio.
// "sgemm_cublas" names the bound.
extern "C" int drills_time_variant(const char* name, const long long* dims, int ndims, int warmup, int reps,
                                   float* samples_ms, double* bytes_moved) {
  Gemm fn = nullptr;
  if (std::strcmp(name, "sgemm_cublas") == 0) {
#ifndef DRILLS_BACKEND_SIM
    if (Cublas::get() != nullptr) fn = cublas_sgemm;
#endif
  } else {
    fn = reinterpret_cast<Gemm>(drills_entry(name));
  }
  if (fn == nullptr) return -1;
  if (ndims != 3 || dims[0] <= 0 || dims[1] <= 0 || dims[2] <= 0) return -2;
  const int M = static_cast<int>(dims[0]), N = static_cast<int>(dims[1]), K = static_cast<int>(dims[2]);
  const size_t na = static_cast<size_t>(M) * K, nb = static_cast<size_t>(K) * N, nc = static_cast<size_t>(M) * N;
  float *A = nullptr, *B = nullptr, *C = nullptr;
  cudaError_t err = cudaMalloc(&A, na * sizeof(float));
  if (err == cudaSuccess) err = cudaMalloc(&B, nb * sizeof(float));
  if (err == cudaSuccess) err = cudaMalloc(&C, nc * sizeof(float));
  if (err == cudaSuccess) err = drills::fill_random(A, na, static_cast<unsigned>(M * 7919u + K));
  if (err == cudaSuccess) err = drills::fill_random(B, nb, static_cast<unsigned>(N * 104729u + K));
  if (err == cudaSuccess) err = drills::time_calls([&] { fn(A, B, C, M, N, K); }, warmup, reps, samples_ms);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  *bytes_moved = 2.0 * M * N * K;
  return err;
}
