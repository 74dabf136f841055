// G1 on a GPU, in one process: every rung of the reference's ladder (solutions/g1_hgemm.cu) checked
// against a float64 host reference, timed against cublasGemmEx (f16 in, f32 out) in the same run,
// the pipelined kernel's tuning sweep, and the mma.sync throughput ceiling of this GPU.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 benchmarks/g1_bench.cu benchmarks/g1_sweep.cu ... -lcublas
//   (benchmarks/h200/g1.sh builds and runs it)
//
// Modes (first argument):
//   check      every variant and every sweep configuration against the host reference
//   time       the ladder and cuBLAS at the perf shapes            (CSV on stdout)
//   sweep      every sweep configuration at the perf shapes          (CSV on stdout)
//   peak       mma.sync throughput with operands in registers        (CSV on stdout)
//   profile    one launch of each variant and cuBLAS at 4096³, for ncu
//   small      one launch of each variant at small odd shapes, for compute-sanitizer
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "../solutions/g1_hgemm.cu"
#include "g1_bench.h"

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

namespace bench {

struct Variant {
  std::string name;
  std::function<void(const __half*, const __half*, float*, int, int, int)> run;
};

cublasHandle_t cublas() {
  static cublasHandle_t h = [] {
    cublasHandle_t x;
    if (cublasCreate(&x) != CUBLAS_STATUS_SUCCESS) {
      std::fprintf(stderr, "cublasCreate failed\n");
      std::exit(1);
    }
    cublasSetMathMode(x, CUBLAS_DEFAULT_MATH);
    return x;
  }();
  return h;
}

// Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: hand cuBLAS B first. f16 in, f32 out, f32 compute.
void cublas_f32out(const __half* A, const __half* B, float* C, int M, int N, int K) {
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t s = cublasGemmEx(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_16F, N, A, CUDA_R_16F,
                                  K, &zero, C, CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS) std::fprintf(stderr, "cublasGemmEx (f32 out) failed: %d\n", int(s));
}

// The same with f16 output (what torch.matmul on halves does), for reference only: C is M×N halves
// written into the float buffer's first half.
void cublas_f16out(const __half* A, const __half* B, float* C, int M, int N, int K) {
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t s = cublasGemmEx(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_16F, N, A, CUDA_R_16F,
                                  K, &zero, reinterpret_cast<__half*>(C), CUDA_R_16F, N, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS) std::fprintf(stderr, "cublasGemmEx (f16 out) failed: %d\n", int(s));
}

std::vector<Variant> ladder() {
  return {{"wmma", hgemm_wmma},
          {"mma_unswizzled", hgemm_mma_unswizzled},
          {"mma", hgemm_mma},
          {"cp_async", hgemm_cp_async},
          {"multistage", hgemm_multistage},
          {"fast", hgemm_fast}};
}

// Built with -DG1_NO_SWEEP (LIGHT=1 in benchmarks/h200/g1.sh), the bench has no sweep groups.
std::vector<SweepConfig> sweep_configs() {
  std::vector<SweepConfig> v;
#ifndef G1_NO_SWEEP
  g1_sweep_group_0(v);
  g1_sweep_group_1(v);
  g1_sweep_group_2(v);
  g1_sweep_group_3(v);
  g1_sweep_group_4(v);
#endif
  return v;
}

// N(0,1) halves from a counter-based hash (Box-Muller), generated on the device: fresh inputs for
// every shape without a slow host loop.
__device__ uint32_t hash32(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return static_cast<uint32_t>(x);
}
__global__ void fill_normal(__half* p, int64_t n, uint64_t seed) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const float u1 = (hash32(seed * 0x9e3779b97f4a7c15ULL + 2 * i) + 1.0f) * 2.3283064e-10f;  // (0, 1]
    const float u2 = hash32(seed * 0x9e3779b97f4a7c15ULL + 2 * i + 1) * 2.3283064e-10f;
    p[i] = __float2half(sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2));
  }
}

struct Problem {
  int M, N, K;
  __half *A = nullptr, *B = nullptr;
  float* C = nullptr;
  std::vector<__half> hA, hB;  // host copies, for the reference
  Problem(int m, int n, int k, uint64_t seed) : M(m), N(n), K(k) {
    CK(cudaMalloc(&A, std::max<size_t>(1, size_t(M) * K) * 2));
    CK(cudaMalloc(&B, std::max<size_t>(1, size_t(K) * N) * 2));
    CK(cudaMalloc(&C, std::max<size_t>(1, size_t(M) * N) * 4));
    fill_normal<<<1024, 256>>>(A, int64_t(M) * K, seed);
    fill_normal<<<1024, 256>>>(B, int64_t(K) * N, seed + 1);
    CK(cudaDeviceSynchronize());
    hA.resize(size_t(M) * K);
    hB.resize(size_t(K) * N);
    CK(cudaMemcpy(hA.data(), A, hA.size() * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hB.data(), B, hB.size() * 2, cudaMemcpyDeviceToHost));
  }
  ~Problem() {
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
  }
  double flops() const { return 2.0 * M * N * K; }
};

