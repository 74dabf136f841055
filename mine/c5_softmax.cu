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
  // TODO: (about 9 lines) xr, yr = the row's start (64-bit offset: (int64_t)blockIdx.x * cols).
  // Pass 1: m = the row's maximum (start from -INFINITY; threadIdx.x, +BLOCK, ...; then block_max).
  // Pass 2: d = the sum of __expf(x - m) (then block_sum). Pass 3: y = __expf(x - m) / d.
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
  // TODO: (about 3 lines) the new maximum m = max(s.m, x); rescale the old sum to it
  // (times __expf(s.m - m)), add __expf(x - m), keep m.
}

// Two parts as one.
__device__ MaxSum combine(MaxSum a, MaxSum b) {
  // TODO: (about 2 lines) m = the larger maximum; d = a.d * e^(a.m - m) + b.d * e^(b.m - m).
  return a;
}

// The block's part, in every thread.
__device__ MaxSum block_combine(MaxSum s) {
  __shared__ MaxSum slots[BLOCK / 32];
  // TODO: (about 8 lines) combine over the warp with __shfl_xor_sync on s.m and s.d (k = 16, 8, 4,
  // 2, 1); lane 0 stores the warp's part in slots[warp]; __syncthreads(); every warp then reads
  // slots[lane] (empty_part() for lane >= BLOCK / 32) and combines over the warp once more.
  return s;
}

__global__ void softmax_online_kernel(const float* x, float* y, int cols) {
  // TODO: (about 7 lines) read 1: s = empty_part(); online_add every element this thread visits;
  // s = block_combine(s). Read 2: y = __expf(x - s.m) * (1 / s.d).
}

void softmax_naive(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  softmax_naive_kernel<<<rows, BLOCK>>>(x, y, cols);
}

void softmax_online(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  softmax_online_kernel<<<rows, BLOCK>>>(x, y, cols);
}
