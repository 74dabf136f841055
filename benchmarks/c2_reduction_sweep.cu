// Experiment behind content/c2.md §9: how much the float4 loads in flight per thread and the grid
// size matter for a sum of 2^28 floats, against cudaMemcpy device to device in the same run.
// Build and run on a GPU:
//   nvcc -O3 -arch=sm_90 benchmarks/c2_reduction_sweep.cu -o /tmp/sweep && /tmp/sweep
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../solutions/c2_reduction.cu"

#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

namespace {

// reduce_sum's first pass with UNROLL float4 loads in flight per thread instead of 4.
template <int UNROLL>
__global__ void sweep_kernel(const float* __restrict__ x, int n) {
  const int64_t tid = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * BLOCK;
  const int64_t nvec = n / 4;  // x is aligned and n a multiple of 4 here
  const float4* xv = reinterpret_cast<const float4*>(x);
  float sum = 0;
  int64_t i = tid;
  for (; i + (UNROLL - 1) * stride < nvec; i += UNROLL * stride) {
    float4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = xv[i + u * stride];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) sum += sum4(v[u]);
  }
  for (; i < nvec; i += stride) sum += sum4(xv[i]);
  sum = block_sum(sum);
  if (threadIdx.x == 0) partials<float>()[blockIdx.x] = sum;
}

template <class F>
float median_ms(F f, int reps = 50) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 5; ++i) f();
  std::vector<float> t(reps);
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    cudaEventElapsedTime(&t[i], a, b);
  }
  std::sort(t.begin(), t.end());
  return t[reps / 2];
}

template <int UNROLL>
void sweep(const float* x, float* out, int n, int sms, double memcpy_gbps) {
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sweep_kernel<UNROLL>, BLOCK, 0));
  const int resident = sms * per_sm;
  for (int grid : {resident / 2, resident, 2 * resident}) {
    grid = std::min(MAX_BLOCKS, grid);
    const float ms = median_ms([&] {
      sweep_kernel<UNROLL><<<grid, BLOCK>>>(x, n);
      final_sum_kernel<float><<<1, BLOCK>>>(grid, out);
    });
    const double gbps = 4.0 * n / (ms * 1e-3) / 1e9;
    printf("unroll %d  grid %5d (%d/SM resident)  %.4f ms  %6.0f GB/s read  %5.1f%% of memcpy\n", UNROLL, grid,
           per_sm, ms, gbps, 100 * gbps / memcpy_gbps);
  }
}

}  // namespace

int main() {
  const int n = 1 << 28;
  float *x, *y, *out;
  CK(cudaMalloc(&x, n * sizeof(float)));
  CK(cudaMalloc(&y, n * sizeof(float)));
  CK(cudaMalloc(&out, sizeof(float)));
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = (i % 1000) * 0.001f - 0.4995f;
  CK(cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

  const float copy_ms = median_ms([&] { cudaMemcpyAsync(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice); });
  const double memcpy_gbps = 8.0 * n / (copy_ms * 1e-3) / 1e9;
  printf("cudaMemcpy D2D  %.4f ms  %6.0f GB/s read + write\n", copy_ms, memcpy_gbps);
  const float sum_ms = median_ms([&] { reduce_sum(x, out, n); });
  printf("reduce_sum      %.4f ms  %6.0f GB/s read  %5.1f%% of memcpy\n", sum_ms, 4.0 * n / (sum_ms * 1e-3) / 1e9,
         100 * (4.0 * n / (sum_ms * 1e-3) / 1e9) / memcpy_gbps);
  sweep<1>(x, out, n, sms, memcpy_gbps);
  sweep<2>(x, out, n, sms, memcpy_gbps);
  sweep<4>(x, out, n, sms, memcpy_gbps);
  sweep<8>(x, out, n, sms, memcpy_gbps);
  CK(cudaGetLastError());
  return 0;
}