// The tolerance the tests use (tests/g1_hgemm_test.cu): products of halves are exact in float, and
// K additions in float, in any order and even truncating, are off by at most K·2^-23·Σ|a·b| each;
// twice that for the tensor core's alignment of 17 terms per step.
double tolerance(double sum_abs, int K) { return K * std::ldexp(1.0, -22) * sum_abs + 1e-30; }

struct CheckResult {
  size_t checked = 0, bad = 0, nan = 0;
  double max_err = 0, max_ratio = 0;  // ratio: error / tolerance
  std::string first;
};

// The float64 product at every element (small shapes) or at `samples` random elements plus the
// four corners (large ones), with each element's tolerance; computed once per problem.
struct Reference {
  std::vector<std::pair<int, int>> where;
  std::vector<double> want, tol;
  Reference(const Problem& p, size_t samples) {
    std::vector<double> fa(p.hA.size()), fb(p.hB.size());
    for (size_t i = 0; i < fa.size(); ++i) fa[i] = __half2float(p.hA[i]);
    for (size_t i = 0; i < fb.size(); ++i) fb[i] = __half2float(p.hB[i]);
    if (samples == 0 || size_t(p.M) * p.N <= samples) {
      for (int i = 0; i < p.M; ++i)
        for (int j = 0; j < p.N; ++j) where.push_back({i, j});
    } else {
      std::mt19937 gen(12345);
      for (size_t s = 0; s < samples; ++s) where.push_back({int(gen() % p.M), int(gen() % p.N)});
      where.insert(where.end(), {{0, 0}, {0, p.N - 1}, {p.M - 1, 0}, {p.M - 1, p.N - 1}});
    }
    for (auto [i, j] : where) {
      double sum = 0, sum_abs = 0;
      for (int k = 0; k < p.K; ++k) {
        const double t = fa[size_t(i) * p.K + k] * fb[size_t(k) * p.N + j];
        sum += t;
        sum_abs += std::fabs(t);
      }
      want.push_back(sum);
      tol.push_back(tolerance(sum_abs, p.K));
    }
  }
};

CheckResult check(const Problem& p, const Reference& ref) {
  std::vector<float> got(size_t(p.M) * p.N);
  CK(cudaMemcpy(got.data(), p.C, got.size() * 4, cudaMemcpyDeviceToHost));
  CheckResult r;
  for (size_t e = 0; e < ref.where.size(); ++e) {
    const auto [i, j] = ref.where[e];
    const double g = got[size_t(i) * p.N + j], err = std::fabs(g - ref.want[e]);
    ++r.checked;
    if (std::isnan(g)) ++r.nan;
    if (!(err <= ref.tol[e])) {
      if (r.bad == 0) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "[%d, %d] expected %.6g got %.6g", i, j, ref.want[e], g);
        r.first = buf;
      }
      ++r.bad;
    }
    if (std::isfinite(err)) {
      r.max_err = std::max(r.max_err, err);
      r.max_ratio = std::max(r.max_ratio, err / ref.tol[e]);
    }
  }
  return r;
}

template <class F>
CheckResult run_and_check(F run, Problem& p, const Reference& ref) {
  CK(cudaMemset(p.C, 0xFF, std::max<size_t>(1, size_t(p.M) * p.N) * 4));  // NaN: unwritten elements fail
  run(p.A, p.B, p.C, p.M, p.N, p.K);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    CheckResult r;
    r.bad = 1;
    r.first = std::string("CUDA error: ") + cudaGetErrorString(e);
    return r;
  }
  return check(p, ref);
}

template <class F>
double median_ms(F call, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) call();
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> t(reps);
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a));
    call();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&t[i], a, b));
  }
  CK(cudaGetLastError());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[reps / 2];
}

struct Shape {
  int M, N, K;
};

const std::vector<Shape> kPerfShapes = {{4096, 4096, 4096}, {4096, 2048, 1024}, {8192, 8192, 8192}, {2048, 2048, 2048}};

// Odd shapes on purpose: 1×N, N×1, K = 1, K not a multiple of 8 (the element-load path), tails of
// every tile size, and the tests' multiples of 16 that are not multiples of the block tiles.
const std::vector<Shape> kCheckShapes = {{1, 1, 1},       {1, 300, 17},    {300, 1, 33},    {17, 33, 5},
                                         {33, 17, 1},     {129, 257, 100}, {80, 48, 48},    {256, 128, 16},
                                         {144, 272, 528}, {200, 136, 8192}, {1000, 1500, 64}, {4096, 4096, 4096},
                                         {4096, 2048, 1024}};

