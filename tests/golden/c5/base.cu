// Problem 82 (C5): softmax of each row of x (rows × cols) into y, first in three passes over x,
// then with the online maximum and rescaled sum in two.
// Read content/c5.md first. Judge with: python practice/judge.py 82
//
// The tests call the two host functions at the bottom; keep their names and signatures.
// x and y are device pointers, row-major float32; launch on the default stream and return.
// A row whose elements are all -inf must give NaN (as torch.softmax does).
#include <cfloat>
#include <cstdint>
#include <cuda_runtime.h>

constexpr int BLOCK = 256;                   // one block of 256 threads per row
constexpr unsigned FULL_MASK = 0xffffffffu;  // every lane of the warp takes part in a shuffle

// ---- given: a block's maximum and a block's sum, in every thread (C2's block_sum) ----

__device__ float block_max(float v) {
  __shared__ float slots[BLOCK / 32];
  for (int k = 16; k > 0; k /= 2) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, k));
  if (threadIdx.x % 32 == 0) slots[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x % 32 < BLOCK / 32 ? slots[threadIdx.x % 32] : -INFINITY;
  for (int k = 16; k > 0; k /= 2) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, k));
  return v;
}

__device__ float block_sum(float v) {
  __shared__ float slots[BLOCK / 32];
  for (int k = 16; k > 0; k /= 2) v += __shfl_xor_sync(FULL_MASK, v, k);
  if (threadIdx.x % 32 == 0) slots[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x % 32 < BLOCK / 32 ? slots[threadIdx.x % 32] : 0.0f;
  for (int k = 16; k > 0; k /= 2) v += __shfl_xor_sync(FULL_MASK, v, k);
  return v;
}

// Warm-up: three passes over row blockIdx.x.
__global__ void softmax_naive_kernel(const float* x, float* y, int cols) {
  const float* xr = x + (int64_t)blockIdx.x * cols;
  float* yr = y + (int64_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += BLOCK) m = fmaxf(m, xr[c]);
  m = block_max(m);
  float d = 0.0f;
  for (int c = threadIdx.x; c < cols; c += BLOCK) d += __expf(xr[c] - m);
  d = block_sum(d);
  for (int c = threadIdx.x; c < cols; c += BLOCK) yr[c] = __expf(xr[c] - m) / d;
}

// ---- the exercise: the online maximum and the rescaled sum ----

// Part of a row: its largest element m and d = the sum of e^(x - m) over the part's elements.
struct MaxSum {
  float m, d;
};

// A part that has seen nothing. -FLT_MAX, not -INFINITY: -inf - (-inf) is NaN.
__device__ MaxSum empty_part() { return {-FLT_MAX, 0.0f}; }

// One more element x.
__device__ void online_add(MaxSum& s, float x) {
  const float m = fmaxf(s.m, x);
  s.d = s.d * __expf(s.m - m) + __expf(x - m);
  s.m = m;
}

// Two parts as one.
__device__ MaxSum combine(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  return {m, a.d * __expf(a.m - m) + b.d * __expf(b.m - m)};
}

// The block's part, in every thread.
__device__ MaxSum block_combine(MaxSum s) {
  __shared__ MaxSum slots[BLOCK / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int k = 16; k > 0; k /= 2)
    s = combine(s, {__shfl_xor_sync(FULL_MASK, s.m, k), __shfl_xor_sync(FULL_MASK, s.d, k)});
  if (lane == 0) slots[warp] = s;
  __syncthreads();
  s = lane < BLOCK / 32 ? slots[lane] : empty_part();
  for (int k = 16; k > 0; k /= 2)
    s = combine(s, {__shfl_xor_sync(FULL_MASK, s.m, k), __shfl_xor_sync(FULL_MASK, s.d, k)});
  return s;
}

__global__ void softmax_online_kernel(const float* x, float* y, int cols) {
  const float* xr = x + (int64_t)blockIdx.x * cols;
  float* yr = y + (int64_t)blockIdx.x * cols;
  MaxSum s = empty_part();
  for (int c = threadIdx.x; c < cols; c += BLOCK) online_add(s, xr[c]);
  s = block_combine(s);
  const float inv = 1.0f / s.d;
  for (int c = threadIdx.x; c < cols; c += BLOCK) yr[c] = __expf(xr[c] - s.m) * inv;
}

void softmax_naive(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  softmax_naive_kernel<<<rows, BLOCK>>>(x, y, cols);
}

void softmax_online(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  softmax_online_kernel<<<rows, BLOCK>>>(x, y, cols);
}
