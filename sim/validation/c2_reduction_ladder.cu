// Counter validation (issue 14): shared-memory block reductions whose short `if` bodies ptxas
// predicates, so warps with every lane switched off still issue them. n = 2^21 floats, 256 threads a
// block, one partial sum per block. Two loop forms: bounded by blockDim.x (not unrolled: the
// issue's strided-index reduction) and by a constant (unrolled: C2's ladder, solutions/c2_reduction.cu).
// Self-contained: build with nvcc -O3 -arch=sm_90 -lineinfo, or run with `judge.py sim-run`.
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "check.h"
#include "outputs.h"

constexpr int N = 1 << 21;
constexpr int BLOCK = 256;

// ---- loops over blockDim.x ----

__global__ void strided_index_loop(const float* __restrict__ x, float* __restrict__ partials) {
  __shared__ float s[BLOCK];
  const unsigned tid = threadIdx.x;
  s[tid] = x[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned st = 1; st < blockDim.x; st *= 2) {
    const unsigned idx = 2 * st * tid;
    if (idx < blockDim.x) s[idx] += s[idx + st];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = s[0];
}

__global__ void sequential_loop(const float* __restrict__ x, float* __restrict__ partials) {
  __shared__ float s[BLOCK];
  const unsigned tid = threadIdx.x;
  s[tid] = x[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
    if (tid < st) s[tid] += s[tid + st];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = s[0];
}

__global__ void divergent_loop(const float* __restrict__ x, float* __restrict__ partials) {
  __shared__ float s[BLOCK];
  const unsigned tid = threadIdx.x;
  s[tid] = x[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned st = 1; st < blockDim.x; st *= 2) {
    if (tid % (2 * st) == 0) s[tid] += s[tid + st];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = s[0];
}

// ---- constant bounds (C2's ladder, steps 1-5) ----

__global__ void divergent_unrolled(const float* __restrict__ x, float* __restrict__ partials, int n) {
  __shared__ float s[BLOCK];
  const unsigned t = threadIdx.x;
  const int64_t i = (int64_t)blockIdx.x * BLOCK + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned d = 1; d < BLOCK; d *= 2) {
    if (t % (2 * d) == 0) s[t] += s[t + d];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = s[0];
}

__global__ void strided_unrolled(const float* __restrict__ x, float* __restrict__ partials, int n) {
  __shared__ float s[BLOCK];
  const unsigned t = threadIdx.x;
  const int64_t i = (int64_t)blockIdx.x * BLOCK + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned d = 1; d < BLOCK; d *= 2) {
    const unsigned k = 2 * d * t;
    if (k < BLOCK) s[k] += s[k + d];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = s[0];
}

__global__ void sequential_unrolled(const float* __restrict__ x, float* __restrict__ partials, int n) {
  __shared__ float s[BLOCK];
  const unsigned t = threadIdx.x;
  const int64_t i = (int64_t)blockIdx.x * BLOCK + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned d = BLOCK / 2; d > 0; d /= 2) {
    if (t < d) s[t] += s[t + d];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = s[0];
}

__global__ void first_add(const float* __restrict__ x, float* __restrict__ partials, int n) {
  __shared__ float s[BLOCK];
  const unsigned t = threadIdx.x;
  const int64_t i = (int64_t)blockIdx.x * (2 * BLOCK) + t;
  float v = i < n ? x[i] : 0.0f;
  if (i + BLOCK < n) v += x[i + BLOCK];
  s[t] = v;
  __syncthreads();
  for (unsigned d = BLOCK / 2; d > 0; d /= 2) {
    if (t < d) s[t] += s[t + d];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = s[0];
}

__device__ float warp_sum(float v) {
  for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}

__global__ void warp_shuffle(const float* __restrict__ x, float* __restrict__ partials, int n) {
  __shared__ float warp_sums[BLOCK / 32];
  const int64_t i = (int64_t)blockIdx.x * (2 * BLOCK) + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  if (i + BLOCK < n) v += x[i + BLOCK];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_sum(lane < BLOCK / 32 ? warp_sums[lane] : 0.0f);
  if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

// Every value is a small integer, so every partial sum is exact in float whatever the order.
static bool check(const char* name, const std::vector<float>& x, const std::vector<float>& got, int per_block) {
  const int blocks = N / per_block;
  for (int b = 0; b < blocks; ++b) {
    double want = 0;
    for (int i = 0; i < per_block; ++i) want += x[(size_t)b * per_block + i];
    if (got[b] != (float)want) {
      std::printf("%s: partial %d = %g, want %g\n", name, b, got[b], want);
      return false;
    }
  }
  std::printf("%s: ok\n", name);
  return true;
}

int main() {
  std::vector<float> x(N), got(N / BLOCK);
  for (int i = 0; i < N; ++i) x[i] = (float)((i * 7) % 13) - 6.0f;
  float *dx = nullptr, *dp = nullptr;
  CK(cudaMalloc(&dx, N * sizeof(float)));
  CK(cudaMalloc(&dp, (N / BLOCK) * sizeof(float)));
  CK(cudaMemcpy(dx, x.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  bool ok = true;
  auto finish = [&](const char* name, int per_block) -> int {
    CK(cudaGetLastError());
    CK(cudaMemcpy(got.data(), dp, (N / per_block) * sizeof(float), cudaMemcpyDeviceToHost));
    ok = check(name, x, got, per_block) && ok;
    print_result(name, got);  // every partial, the poisoned ones past N / per_block included
    CK(cudaMemset(dp, 0xff, (N / BLOCK) * sizeof(float)));
    return 0;
  };
  CK(cudaMemset(dp, 0xff, (N / BLOCK) * sizeof(float)));
  strided_index_loop<<<N / BLOCK, BLOCK>>>(dx, dp);
  if (finish("strided_index_loop", BLOCK)) return 1;
  sequential_loop<<<N / BLOCK, BLOCK>>>(dx, dp);
  if (finish("sequential_loop", BLOCK)) return 1;
  divergent_loop<<<N / BLOCK, BLOCK>>>(dx, dp);
  if (finish("divergent_loop", BLOCK)) return 1;
  divergent_unrolled<<<N / BLOCK, BLOCK>>>(dx, dp, N);
  if (finish("divergent_unrolled", BLOCK)) return 1;
  strided_unrolled<<<N / BLOCK, BLOCK>>>(dx, dp, N);
  if (finish("strided_unrolled", BLOCK)) return 1;
  sequential_unrolled<<<N / BLOCK, BLOCK>>>(dx, dp, N);
  if (finish("sequential_unrolled", BLOCK)) return 1;
  first_add<<<N / (2 * BLOCK), BLOCK>>>(dx, dp, N);
  if (finish("first_add", 2 * BLOCK)) return 1;
  warp_shuffle<<<N / (2 * BLOCK), BLOCK>>>(dx, dp, N);
  if (finish("warp_shuffle", 2 * BLOCK)) return 1;
  CK(cudaFree(dx));
  CK(cudaFree(dp));
  return ok ? 0 : 1;
}