int mode_check() {
  int failures = 0;
  std::printf("variant,M,N,K,checked,bad,nan,max_err,max_err_over_tol,first_mismatch\n");
  auto report = [&](const std::string& name, const Shape& s, const CheckResult& r) {
    std::printf("%s,%d,%d,%d,%zu,%zu,%zu,%.3g,%.3g,%s\n", name.c_str(), s.M, s.N, s.K, r.checked, r.bad, r.nan,
                r.max_err, r.max_ratio, r.first.c_str());
    std::fflush(stdout);
    if (r.bad) ++failures;
  };
  for (const Shape& s : kCheckShapes) {
    Problem p(s.M, s.N, s.K, 1000u + s.M * 7 + s.N * 13 + s.K);
    const Reference ref(p, size_t(s.M) * s.N > 300000 ? 4096 : 0);
    for (const Variant& v : ladder()) report(v.name, s, run_and_check(v.run, p, ref));
    report("cublas", s, run_and_check(cublas_f32out, p, ref));
    if (s.M % 16 == 0 && s.N % 16 == 0 && s.K % 16 == 0) {  // the learner's contract
      std::vector<std::pair<const char*, HgemmFn>> learner;
      g1_learner_variants(learner);
      for (const auto& [name, fn] : learner) report(name, s, run_and_check(fn, p, ref));
    }
    // The sweep's configurations take only the aligned path.
    if (s.K % 8 == 0 && s.N % 8 == 0)
      for (const SweepConfig& c : sweep_configs()) report(std::string("sweep_") + c.name, s, run_and_check(c.run, p, ref));
  }
  // All ones: every product and every partial sum is a small integer, exact in float: C = K exactly.
  {
    const int M = 256, N = 384, K = 4096;
    Problem p(M, N, K, 1);
    std::vector<__half> ones(size_t(K) * std::max(M, N), __float2half(1.0f));
    CK(cudaMemcpy(p.A, ones.data(), size_t(M) * K * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(p.B, ones.data(), size_t(K) * N * 2, cudaMemcpyHostToDevice));
    for (const Variant& v : ladder()) {
      CK(cudaMemset(p.C, 0xFF, size_t(M) * N * 4));
      v.run(p.A, p.B, p.C, M, N, K);
      CK(cudaDeviceSynchronize());
      std::vector<float> got(size_t(M) * N);
      CK(cudaMemcpy(got.data(), p.C, got.size() * 4, cudaMemcpyDeviceToHost));
      size_t bad = 0;
      for (float g : got) bad += g != float(K);
      std::printf("%s_ones,%d,%d,%d,%zu,%zu,0,0,0,%s\n", v.name.c_str(), M, N, K, got.size(), bad,
                  bad ? "not exactly K" : "");
      if (bad) ++failures;
    }
  }
  std::fprintf(stderr, "check: %d failing (variant, shape) pairs\n", failures);
  return failures ? 1 : 0;
}

int mode_time(int warmup, int reps) {
  std::printf("variant,M,N,K,median_ms,tflops,pct_cublas\n");
  for (const Shape& s : kPerfShapes) {
    Problem p(s.M, s.N, s.K, 7u + s.M + s.N + s.K);
    auto t = [&](auto fn) { return median_ms([&] { fn(p.A, p.B, p.C, s.M, s.N, s.K); }, warmup, reps); };
    const double cublas_ms = t(cublas_f32out);
    auto row = [&](const std::string& name, double ms) {
      std::printf("%s,%d,%d,%d,%.5f,%.1f,%.1f\n", name.c_str(), s.M, s.N, s.K, ms, p.flops() / ms / 1e9,
                  100.0 * cublas_ms / ms);
      std::fflush(stdout);
    };
    row("cublas", cublas_ms);
    row("cublas_f16out", t(cublas_f16out));
    for (const Variant& v : ladder()) row(v.name, t(v.run));
    row("cublas_again", t(cublas_f32out));  // the bound drifting during the run shows here
  }
  return 0;
}

int mode_sweep(int warmup, int reps) {
  std::printf("config,M,N,K,threads,smem_bytes,median_ms,tflops,pct_cublas\n");
  for (const Shape& s : {kPerfShapes[0], kPerfShapes[1], kPerfShapes[2]}) {
    Problem p(s.M, s.N, s.K, 99u + s.K);
    const double cublas_ms = median_ms([&] { cublas_f32out(p.A, p.B, p.C, s.M, s.N, s.K); }, warmup, reps);
    std::printf("cublas,%d,%d,%d,0,0,%.5f,%.1f,100.0\n", s.M, s.N, s.K, cublas_ms, p.flops() / cublas_ms / 1e9);
    for (const SweepConfig& c : sweep_configs()) {
      const double ms = median_ms([&] { c.run(p.A, p.B, p.C, s.M, s.N, s.K); }, warmup, reps);
      std::printf("%s,%d,%d,%d,%d,%d,%.5f,%.1f,%.1f\n", c.name, s.M, s.N, s.K, c.threads, c.smem_bytes, ms,
                  p.flops() / ms / 1e9, 100.0 * cublas_ms / ms);
      std::fflush(stdout);
    }
  }
  return 0;
}

// mma.sync with operands already in registers: CHAINS independent accumulators per warp, so the
// tensor pipe, not the dependency between mmas, sets the pace. The ceiling of any mma.sync GEMM.
template <int CHAINS>
__global__ void mma_peak_kernel(float* out, int iters) {
  uint32_t a[4];
  for (int i = 0; i < 4; ++i) a[i] = 0x3c003c00u ^ (threadIdx.x * 2654435761u & 0x00ff00ffu);  // halves near 1
  const uint32_t b0 = a[0] ^ 0x00010001u, b1 = a[1] ^ 0x00020002u;
  float acc[CHAINS][4] = {};
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) mma_16816(acc[c], a, b0, b1);
  float s = 0;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  if (s == 12345.0f) out[threadIdx.x] = s;  // never true: keeps the mmas alive
}

