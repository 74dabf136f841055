// C5 on a GPU, standalone (no GoogleTest): checks every softmax of solutions/c5_softmax.cu and every
// configuration of the tuning sweep against a float64 host reference, times them against the copy
// kernel and cudaMemcpy of the same shape in the same run, and runs one variant once for ncu.
//
//   nvcc -arch=sm_90 -O3 -std=c++17 -o c5_bench benchmarks/c5_softmax_bench.cu
//   ./c5_bench check [MAX]           every variant and sweep configuration, odd shapes included
//                                    (shapes of at most MAX elements: the simulator takes 1 << 17)
//   ./c5_bench time [REPS]           CSV: shape, name, kind, ms (median), GB/s, % of copy kernel, % of memcpy
//   ./c5_bench one NAME ROWSxCOLS    NAME once at that shape (for ncu / compute-sanitizer)
//   ./c5_bench sanitize              every variant once on small shapes (for compute-sanitizer)
//   ./c5_bench plan                  the sweep configurations `time` measures at each perf shape
//   ./c5_bench info                  device limits (L2 size, SMs, registers) and resident blocks
//
// Bytes per call = x read once + y written once = 2 * rows * cols * 4, whatever a variant reads.
#include "../solutions/c5_softmax.cu"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace bench {

using Fn = void (*)(const float*, float*, int, int);

#define CHECK_CUDA(call)                                                                           \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// ---- what is measured ----

struct Entry {
  std::string name;
  std::string kind;  // ladder | sweep | bound
  Fn fn;
  int vec;       // 4: needs cols % 4 == 0 (and 16-byte aligned rows)
  int capacity;  // floats of a row one lane group / one block holds (0: any width)
  bool lanes;    // lane-group kernel: a row must fit in capacity
  int (*resident)();  // block kernel: blocks the GPU holds at once (a split row may not need more)
  bool shifted = false;  // float4 in the middle of rows that start off 16-byte boundaries
};

int unlimited() { return 1 << 30; }
template <int T, int V, int C>
int resident_of() {
  return resident_blocks(block_rows_kernel<T, V, C>, T);
}

std::vector<Entry> ladder() {
  return {{"softmax_naive", "ladder", softmax_naive, 1, 0, false, unlimited},
          {"softmax_online", "ladder", softmax_online, 1, 0, false, unlimited},
          {"softmax_by_width", "ladder", softmax_by_width, 1, 0, false, unlimited},
          {"softmax_registers", "ladder", softmax_registers, 1, 0, false, unlimited},
          {"softmax_split", "ladder", softmax_split, 1, 0, false, unlimited},
          {"softmax_fast", "ladder", softmax_fast, 1, 0, false, unlimited},
          {"copy_vec4", "bound", copy_vec4, 1, 0, false, unlimited}};
}

template <int L, int V, int C>
Entry lanes_cfg() {
  return {"lanes L" + std::to_string(L) + " v" + std::to_string(V) + " c" + std::to_string(C), "sweep",
          launch_lane_groups<L, V, C>, V, L * V * C, true, unlimited};
}
template <int T, int V, int C>
Entry block_cfg() {
  return {"block T" + std::to_string(T) + " v" + std::to_string(V) + " c" + std::to_string(C), "sweep",
          launch_block_rows<T, V, C>, V, T * V * C, false, resident_of<T, V, C>};
}

template <int T, int C>
Entry shifted_cfg() {
  Entry e{"shifted T" + std::to_string(T) + " c" + std::to_string(C), "sweep", launch_shifted_rows<T, C>, 4, T * 4 * C,
          false, unlimited};
  e.shifted = true;
  return e;
}

// The knobs: lanes per row and values per lane for short rows; threads per block and values per
// thread (so the segment length, so the blocks per row) for long rows; float4 or scalar.
std::vector<Entry> sweep() {
  return {
      lanes_cfg<4, 4, 8>(),      lanes_cfg<8, 4, 4>(),      lanes_cfg<16, 4, 2>(),     lanes_cfg<32, 4, 1>(),
      lanes_cfg<8, 4, 8>(),      lanes_cfg<16, 4, 4>(),     lanes_cfg<32, 4, 2>(),     lanes_cfg<16, 4, 16>(),
      lanes_cfg<32, 4, 8>(),     lanes_cfg<32, 1, 32>(),    lanes_cfg<32, 1, 4>(),
      block_cfg<128, 4, 2>(),    block_cfg<256, 4, 1>(),    block_cfg<128, 4, 4>(),    block_cfg<256, 4, 2>(),
      block_cfg<128, 4, 8>(),    block_cfg<256, 4, 4>(),    block_cfg<512, 4, 2>(),    block_cfg<1024, 4, 1>(),
      block_cfg<256, 4, 8>(),    block_cfg<512, 4, 4>(),    block_cfg<1024, 4, 2>(),   block_cfg<512, 4, 8>(),
      block_cfg<1024, 4, 4>(),   block_cfg<512, 4, 16>(),   block_cfg<1024, 4, 8>(),
      block_cfg<128, 1, 33>(),   block_cfg<256, 1, 17>(),   block_cfg<512, 1, 9>(),    block_cfg<1024, 1, 5>(),
      block_cfg<1024, 1, 8>(),   block_cfg<512, 1, 16>(),   block_cfg<1024, 1, 16>(),
      shifted_cfg<1024, 1>(),    shifted_cfg<512, 2>(),     shifted_cfg<256, 4>(),     shifted_cfg<128, 8>(),
      shifted_cfg<1024, 2>(),    shifted_cfg<512, 4>(),
  };
}

