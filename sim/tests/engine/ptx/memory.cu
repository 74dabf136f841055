// Global access patterns for the coalescing counters.
extern "C" __global__ void load_coalesced(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 2.0f;
}
extern "C" __global__ void load_strided(float* y, const float* x, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[(long long)i * stride];
}
extern "C" __global__ void load_offset(float* y, const float* x, int n, int offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i + offset];
}
extern "C" __global__ void copy_float4(float4* y, const float4* __restrict__ x, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) y[i] = x[i];
}
extern "C" __global__ void bytes_and_halves(unsigned char* b, short* h, double* d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    b[i] = (unsigned char)(b[i] + 1);
    h[i] = (short)(h[i] * -3);
    d[i] = d[i] * 0.5 + 1.0;
  }
}
// Misaligned: reads a float through a pointer bumped by one byte.
extern "C" __global__ void load_misaligned(float* y, const char* x) {
  int i = threadIdx.x;
  y[i] = *(const float*)(x + 4 * i + 1);
}
// Local memory: an indexed per-thread array the compiler cannot keep in registers.
extern "C" __global__ void local_array(int* y, const int* idx) {
  int a[16];
  for (int k = 0; k < 16; ++k) a[k] = k * threadIdx.x;
  y[threadIdx.x] = a[idx[threadIdx.x] & 15];
}
__device__ int g_counter;
__constant__ float c_scale[4] = {1.0f, 2.0f, 3.0f, 4.0f};
extern "C" __global__ void globals(float* y) {
  int i = threadIdx.x;
  y[i] = c_scale[i & 3];
  if (i == 0) g_counter = 42;
}
