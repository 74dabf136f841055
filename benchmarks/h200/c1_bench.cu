// C1 on a GPU: is the grid-stride loop's gain over one element per thread (content/c1.md §4, §9) the
// bytes in flight of its 4x-unrolled loop, or its fewer blocks? Times, at n = 2^28, the reference's
// variants and two controls built from the same code:
//   grid_stride_unroll1  the grid-stride loop with `#pragma unroll 1`: few blocks, 8 bytes in flight
//   four_per_thread      n/1024 blocks, each thread loads 4 elements of a and b (BLOCK apart) before
//                        its 4 stores: many blocks, 32 bytes in flight, like the unrolled loop
// Every variant is checked bit for bit against the host at n = 2^28 and n = 2^28 + 3 (output poisoned).
// With the argument `profile`: two calls of each variant at n = 2^28, for Nsight Compute.
//   nvcc -O3 -arch=sm_90 -std=c++17 benchmarks/h200/c1_bench.cu -o c1_bench && ./c1_bench [profile]
#include <cstring>
#include "../../solutions/c1_vector_add.cu"
#include "bench_util.h"

namespace {

__global__ void grid_stride_unroll1_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                           float* __restrict__ c, int n) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
#pragma unroll 1
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

__global__ void four_per_thread_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, int n) {
  const int64_t first = (int64_t)blockIdx.x * (BLOCK * 4) + threadIdx.x;
  float va[4], vb[4];
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const int64_t i = first + u * BLOCK;
    if (i < n) { va[u] = a[i]; vb[u] = b[i]; }
  }
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const int64_t i = first + u * BLOCK;
    if (i < n) c[i] = va[u] + vb[u];
  }
}

void grid_stride_unroll1(const float* a, const float* b, float* c, int n) {
  const int fill = resident_blocks(grid_stride_unroll1_kernel);
  const int needed = blocks_for(n, BLOCK);
  grid_stride_unroll1_kernel<<<needed < fill ? needed : fill, BLOCK>>>(a, b, c, n);
}

void four_per_thread(const float* a, const float* b, float* c, int n) {
  four_per_thread_kernel<<<blocks_for(n, BLOCK * 4), BLOCK>>>(a, b, c, n);
}

template <class Kernel>
void describe(const char* name, Kernel k, int grid) {
  cudaFuncAttributes attr{};
  CK(cudaFuncGetAttributes(&attr, k));
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, BLOCK, 0));
  std::printf("kernel,%s,registers,%d,resident_blocks_per_sm,%d,grid,%d\n", name, attr.numRegs, per_sm, grid);
}

}  // namespace

int main(int argc, char** argv) {
  using Fn = void (*)(const float*, const float*, float*, int);
  struct Variant { const char* name; Fn fn; };
  const Variant variants[] = {
      {"vector_add (one per thread)", vector_add},
      {"vector_add_grid_stride (loop unrolled 4x)", vector_add_grid_stride},
      {"grid_stride_unroll1 (control)", grid_stride_unroll1},
      {"four_per_thread (control)", four_per_thread},
      {"vector_add_vec4", vector_add_vec4},
      {"vector_add_fast", vector_add_fast},
  };
  int dev = 0;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, dev));
  std::printf("device,%s,sms,%d,l2_bytes,%d\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize);
  const int n0 = 1 << 28;
  describe("add_one_per_thread_kernel", add_one_per_thread_kernel, blocks_for(n0, BLOCK));
  describe("add_grid_stride_kernel", add_grid_stride_kernel, resident_blocks(add_grid_stride_kernel));
  describe("grid_stride_unroll1_kernel", grid_stride_unroll1_kernel, resident_blocks(grid_stride_unroll1_kernel));
  describe("four_per_thread_kernel", four_per_thread_kernel, blocks_for(n0, BLOCK * 4));
  describe("add_vec4_kernel<1>", add_vec4_kernel<1>, blocks_for(n0 / 4, BLOCK));
  describe("add_vec4_kernel<4>", add_vec4_kernel<4>, blocks_for(n0 / 4, BLOCK * 4));

  if (argc > 1 && std::strcmp(argv[1], "profile") == 0) {
    const auto ha = bench::random_floats(n0, 1u), hb = bench::random_floats(n0, 2u);
    float *a = bench::to_device(ha), *b = bench::to_device(hb), *c = nullptr;
    CK(cudaMalloc(&c, (size_t)n0 * sizeof(float)));
    for (int rep = 0; rep < 2; ++rep)
      for (const Variant& v : variants) v.fn(a, b, c, n0);
    CK(cudaDeviceSynchronize());
    std::printf("profiled two calls of each variant at n = %d\n", n0);
    return 0;
  }
  int failures = 0;
  const auto ha = bench::random_floats(n0 + 3, 11u), hb = bench::random_floats(n0 + 3, 23u);
  float *a = bench::to_device(ha), *b = bench::to_device(hb), *c = nullptr;
  CK(cudaMalloc(&c, (size_t)(n0 + 3) * sizeof(float)));
  for (int n : {n0, n0 + 3}) {
    const double add_bytes = 12.0 * n, copy_bytes = 8.0 * n;
    const float memcpy_ms = bench::median_ms([&] { cudaMemcpyAsync(c, a, (size_t)n * 4, cudaMemcpyDeviceToDevice); });
    const double memcpy_gbps = bench::gbps(copy_bytes, memcpy_ms);
    std::printf("n,%d\nvariant,ms,GB/s,pct_memcpy,mismatches\n", n);
    std::printf("cudaMemcpy D2D (8n bytes),%.4f,%.0f,100.0,\n", memcpy_ms, memcpy_gbps);
    const float copy_ms = bench::median_ms([&] { copy_vec4(a, c, n); });
    std::printf("copy_vec4 (8n bytes),%.4f,%.0f,%.1f,\n", copy_ms, bench::gbps(copy_bytes, copy_ms),
                100.0 * bench::gbps(copy_bytes, copy_ms) / memcpy_gbps);
    for (const Variant& v : variants) {
      bench::poison(c, n);
      v.fn(a, b, c, n);
      CK(cudaDeviceSynchronize());
      const auto hc = bench::to_host(c, n);
      long long bad = 0;
      for (int i = 0; i < n; ++i) bad += !(hc[i] == ha[i] + hb[i]);
      failures += bad > 0;
      const float ms = bench::median_ms([&] { v.fn(a, b, c, n); });
      std::printf("%s,%.4f,%.0f,%.1f,%lld\n", v.name, ms, bench::gbps(add_bytes, ms),
                  100.0 * bench::gbps(add_bytes, ms) / memcpy_gbps, bad);
    }
  }
  cudaFree(a); cudaFree(b); cudaFree(c);
  std::printf("failures,%d\n", failures);
  return failures ? 1 : 0;
}
