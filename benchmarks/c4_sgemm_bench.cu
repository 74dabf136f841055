// C4 on a GPU without GoogleTest: every variant of solutions/c4_sgemm.cu and every configuration
// of the tuning sweep checked against a float64 host reference, then timed against cuBLAS SGEMM
// (FP32, no TF32) in the same run. benchmarks/h200/c4.sh builds and runs it; by hand:
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -Xcompiler -fopenmp benchmarks/c4_sgemm_bench.cu \
//        benchmarks/c4_sgemm_sweep.cu -lcublas -lgomp -o /tmp/c4 && /tmp/c4 all /tmp/c4-out
//
// Modes: check DIR | ladder DIR | sweep DIR | all DIR | once VARIANTS M N K.
// CSV files go to DIR. Times are CUDA-event medians after warm-up, on fresh random inputs in
// [-1, 1) (never zero); outputs are poisoned (NaN) before every checked run.
#include <cuda_runtime.h>
#ifndef C4_BENCH_DRY_RUN
#include <cublas_v2.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../solutions/c4_sgemm.cu"
#include "c4_sgemm_sweep.h"

std::vector<SweepConfig>& sweep_registry() {
  static std::vector<SweepConfig> configs;
  return configs;
}

namespace {

#define CK(x)                                                                                         \
  do {                                                                                                \
    cudaError_t e_ = (x);                                                                             \
    if (e_ != cudaSuccess) {                                                                          \
      std::printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, __LINE__, #x);      \
      std::exit(3);                                                                                   \
    }                                                                                                 \
  } while (0)

using Gemm = std::function<void(const float*, const float*, float*, int, int, int)>;

struct Shape {
  int M, N, K;
  std::string name() const { return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K); }
  double flops() const { return 2.0 * M * N * K; }
};

// ---- cuBLAS: the denominator. Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ. ----

#ifdef C4_BENCH_DRY_RUN
// A dry run of this harness on the simulator (no cuBLAS there): sgemm_naive stands in for it and
// the shapes are small. Only the harness's own logic is exercised; no number means anything.
enum cublasMath_t { CUBLAS_DEFAULT_MATH, CUBLAS_PEDANTIC_MATH };
void cublas_sgemm(cublasMath_t, const float* A, const float* B, float* C, int M, int N, int K) {
  sgemm_naive(A, B, C, M, N, K);
}
#else
cublasHandle_t cublas(cublasMath_t mode) {
  static cublasHandle_t handle = nullptr;
  if (!handle && cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublasCreate failed\n");
    std::exit(3);
  }
  cublasSetMathMode(handle, mode);
  return handle;
}

void cublas_sgemm(cublasMath_t mode, const float* A, const float* B, float* C, int M, int N, int K) {
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(cublas(mode), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N);
}
#endif

struct Variant {
  std::string name;
  Gemm fn;
  bool slow;  // one thread per element of C: timed with few repetitions
};

std::vector<Variant> ladder() {
  return {
      {"sgemm_uncoalesced", sgemm_uncoalesced, true},
      {"sgemm_naive", sgemm_naive, true},
      {"sgemm_tiled", sgemm_tiled, true},
      {"sgemm_blocktile_1d", sgemm_blocktile_1d, false},
      {"sgemm_blocktile_2d", sgemm_blocktile_2d, false},
      {"sgemm_vectorized", sgemm_vectorized, false},
      {"sgemm_warptile", sgemm_warptile, false},
      {"sgemm_double_buffered", sgemm_double_buffered, false},
      {"sgemm_fast", sgemm_fast, false},
      {"cublas_default_math",
       [](const float* A, const float* B, float* C, int M, int N, int K) {
         cublas_sgemm(CUBLAS_DEFAULT_MATH, A, B, C, M, N, K);
       },
       false},
      {"cublas_pedantic_math",
       [](const float* A, const float* B, float* C, int M, int N, int K) {
         cublas_sgemm(CUBLAS_PEDANTIC_MATH, A, B, C, M, N, K);
       },
       false},
  };
}

// ---- inputs ----

__global__ void fill_kernel(float* x, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u ^ seed;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    const float v = (float)(h >> 8) * (2.0f / 16777216.0f) - 1.0f;  // [-1, 1) in steps of 2^-23
    x[i] = v == 0.0f ? 0.5f : v;
  }
}

