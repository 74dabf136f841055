// Divergence and reconvergence, device functions, printf, math.
#include <cuda_fp16.h>
#include <cstdio>
__device__ __noinline__ int collatz_steps(int v) {
  int s = 0;
  while (v != 1) {
    v = (v & 1) ? 3 * v + 1 : v >> 1;
    ++s;
    if (s > 1000) break;
  }
  return s;
}
extern "C" __global__ void divergence(int* out, const int* x) {
  int t = threadIdx.x;
  int v = x[t];
  int r;
  if (v & 1) {
    if (v & 2) r = v * 3; else r = v - 7;
  } else {
    if (v & 4) r = v + 100; else r = -v;
  }
  // A warp-wide vote after the nested if/else: every lane must be back.
  unsigned all = __ballot_sync(0xffffffffu, 1);
  out[t * 3 + 0] = r;
  out[t * 3 + 1] = collatz_steps(v > 0 ? v : 1 - v);
  out[t * 3 + 2] = (int)all;
}
extern "C" __global__ void early_return(int* out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  out[t] = t * 2;
}
extern "C" __global__ void hello(int tag) {
  printf("hello from block %d thread %d tag %d %.2f %s\n", blockIdx.x, threadIdx.x, tag, 1.5, "ok");
}
extern "C" __global__ void math_f32(float* out, const float* x) {
  int t = threadIdx.x;
  float v = x[t];
  out[t * 8 + 0] = expf(v);
  out[t * 8 + 1] = sqrtf(fabsf(v));
  out[t * 8 + 2] = 1.0f / v;
  out[t * 8 + 3] = __sinf(v);
  out[t * 8 + 4] = rsqrtf(fabsf(v) + 1.0f);
  out[t * 8 + 5] = fminf(v, 0.25f) + fmaxf(v, -0.25f);
  out[t * 8 + 6] = (float)__float2int_rn(v * 10.0f);
  out[t * 8 + 7] = __half2float(__float2half(v));
}
extern "C" __global__ void math_f64(double* out, const double* x) {
  int t = threadIdx.x;
  double v = x[t];
  out[t * 4 + 0] = sqrt(fabs(v));
  out[t * 4 + 1] = v / 3.0;
  out[t * 4 + 2] = fma(v, v, -1.0);
  out[t * 4 + 3] = (double)(long long)(v * 1e6);
}
extern "C" __global__ void barrier_in_branch(int* out, unsigned limit) {
  __shared__ int s[256];
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x < limit) __syncthreads();
  out[threadIdx.x] = s[threadIdx.x ^ 1];
}
extern "C" __global__ void spin_forever(int* flag) {
  while (*(volatile int*)flag == 0) { }
}
extern "C" __global__ void trap_kernel() { __trap(); }
// Block 0 waits until every other block has arrived: the others must run while it waits, even on
// one host thread (the waiting block parks at nanosleep).
extern "C" __global__ void wait_for_others(unsigned* count, int* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    while (*(volatile unsigned*)count != gridDim.x - 1) __nanosleep(100);
    out[0] = 1;
  } else {
    __threadfence();
    atomicAdd(count, 1);
  }
}
// Waits for a flag nobody sets: the watchdog must end it although the warp keeps parking.
extern "C" __global__ void sleep_forever(const int* flag) {
  while (*(volatile const int*)flag == 0) __nanosleep(100);
}