// Whether a sweep configuration takes this shape the way its name says (no fallback, not absurd).
bool applies(const Entry& e, int rows, int cols) {
  (void)rows;
  if (e.kind != "sweep") return true;
  if (e.shifted) return cols % 4 != 0 && cols / 4 * 4 <= e.capacity && e.capacity <= 4 * cols;
  if (e.vec == 4 && cols % 4 != 0) return false;
  if (e.vec == 1 && cols % 4 == 0 && cols >= 4096) return false;  // float4 is possible: scalar is not a candidate
  if (e.lanes) return cols <= e.capacity && e.capacity <= 4 * cols;
  const int segments = (cols + e.capacity - 1) / e.capacity;
  if (segments == 1) return e.capacity <= 4 * cols && e.capacity * 4 >= cols;
  return segments <= 256 && segments <= e.resident();
}

// ---- inputs and reference ----

__global__ void fill_kernel(float* x, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed ^ static_cast<uint32_t>(i >> 32) * 40503u;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
    const float v = (h >> 8) * (2.0f / 16777216.0f) - 1.0f;  // [-1, 1)
    x[i] = v == 0.0f ? 0.5f : v;
  }
}

void fill(float* x, int64_t n, uint32_t seed) {
  fill_kernel<<<1024, 256>>>(x, n, seed);
  CHECK_CUDA(cudaGetLastError());
}

double eps(double n, double t) { return std::ldexp(64.0 + 1.2 * (t + std::log(n) + 1.0), -23) + std::ldexp(std::sqrt(n), -21); }

// Worst |got - want| / tolerance over the matrix (> 1: wrong), as tests/c5_softmax_test.cu judges.
double worst_error(const std::vector<float>& x, const std::vector<float>& y, int rows, int cols, std::string& first) {
  double worst = 0;
  for (int r = 0; r < rows; ++r) {
    const float* xr = x.data() + (size_t)r * cols;
    const float* yr = y.data() + (size_t)r * cols;
    double m = -INFINITY, d = 0;
    for (int c = 0; c < cols; ++c) m = std::max(m, (double)xr[c]);
    for (int c = 0; c < cols; ++c) d += std::exp(xr[c] - m);
    for (int c = 0; c < cols; ++c) {
      const double w = std::exp(xr[c] - m) / d, g = yr[c];
      const double tol = (w > 0 ? w * eps(cols, m - xr[c]) : 0.0) + std::ldexp(1.0, -126);
      const double err = std::isnan(w) ? (std::isnan(g) ? 0 : INFINITY) : (std::isnan(g) ? INFINITY : std::fabs(g - w) / tol);
      if (err > worst) {
        worst = err;
        if (err > 1 && first.empty()) {
          char buf[160];
          std::snprintf(buf, sizeof buf, "[%d, %d] expected %.9g got %.9g", r, c, w, g);
          first = buf;
        }
      }
    }
  }
  return worst;
}

// ---- modes ----

struct Shape {
  int rows, cols;
};

std::vector<float> host_input(const Shape& s, uint32_t seed, const char* kind) {
  const size_t n = (size_t)s.rows * s.cols;
  std::vector<float> x(n);
  uint32_t state = seed * 747796405u + 1;
  for (size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    float v = ((state >> 8) * (2.0f / 16777216.0f)) - 1.0f;
    x[i] = v == 0.0f ? 0.5f : v;
  }
  for (int r = 0; r < s.rows; ++r)
    for (int c = 0; c < s.cols; ++c) {
      float& v = x[(size_t)r * s.cols + c];
      if (!std::strcmp(kind, "scaled")) v *= 1000.0f;
      if (!std::strcmp(kind, "neginf") && ((r * 31 + c) % 5 == 0 || (s.rows > 1 && r == s.rows - 1))) v = -INFINITY;
      if (!std::strcmp(kind, "latemax") && c >= s.cols - s.cols / 4) v += 8.0f;
    }
  return x;
}