struct Problem {
  Shape s;
  float *A = nullptr, *B = nullptr, *C = nullptr;
  std::vector<float> hA, hB;
  Problem(Shape shape, uint32_t seed, int a_offset = 0) : s(shape) {
    const size_t na = (size_t)s.M * s.K + a_offset, nb = (size_t)s.K * s.N, nc = (size_t)s.M * s.N;
    CK(cudaMalloc(&A, na * 4));
    CK(cudaMalloc(&B, nb * 4));
    CK(cudaMalloc(&C, nc * 4));
    fill_kernel<<<1024, 256>>>(A, na, seed * 7919u + 1);
    fill_kernel<<<1024, 256>>>(B, nb, seed * 7919u + 2);
    CK(cudaDeviceSynchronize());
    base_A = A;
    A += a_offset;  // a_offset floats past the allocation: rows of A no longer 16-byte aligned
  }
  ~Problem() {
    cudaFree(base_A);
    cudaFree(B);
    cudaFree(C);
  }
  void download_inputs() {
    hA.resize((size_t)s.M * s.K);
    hB.resize((size_t)s.K * s.N);
    CK(cudaMemcpy(hA.data(), A, hA.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hB.data(), B, hB.size() * 4, cudaMemcpyDeviceToHost));
  }
  float* base_A = nullptr;
};

// ---- the float64 reference on a set of rows and columns of C (all of C when it is small) ----

struct Reference {
  std::vector<int> rows, cols;      // every element of these rows, and of these columns
  std::vector<double> row_val, row_abs, col_val, col_abs;
};

Reference reference(const Problem& p) {
  const Shape& s = p.s;
  Reference r;
  const bool full = (double)s.M * s.N * s.K <= 1.2e9;
  if (full) {
    for (int i = 0; i < s.M; ++i) r.rows.push_back(i);
  } else {
    // The first and last rows and columns are where the tails are; a few from inside.
    for (int i : {0, 1, s.M / 3, s.M / 2 + 7, s.M - 2, s.M - 1})
      if (i >= 0 && i < s.M && std::find(r.rows.begin(), r.rows.end(), i) == r.rows.end()) r.rows.push_back(i);
    for (int j : {0, 1, s.N / 3, s.N / 2 + 5, s.N - 2, s.N - 1})
      if (j >= 0 && j < s.N && std::find(r.cols.begin(), r.cols.end(), j) == r.cols.end()) r.cols.push_back(j);
  }
  r.row_val.assign(r.rows.size() * s.N, 0.0);
  r.row_abs.assign(r.rows.size() * s.N, 0.0);
#pragma omp parallel for schedule(dynamic)
  for (int ri = 0; ri < (int)r.rows.size(); ++ri) {
    double* v = &r.row_val[(size_t)ri * s.N];
    double* a = &r.row_abs[(size_t)ri * s.N];
    for (int k = 0; k < s.K; ++k) {
      const double x = p.hA[(size_t)r.rows[ri] * s.K + k];
      const float* b = &p.hB[(size_t)k * s.N];
      for (int j = 0; j < s.N; ++j) {
        v[j] += x * b[j];
        a[j] += std::fabs(x * b[j]);
      }
    }
  }
  r.col_val.assign(r.cols.size() * s.M, 0.0);
  r.col_abs.assign(r.cols.size() * s.M, 0.0);
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < s.M; ++i) {
    for (size_t ci = 0; ci < r.cols.size(); ++ci) {
      double v = 0, a = 0;
      for (int k = 0; k < s.K; ++k) {
        const double t = (double)p.hA[(size_t)i * s.K + k] * p.hB[(size_t)k * s.N + r.cols[ci]];
        v += t;
        a += std::fabs(t);
      }
      r.col_val[ci * s.M + i] = v;
      r.col_abs[ci * s.M + i] = a;
    }
  }
  return r;
}

