// C2 on a GPU: the reduction ladder (content/c2.md §2-§8) timed at n = 2^28 against cudaMemcpy in
// the same run, every variant checked against a double-precision host sum with the tests' tolerance;
// and, with the argument `profile`, one call of each ladder step at n = 2^24 for Nsight Compute
// (benchmarks/h200/chapters.sh runs ncu on it: instructions issued per warp, shared wavefronts, time).
//   nvcc -O3 -arch=sm_90 -std=c++17 benchmarks/h200/c2_bench.cu -o c2_bench && ./c2_bench [profile]
#include <cmath>
#include <cstring>
#include "../../solutions/c2_reduction.cu"
#include "bench_util.h"

int main(int argc, char** argv) {
  using Fn = void (*)(const float*, float*, int);
  struct Variant { const char* name; Fn fn; };
  const Variant variants[] = {
      {"reduce_interleaved_divergent", reduce_interleaved_divergent},
      {"reduce_interleaved_strided", reduce_interleaved_strided},
      {"reduce_sequential", reduce_sequential},
      {"reduce_first_add", reduce_first_add},
      {"reduce_warp_shuffle", reduce_warp_shuffle},
      {"reduce_grid_stride", reduce_grid_stride},
      {"reduce_atomic", reduce_atomic},
      {"reduce_sum", reduce_sum},
  };
  const bool profile = argc > 1 && std::strcmp(argv[1], "profile") == 0;
  const int n = profile ? 1 << 24 : 1 << 28;
  const auto hx = bench::random_floats(n, 77u);
  float* x = bench::to_device(hx);
  float *out = nullptr, *y = nullptr;
  CK(cudaMalloc(&out, sizeof(float)));
  if (profile) {
    for (const Variant& v : variants) v.fn(x, out, n);
    CK(cudaDeviceSynchronize());
    std::printf("profiled one call of each variant at n = %d\n", n);
    return 0;
  }
  CK(cudaMalloc(&y, (size_t)n * sizeof(float)));
  double exact = 0, abs_sum = 0;
  for (float v : hx) { exact += v; abs_sum += std::fabs(v); }
  const double u = std::ldexp(1.0, -24);
  const double tol = 8.0 * std::sqrt((double)n) * u * abs_sum + u * std::fabs(exact);
  const float memcpy_ms = bench::median_ms([&] { cudaMemcpyAsync(y, x, (size_t)n * 4, cudaMemcpyDeviceToDevice); });
  const double memcpy_gbps = bench::gbps(8.0 * n, memcpy_ms);
  std::printf("n,%d\nvariant,ms,GB/s,pct_memcpy,error,tolerance\n", n);
  std::printf("cudaMemcpy D2D (8n bytes),%.4f,%.0f,100.0,,\n", memcpy_ms, memcpy_gbps);
  const float copy_ms = bench::median_ms([&] { copy_vec4(x, y, n); });
  std::printf("copy_vec4 (8n bytes),%.4f,%.0f,%.1f,,\n", copy_ms, bench::gbps(8.0 * n, copy_ms),
              100.0 * bench::gbps(8.0 * n, copy_ms) / memcpy_gbps);
  int failures = 0;
  for (const Variant& v : variants) {
    bench::poison(out, 1);
    v.fn(x, out, n);
    CK(cudaDeviceSynchronize());
    float got = bench::to_host(out, 1)[0];
    const double err = std::fabs(got - exact);
    failures += !(err <= tol);
    const float ms = bench::median_ms([&] { v.fn(x, out, n); });
    std::printf("%s,%.4f,%.0f,%.1f,%.3g,%.3g\n", v.name, ms, bench::gbps(4.0 * n, ms),
                100.0 * bench::gbps(4.0 * n, ms) / memcpy_gbps, err, tol);
  }
  std::printf("failures,%d\n", failures);
  return failures ? 1 : 0;
}