int check_mode(long long max_elements) {
  const Shape shapes[] = {{1, 1},    {7, 1},    {1, 31},   {65, 32},  {3, 33},   {300, 128}, {40, 513},
                          {9, 1024}, {5, 4097}, {3, 8192}, {2, 16384}, {2, 65536}, {3, 262147}, {2, 1048576}};
  const char* kinds[] = {"uniform", "scaled", "neginf", "latemax"};
  std::vector<Entry> all = ladder();
  for (const Entry& e : sweep()) all.push_back(e);
  int failures = 0;
  std::printf("name,shape,inputs,offset,worst_error_over_tolerance,status,first_mismatch\n");
  for (const Shape& s : shapes) {
    const size_t n = (size_t)s.rows * s.cols;
    if ((long long)n > max_elements) continue;
    float *dx, *dy;
    CHECK_CUDA(cudaMalloc(&dx, (n + 4) * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dy, (n + 4) * sizeof(float)));
    for (const char* kind : kinds) {
      const std::vector<float> x = host_input(s, s.rows * 131u + s.cols, kind);
      for (const Entry& e : all) {
        if (e.kind == "bound") continue;
        if (e.kind == "sweep" && e.shifted && s.cols / 4 * 4 > e.capacity) continue;
        if (e.kind == "sweep" && !e.shifted && !(e.vec == 4 ? s.cols % 4 == 0 : true)) continue;
        if (e.kind == "sweep" && e.lanes && s.cols > e.capacity) continue;
        for (int offset : {0, 1}) {  // offset 1: rows one float past 16 bytes (fast must go scalar)
          if (offset && e.name != "softmax_fast" && !e.shifted) continue;
          CHECK_CUDA(cudaMemcpy(dx + offset, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
          CHECK_CUDA(cudaMemset(dy, 0xFF, (n + 4) * sizeof(float)));  // poison: NaN
          e.fn(dx + offset, dy + offset, s.rows, s.cols);
          cudaError_t err = cudaGetLastError();
          if (err == cudaSuccess) err = cudaDeviceSynchronize();
          std::string first;
          double worst = INFINITY;
          if (err == cudaSuccess) {
            std::vector<float> y(n);
            CHECK_CUDA(cudaMemcpy(y.data(), dy + offset, n * sizeof(float), cudaMemcpyDeviceToHost));
            worst = worst_error(x, y, s.rows, s.cols, first);
          } else {
            first = cudaGetErrorString(err);
          }
          const bool ok = worst <= 1;
          failures += !ok;
          std::printf("%s,%dx%d,%s,%d,%.4g,%s,%s\n", e.name.c_str(), s.rows, s.cols, kind, offset, worst,
                      ok ? "pass" : "FAIL", first.c_str());
          if (err != cudaSuccess) std::exit(2);  // a fault is sticky: nothing after it is meaningful
        }
      }
    }
    CHECK_CUDA(cudaFree(dx));
    CHECK_CUDA(cudaFree(dy));
  }
  std::fprintf(stderr, "check: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}

float median_ms(const std::function<void()>& call, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) call();
  CHECK_CUDA(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t(reps);
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a);
    call();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    cudaEventElapsedTime(&t[i], a, b);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  CHECK_CUDA(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[reps / 2];
}

const Shape kPerfShapes[] = {{4096, 8192}, {16384, 16384}, {65536, 1024}, {262144, 128},
                             {1024, 65536}, {64, 1048576}, {8192, 4097}};

int time_mode(int reps) {
  std::printf("shape,name,kind,ms,gbps,pct_copy_kernel,pct_memcpy\n");
  for (const Shape& s : kPerfShapes) {
    const int64_t n = (int64_t)s.rows * s.cols;
    const double bytes = 2.0 * n * sizeof(float);
    float *dx, *dy;
    CHECK_CUDA(cudaMalloc(&dx, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dy, n * sizeof(float)));
    fill(dx, n, 12345u + s.cols);
    const float copy_ms = median_ms([&] { copy_vec4(dx, dy, s.rows, s.cols); }, 5, reps);
    const float memcpy_ms =
        median_ms([&] { cudaMemcpyAsync(dy, dx, n * sizeof(float), cudaMemcpyDeviceToDevice); }, 5, reps);
    auto row = [&](const std::string& name, const std::string& kind, float ms) {
      const double gbps = bytes / (ms * 1e-3) / 1e9;
      std::printf("%dx%d,%s,%s,%.4f,%.0f,%.1f,%.1f\n", s.rows, s.cols, name.c_str(), kind.c_str(), ms, gbps,
                  100.0 * copy_ms / ms, 100.0 * memcpy_ms / ms);
      std::fflush(stdout);
    };
    row("copy_vec4", "bound", copy_ms);
    row("cudaMemcpy", "bound", memcpy_ms);
    std::vector<Entry> all = ladder();
    for (const Entry& e : sweep()) all.push_back(e);
    uint32_t seed = 1;
    for (const Entry& e : all) {
      if (e.kind == "bound" || !applies(e, s.rows, s.cols)) continue;
      fill(dx, n, 777u * seed++ + s.rows);  // fresh random input for each variant
      row(e.name, e.kind, median_ms([&] { e.fn(dx, dy, s.rows, s.cols); }, 3, reps));
    }
    CHECK_CUDA(cudaFree(dx));
    CHECK_CUDA(cudaFree(dy));
  }
  return 0;
}

// The device's limits the chapter reasons with.
int info_mode() {
  cudaDeviceProp p;
  CHECK_CUDA(cudaGetDeviceProperties(&p, 0));
  std::printf("name=%s sms=%d l2_bytes=%d regs_per_sm=%d max_threads_per_sm=%d smem_per_sm=%zu "
              "smem_per_block_optin=%zu mem_bus_bits=%d\n",
              p.name, p.multiProcessorCount, p.l2CacheSize, p.regsPerMultiprocessor, p.maxThreadsPerMultiProcessor,
              p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin, p.memoryBusWidth);
  std::printf("resident blocks (whole GPU) of block_rows_kernel<1024,4,4>: %d, <512,4,8>: %d, <256,4,8>: %d\n",
              resident_blocks(block_rows_kernel<1024, 4, 4>, 1024), resident_blocks(block_rows_kernel<512, 4, 8>, 512),
              resident_blocks(block_rows_kernel<256, 4, 8>, 256));
  return 0;
}

// What `time` will measure at each perf shape (no kernel runs).
int plan_mode() {
  for (const Shape& s : kPerfShapes) {
    std::printf("%dx%d:", s.rows, s.cols);
    for (const Entry& e : sweep())
      if (applies(e, s.rows, s.cols)) std::printf(" [%s]", e.name.c_str());
    std::printf("\n");
  }
  return 0;
}

Fn find_fn(const std::string& name) {
  for (const Entry& e : ladder())
    if (e.name == name) return e.fn;
  for (const Entry& e : sweep())
    if (e.name == name) return e.fn;
  return nullptr;
}

int one_mode(const std::string& name, const char* shape) {
  Shape s{};
  if (std::sscanf(shape, "%dx%d", &s.rows, &s.cols) != 2) return 2;
  Fn fn = find_fn(name);
  if (!fn) {
    std::fprintf(stderr, "unknown variant %s\n", name.c_str());
    return 2;
  }
  const int64_t n = (int64_t)s.rows * s.cols;
  float *dx, *dy;
  CHECK_CUDA(cudaMalloc(&dx, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dy, n * sizeof(float)));
  fill(dx, n, 99u);
  CHECK_CUDA(cudaDeviceSynchronize());
  fn(dx, dy, s.rows, s.cols);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(dx));
  CHECK_CUDA(cudaFree(dy));
  return 0;
}

int sanitize_mode() {
  const Shape shapes[] = {{3, 33}, {40, 513}, {5, 4097}, {2, 65536}};
  for (const Shape& s : shapes) {
    const int64_t n = (int64_t)s.rows * s.cols;
    float *dx, *dy;
    CHECK_CUDA(cudaMalloc(&dx, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dy, n * sizeof(float)));
    fill(dx, n, 5u);
    for (const Entry& e : ladder()) e.fn(dx, dy, s.rows, s.cols);
    log_softmax_online(dx, dy, s.rows, s.cols);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaFree(dx));
    CHECK_CUDA(cudaFree(dy));
  }
  std::printf("sanitize: every variant ran on 3x33, 40x513, 5x4097, 2x65536\n");
  return 0;
}

}  // namespace bench

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "check") return bench::check_mode(argc > 2 ? std::atoll(argv[2]) : 1LL << 40);
  if (mode == "time") return bench::time_mode(argc > 2 ? std::atoi(argv[2]) : 20);
  if (mode == "one" && argc > 3) return bench::one_mode(argv[2], argv[3]);
  if (mode == "sanitize") return bench::sanitize_mode();
  if (mode == "plan") return bench::plan_mode();
  if (mode == "info") return bench::info_mode();
  std::fprintf(stderr, "usage: %s check [MAX] | time [REPS] | one NAME ROWSxCOLS | sanitize | plan | info\n", argv[0]);
  return 2;
}