// |C - Ĉ| ≤ γ_K Σ_k |a_ik b_kj|, γ_K = K u / (1 - K u), u = 2^-24: the worst-case bound for a float32
// dot product of length K in any summation order, with or without FMA (content/c4.md derives it).
struct Verdict {
  long checked = 0, bad = 0;
  double worst_units = 0;  // max |C - Ĉ| / (u Σ|a b|): how close to the bound a kernel came
  std::string first_bad;
};

Verdict compare(const Problem& p, const Reference& r, const std::vector<float>& got) {
  const Shape& s = p.s;
  const double u = std::ldexp(1.0, -24), gamma = s.K * u / (1 - s.K * u);
  Verdict v;
  auto one = [&](int i, int j, double want, double abs_sum) {
    const double g = got[(size_t)i * s.N + j], err = std::fabs(g - want);
    ++v.checked;
    if (!(err <= gamma * abs_sum)) {
      if (v.bad++ == 0) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "[%d, %d] expected %.7g got %.7g", i, j, want, g);
        v.first_bad = buf;
      }
    }
    if (abs_sum > 0 && std::isfinite(err)) v.worst_units = std::max(v.worst_units, err / (u * abs_sum));
  };
  for (size_t ri = 0; ri < r.rows.size(); ++ri)
    for (int j = 0; j < s.N; ++j) one(r.rows[ri], j, r.row_val[ri * s.N + j], r.row_abs[ri * s.N + j]);
  for (size_t ci = 0; ci < r.cols.size(); ++ci)
    for (int i = 0; i < s.M; ++i) one(i, r.cols[ci], r.col_val[ci * s.M + i], r.col_abs[ci * s.M + i]);
  return v;
}

Verdict run_and_compare(Problem& p, const Reference& r, const Gemm& fn) {
  CK(cudaMemset(p.C, 0xFF, (size_t)p.s.M * p.s.N * 4));  // NaN: an unwritten element never passes
  fn(p.A, p.B, p.C, p.s.M, p.s.N, p.s.K);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    Verdict v;
    v.bad = 1;
    v.first_bad = std::string("CUDA error ") + cudaGetErrorName(err);
    return v;
  }
  std::vector<float> got((size_t)p.s.M * p.s.N);
  CK(cudaMemcpy(got.data(), p.C, got.size() * 4, cudaMemcpyDeviceToHost));
  return compare(p, r, got);
}

// ---- timing ----

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
};

Timing time_gemm(Problem& p, const Gemm& fn, bool slow) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  auto once = [&] {
    CK(cudaEventRecord(a));
    fn(p.A, p.B, p.C, p.s.M, p.s.N, p.s.K);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    return (double)ms;
  };
  const double first = once();  // warm-up, and a measure of how many repetitions fit
  const int budget_ms = slow ? 400 : 300;
  const int reps = std::max(3, std::min(slow ? 5 : 30, (int)(budget_ms / std::max(first, 1e-3))));
  for (int i = 0; i < (slow ? 0 : 3); ++i) once();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(once());
  std::sort(t.begin(), t.end());
  CK(cudaGetLastError());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return {t[t.size() / 2], t.front(), t.back(), reps};
}

#ifndef C4_BENCH_DRY_RUN
const std::vector<Shape> kPerfShapes = {{4096, 4096, 4096}, {4096, 2048, 1024}, {4095, 2047, 1023}, {128, 4096, 4096}};

// Shapes for correctness: every tail, 1×N, N×1, K = 1, odd and aligned, and the perf shapes.
const std::vector<Shape> kCheckShapes = {{1, 1, 1},       {1, 1000, 33},   {1000, 1, 31},  {7, 33, 1},
                                         {97, 128, 257},  {257, 1000, 97}, {128, 257, 1000}, {1031, 999, 1023},
                                         {1024, 1024, 1024}};
constexpr int kSweepCheckMin = 999, kSweepCheckMax = 1031;  // the sweep is checked on the 1000-ish shapes
#else
const std::vector<Shape> kPerfShapes = {{128, 128, 64}, {127, 65, 63}};
const std::vector<Shape> kCheckShapes = {{1, 1, 1}, {7, 33, 1}, {97, 128, 33}, {130, 129, 67}, {128, 128, 128}};
constexpr int kSweepCheckMin = 128, kSweepCheckMax = 130;
#endif

