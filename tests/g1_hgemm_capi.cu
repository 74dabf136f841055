// G1's entry table for the C ABI library (see tests/support/drills_capi.cu), and the timing hook.
//
// The performance bound is cublasGemmEx (f16 in, f32 out, f32 accumulation) timed in the same run.
// The library does not link cuBLAS (the simulator has none, and every chapter's build stays the
// same): on a GPU it opens libcublas at run time; where that fails the bound is undefined.
#include <dlfcn.h>

#include <cstring>
#include <random>
#include <vector>

#include "g1_hgemm.h"
#include "support/drills_capi.h"
#include "support/drills_timing.h"

extern "C" const DrillsEntry drills_entries[] = {
    {"hgemm_wmma", reinterpret_cast<void*>(hgemm_wmma)},
    {"hgemm_mma", reinterpret_cast<void*>(hgemm_mma)},
    {"hgemm_fast", reinterpret_cast<void*>(hgemm_fast)},
    {"hgemm_mma_unswizzled", reinterpret_cast<void*>(hgemm_mma_unswizzled)},
    {"hgemm_cp_async", reinterpret_cast<void*>(hgemm_cp_async)},
    {"hgemm_multistage", reinterpret_cast<void*>(hgemm_multistage)},
    {nullptr, nullptr},
};

namespace {

using Gemm = void (*)(const __half*, const __half*, float*, int, int, int);

// The few cuBLAS entry points the bound needs, with cuBLAS's own values for the enums.
struct Cublas {
  using Create = int (*)(void**);
  using SetMathMode = int (*)(void*, int);
  using GemmEx = int (*)(void*, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                         const void*, void*, int, int, int, int);
  static constexpr int OP_N = 0, DEFAULT_MATH = 0, R_16F = 2, R_32F = 0, COMPUTE_32F = 68, GEMM_DEFAULT = -1;
  void* handle = nullptr;
  GemmEx gemm = nullptr;

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
        c.gemm = reinterpret_cast<GemmEx>(dlsym(lib, "cublasGemmEx"));
        if (create && mode && c.gemm && create(&c.handle) == 0 && mode(c.handle, DEFAULT_MATH) == 0) return &c;
      }
      c.gemm = nullptr;
    }
    return c.gemm ? &c : nullptr;
  }
};

// Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: hand cuBLAS B first.
void cublas_hgemm(const __half* A, const __half* B, float* C, int M, int N, int K) {
  const float one = 1.0f, zero = 0.0f;
  Cublas* c = Cublas::get();
  c->gemm(c->handle, Cublas::OP_N, Cublas::OP_N, N, M, K, &one, B, Cublas::R_16F, N, A, Cublas::R_16F, K, &zero, C,
          Cublas::R_32F, N, Cublas::COMPUTE_32F, Cublas::GEMM_DEFAULT);
}

// Fresh N(0,1) halves straight into device memory.
cudaError_t fill_normal_halves(__half* device, size_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<__half> host(count < (1u << 22) ? count : (1u << 22));
  for (size_t done = 0; done < count; done += host.size()) {
    const size_t n = count - done < host.size() ? count - done : host.size();
    for (size_t i = 0; i < n; ++i) host[i] = __float2half(dist(gen));
    cudaError_t err = cudaMemcpy(device + done, host.data(), n * sizeof(__half), cudaMemcpyHostToDevice);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace

// Time one variant on fresh random inputs. dims = (M, N, K). `bytes_moved` reports the FLOPs of
// one call, 2·M·N·K, so that the judge's rate is FLOP/s and its ratio to the bound a speed ratio.
// "hgemm_cublas" names the bound.
extern "C" int drills_time_variant(const char* name, const long long* dims, int ndims, int warmup, int reps,
                                   float* samples_ms, double* bytes_moved) {
  Gemm fn = nullptr;
  if (std::strcmp(name, "hgemm_cublas") == 0) {
#ifndef DRILLS_BACKEND_SIM
    if (Cublas::get() != nullptr) fn = cublas_hgemm;
#endif
  } else {
    fn = reinterpret_cast<Gemm>(drills_entry(name));
  }
  if (fn == nullptr) return -1;
  if (ndims != 3 || dims[0] <= 0 || dims[1] <= 0 || dims[2] <= 0) return -2;
  const int M = static_cast<int>(dims[0]), N = static_cast<int>(dims[1]), K = static_cast<int>(dims[2]);
  __half *A = nullptr, *B = nullptr;
  float* C = nullptr;
  cudaError_t err = cudaMalloc(&A, size_t(M) * K * sizeof(__half));
  if (err == cudaSuccess) err = cudaMalloc(&B, size_t(K) * N * sizeof(__half));
  if (err == cudaSuccess) err = cudaMalloc(&C, size_t(M) * N * sizeof(float));
  if (err == cudaSuccess) err = fill_normal_halves(A, size_t(M) * K, unsigned(M * 7919u + K));
  if (err == cudaSuccess) err = fill_normal_halves(B, size_t(K) * N, unsigned(N * 104729u + K));
  if (err == cudaSuccess) err = drills::time_calls([&] { fn(A, B, C, M, N, K); }, warmup, reps, samples_ms);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  *bytes_moved = 2.0 * M * N * K;
  return err;
}
