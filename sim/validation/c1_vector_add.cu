// Counter validation (issue 14): C1's vector adds (solutions/c1_vector_add.cu) on n = 2^20 + 3
// floats, the vectors starting one float past a 16-byte boundary, so the float4 kernels have a head
// of 3 and a tail of 0, and the bounds checks switch off part of the last warp.
// Self-contained: build with nvcc -O3 -arch=sm_90 -lineinfo, or run with `judge.py sim-run`.
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "check.h"
#include "outputs.h"

constexpr int N = (1 << 20) + 3;
constexpr int BLOCK = 256;

__global__ void add_one_per_thread(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void add_grid_stride(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

template <int UNROLL>
__global__ void add_vec4(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n, int head) {
  const int64_t nvec = (n - head) / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a + head);
  const float4* b4 = reinterpret_cast<const float4*>(b + head);
  float4* c4 = reinterpret_cast<float4*>(c + head);
  const int64_t first = (int64_t)blockIdx.x * (BLOCK * UNROLL) + threadIdx.x;
  float4 va[UNROLL], vb[UNROLL];
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    const int64_t i = first + u * BLOCK;
    if (i < nvec) {
      va[u] = a4[i];
      vb[u] = b4[i];
    }
  }
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    const int64_t i = first + u * BLOCK;
    if (i < nvec) c4[i] = make_float4(va[u].x + vb[u].x, va[u].y + vb[u].y, va[u].z + vb[u].z, va[u].w + vb[u].w);
  }
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t tail = head + 4 * nvec;
  if (t < head) c[t] = a[t] + b[t];
  if (t < n - tail) c[tail + t] = a[tail + t] + b[tail + t];
}

int main() {
  std::vector<float> a(N), b(N), c(N);
  for (int i = 0; i < N; ++i) a[i] = (float)(i % 1000), b[i] = (float)(i % 7);
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  const size_t bytes = (N + 4) * sizeof(float);
  CK(cudaMalloc(&da, bytes));
  CK(cudaMalloc(&db, bytes));
  CK(cudaMalloc(&dc, bytes));
  float *a1 = da + 1, *b1 = db + 1, *c1 = dc + 1;  // 4 bytes past a 16-byte boundary: head = 3
  CK(cudaMemcpy(a1, a.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(b1, b.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  const int head = 3, blocks = (N + BLOCK - 1) / BLOCK;
  bool ok = true;
  for (int variant = 0; variant < 4; ++variant) {
    CK(cudaMemset(dc, 0xff, bytes));
    const char* name = "";
    switch (variant) {
      case 0: name = "add_one_per_thread"; add_one_per_thread<<<blocks, BLOCK>>>(a1, b1, c1, N); break;
      case 1: name = "add_grid_stride"; add_grid_stride<<<132 * 8, BLOCK>>>(a1, b1, c1, N); break;
      case 2: name = "add_vec4<1>"; add_vec4<1><<<((N - head) / 4 + BLOCK - 1) / BLOCK, BLOCK>>>(a1, b1, c1, N, head); break;
      case 3: name = "add_vec4<4>"; add_vec4<4><<<((N - head) / 4 + 4 * BLOCK - 1) / (4 * BLOCK), BLOCK>>>(a1, b1, c1, N, head); break;
    }
    CK(cudaGetLastError());
    CK(cudaMemcpy(c.data(), c1, N * sizeof(float), cudaMemcpyDeviceToHost));
    // The whole allocation, the poisoned float before the vectors and the ones after included:
    // a stray write outside [0, N) changes the digest.
    std::vector<float> whole(N + 4);
    CK(cudaMemcpy(whole.data(), dc, bytes, cudaMemcpyDeviceToHost));
    print_result(name, whole);
    bool good = true;
    for (int i = 0; i < N && good; ++i)
      if (c[i] != a[i] + b[i]) {
        std::printf("%s: c[%d] = %g, want %g\n", name, i, c[i], a[i] + b[i]);
        good = false;
      }
    if (good) std::printf("%s: ok\n", name);
    ok = ok && good;
  }
  CK(cudaFree(da));
  CK(cudaFree(db));
  CK(cudaFree(dc));
  return ok ? 0 : 1;
}