FILE* open_csv(const std::string& dir, const char* name, const char* header) {
  const std::string path = dir + "/" + name;
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::printf("cannot write %s\n", path.c_str());
    std::exit(2);
  }
  std::fprintf(f, "%s\n", header);
  return f;
}

int check_mode(const std::string& dir) {
  FILE* f = open_csv(dir, "check.csv", "variant,shape,a_offset,checked,bad,worst_err_in_u_sum_abs,bound_in_u_sum_abs,first_bad");
  int failures = 0;
  std::vector<Shape> shapes = kCheckShapes;
  shapes.insert(shapes.end(), kPerfShapes.begin(), kPerfShapes.end());
  for (const Shape& s : shapes) {
    for (int offset : {0, 1}) {
      if (offset == 1 && (double)s.M * s.N * s.K > 2e9) continue;  // the misaligned case on small shapes
      Problem p(s, s.M * 31u + s.N * 7u + s.K, offset);
      p.download_inputs();
      const Reference r = reference(p);
      auto report = [&](const std::string& name, const Verdict& v) {
        std::fprintf(f, "%s,%s,%d,%ld,%ld,%.3f,%d,%s\n", name.c_str(), s.name().c_str(), offset, v.checked, v.bad,
                     v.worst_units, s.K, v.first_bad.c_str());
        if (v.bad) {
          ++failures;
          std::printf("FAIL %s on %s (A offset %d): %ld of %ld wrong, first %s\n", name.c_str(), s.name().c_str(),
                      offset, v.bad, v.checked, v.first_bad.c_str());
        }
      };
      for (const Variant& var : ladder()) {
        if (var.slow && s.flops() > 2.0 * 4096 * 4096 * 4096 / 8 && var.name == "sgemm_uncoalesced") continue;
        report(var.name, run_and_compare(p, r, var.fn));
      }
      // The sweep's configurations on the odd and the aligned 1000-ish shapes (and the misaligned A).
      if (s.M >= kSweepCheckMin && s.N >= kSweepCheckMin && s.K >= 64 && s.M <= kSweepCheckMax)
        for (const SweepConfig& c : sweep_registry())
          for (const std::pair<int, int> order : {std::pair{1, 1}, std::pair{8, 1}, std::pair{1, 3}}) {
            const int group = order.first, slices = order.second;
            report("sweep:" + c.name + "_g" + std::to_string(group) + "_k" + std::to_string(slices),
                   run_and_compare(p, r, [&](const float* A, const float* B, float* C, int M, int N, int K) {
                     c.run(A, B, C, M, N, K, group, slices);
                   }));
          }
    }
    std::fflush(f);
  }
  std::fclose(f);
  std::printf("check: %d failing (variant, shape) pairs; see check.csv\n", failures);
  return failures ? 1 : 0;
}

int ladder_mode(const std::string& dir) {
  FILE* f = open_csv(dir, "ladder.csv", "variant,shape,median_ms,min_ms,max_ms,reps,tflops,pct_cublas");
  for (const Shape& s : kPerfShapes) {
    Problem p(s, s.M + s.N + s.K);
    const Timing cb = time_gemm(p, ladder()[9].fn, false);  // cublas_default_math: the denominator
    for (const Variant& v : ladder()) {
      const Timing t = v.name == "cublas_default_math" ? cb : time_gemm(p, v.fn, v.slow);
      const double tflops = s.flops() / (t.median_ms * 1e-3) / 1e12;
      std::fprintf(f, "%s,%s,%.4f,%.4f,%.4f,%d,%.2f,%.1f\n", v.name.c_str(), s.name().c_str(), t.median_ms, t.min_ms,
                   t.max_ms, t.reps, tflops, 100.0 * cb.median_ms / t.median_ms);
      std::printf("%-24s %-16s %9.3f ms %7.2f TFLOP/s %6.1f%% of cuBLAS\n", v.name.c_str(), s.name().c_str(),
                  t.median_ms, tflops, 100.0 * cb.median_ms / t.median_ms);
      std::fflush(stdout);
    }
    std::fflush(f);
  }
  std::fclose(f);
  return 0;
}