int mode_peak() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  float* out;
  CK(cudaMalloc(&out, 4096));
  std::printf("chains,warps_per_block,blocks,iters,median_ms,tflops\n");
  auto run = [&](auto kernel, int chains, int warps, int blocks_per_sm) {
    const int blocks = prop.multiProcessorCount * blocks_per_sm, iters = 4096;
    const double ms = median_ms([&] { kernel<<<blocks, 32 * warps>>>(out, iters); }, 3, 20);
    const double flops = 2.0 * 16 * 8 * 16 * double(chains) * iters * warps * blocks;
    std::printf("%d,%d,%d,%d,%.4f,%.1f\n", chains, warps, blocks, iters, ms, flops / ms / 1e9);
    std::fflush(stdout);
  };
  run(mma_peak_kernel<4>, 4, 8, 1);
  run(mma_peak_kernel<8>, 8, 8, 1);
  run(mma_peak_kernel<8>, 8, 16, 1);
  run(mma_peak_kernel<8>, 8, 4, 1);
  run(mma_peak_kernel<16>, 16, 8, 2);
  cudaFree(out);
  return 0;
}

// One launch of everything at 4096³ (and one cuBLAS call), for ncu: the kernels appear in ladder
// order; the first sweep configuration named on the command line is added last.
int mode_profile(int argc, char** argv) {
  Problem p(4096, 4096, 4096, 5);
  for (const Variant& v : ladder()) v.run(p.A, p.B, p.C, p.M, p.N, p.K);
  cublas_f32out(p.A, p.B, p.C, p.M, p.N, p.K);
  for (int i = 2; i < argc; ++i)
    for (const SweepConfig& c : sweep_configs())
      if (std::strcmp(c.name, argv[i]) == 0) c.run(p.A, p.B, p.C, p.M, p.N, p.K);
  CK(cudaDeviceSynchronize());
  return 0;
}

// Small odd shapes, every variant once: what compute-sanitizer's racecheck and memcheck look at.
int mode_small() {
  int failures = 0;
  for (const Shape& s : {Shape{80, 48, 48}, Shape{129, 257, 100}, Shape{256, 256, 96}}) {
    Problem p(s.M, s.N, s.K, 3);
    const Reference ref(p, 0);
    for (const Variant& v : ladder()) {
      const CheckResult r = run_and_check(v.run, p, ref);
      if (r.bad) {
        std::printf("%s %dx%dx%d: %zu bad %s\n", v.name.c_str(), s.M, s.N, s.K, r.bad, r.first.c_str());
        ++failures;
      }
    }
  }
  std::printf("small: %d failures\n", failures);
  return failures ? 1 : 0;
}

}  // namespace bench

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "check";
  if (mode == "check") return bench::mode_check();
  if (mode == "time") return bench::mode_time(5, 30);
  if (mode == "sweep") return bench::mode_sweep(3, 20);
  if (mode == "peak") return bench::mode_peak();
  if (mode == "profile") return bench::mode_profile(argc, argv);
  if (mode == "small") return bench::mode_small();
  std::fprintf(stderr, "unknown mode %s (check, time, sweep, peak, profile, small)\n", mode.c_str());
  return 2;
}