int sweep_mode(const std::string& dir) {
  FILE* f = open_csv(dir, "sweep.csv", "config,group,slices,threads,shape,median_ms,tflops,pct_cublas");
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (const Shape& s : kPerfShapes) {
    Problem p(s, 3 * s.M + s.N + s.K);
    const Timing cb = time_gemm(p, ladder()[9].fn, false);
    std::string best;
    double best_ms = 1e30;
    // Few tiles of C (128×4096): split K instead of ordering the launch.
    const bool few_tiles = (double)s.M * s.N < 2.0 * sms * 128 * 128;
    std::vector<std::pair<int, int>> orders;  // (group, slices)
    for (int group : {1, 4, 8, 16})
      if (!few_tiles || group == 1 || group == 8)
        for (int slices : {1, 2, 4, 8})
          if (slices == 1 || few_tiles) orders.push_back({group, slices});
    for (const SweepConfig& c : sweep_registry())
      for (const auto& order : orders) {
        const int group = order.first, slices = order.second;
        const Timing t = time_gemm(
            p,
            [&](const float* A, const float* B, float* C, int M, int N, int K) {
              c.run(A, B, C, M, N, K, group, slices);
            },
            false);
        std::fprintf(f, "%s,%d,%d,%d,%s,%.4f,%.2f,%.1f\n", c.name.c_str(), group, slices, c.threads,
                     s.name().c_str(), t.median_ms, s.flops() / (t.median_ms * 1e-3) / 1e12,
                     100.0 * cb.median_ms / t.median_ms);
        if (t.median_ms < best_ms)
          best_ms = t.median_ms,
          best = c.name + " group " + std::to_string(group) + " slices " + std::to_string(slices);
      }
    std::printf("sweep %-16s best %s: %.3f ms, %.1f%% of cuBLAS (%.3f ms)\n", s.name().c_str(), best.c_str(), best_ms,
                100.0 * cb.median_ms / best_ms, cb.median_ms);
    std::fflush(f);
  }
  std::fclose(f);
  return 0;
}

// Variants (a comma-separated list, or "all", or "kernels" = all but cuBLAS) once each on one
// shape, each checked when the shape is small: what ncu and compute-sanitizer look at.
int once_mode(const std::string& which, Shape s) {
  Problem p(s, 11);
  const bool small = (double)s.M * s.N * s.K <= 1.2e9;
  Reference r;
  if (small) {
    p.download_inputs();
    r = reference(p);
  }
  int bad = 0, ran = 0;
  for (const Variant& v : ladder()) {
    const bool is_cublas = v.name.rfind("cublas", 0) == 0;
    const bool wanted = which == "all" || (which == "kernels" && !is_cublas) ||
                        ("," + which + ",").find("," + v.name + ",") != std::string::npos;
    if (!wanted) continue;
    ++ran;
    if (small) {
      const Verdict verdict = run_and_compare(p, r, v.fn);
      std::printf("%-24s %s: %ld of %ld wrong %s\n", v.name.c_str(), s.name().c_str(), verdict.bad, verdict.checked,
                  verdict.first_bad.c_str());
      bad += verdict.bad != 0;
    } else {
      CK(cudaMemset(p.C, 0xFF, (size_t)s.M * s.N * 4));
      v.fn(p.A, p.B, p.C, s.M, s.N, s.K);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::printf("%-24s %s: ran\n", v.name.c_str(), s.name().c_str());
    }
  }
  if (ran == 0) {
    std::printf("no variant matches %s\n", which.c_str());
    return 2;
  }
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::printf("usage: %s check|ladder|sweep|all DIR  |  %s once VARIANTS M N K\n", argv[0], argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, %d SMs; %zu sweep configurations\n", prop.name, prop.multiProcessorCount,
              sweep_registry().size());
  if (mode == "once" && argc >= 6) return once_mode(argv[2], {std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5])});
  const std::string dir = argv[2];
  if (mode == "check") return check_mode(dir);
  if (mode == "ladder") return ladder_mode(dir);
  if (mode == "sweep") return sweep_mode(dir);
  if (mode == "all") {
    const int c = check_mode(dir);
    ladder_mode(dir);
    sweep_mode(dir);
    return c;
  }
  std::printf("unknown mode %s\n", mode.c_str());
  return 2;
}
