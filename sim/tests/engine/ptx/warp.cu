// Warp-level operations: shuffle reduction, votes, histogram with shared atomics.
extern "C" __global__ void reduce_shfl(float* out, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  __shared__ float partial[32];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x >> 5) ? partial[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (lane == 0) atomicAdd(out, v);
  }
}
extern "C" __global__ void histogram_shared(unsigned* bins, const unsigned char* x, int n) {
  __shared__ unsigned h[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) h[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&h[x[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], h[b]);
}
extern "C" __global__ void votes(unsigned* out, const int* x) {
  int t = threadIdx.x;
  int v = x[t];
  unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
  int any = __any_sync(0xffffffffu, v > 5);
  int all = __all_sync(0xffffffffu, v > -1);
  unsigned act = 0;
  if (v & 1) act = __activemask();
  unsigned up = __shfl_up_sync(0xffffffffu, (unsigned)v, 3);
  unsigned idx = __shfl_sync(0xffffffffu, (unsigned)v, (t * 7) & 31);
  unsigned sum = __reduce_add_sync(0xffffffffu, (unsigned)v);
  unsigned mx = __reduce_max_sync(0xffffffffu, (unsigned)v);
  out[t * 8 + 0] = ballot;
  out[t * 8 + 1] = any;
  out[t * 8 + 2] = all;
  out[t * 8 + 3] = act;
  out[t * 8 + 4] = up;
  out[t * 8 + 5] = idx;
  out[t * 8 + 6] = sum;
  out[t * 8 + 7] = mx;
}
extern "C" __global__ void global_atomics(int* counters, float* fsum, unsigned* mx) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&counters[0], 1);
  int old = atomicAdd(&counters[1], 2);
  if (old < 0) counters[2] = old;  // uses old: stays an atom
  atomicAdd(fsum, 0.5f);
  atomicMax(mx, (unsigned)t);
  atomicCAS((int*)&counters[4], 0, t + 1);
  atomicExch(&counters[5], 7);
  atomicOr(&counters[6], 1 << (t & 31));
  atomicInc((unsigned*)&counters[7], 9u);
}
// A bad member mask: only even lanes call a full-mask shuffle.
extern "C" __global__ void bad_sync_mask(int* out) {
  int t = threadIdx.x, v = t;
  if ((t & 1) == 0) v = __shfl_down_sync(0xffffffffu, v, 1);
  out[t] = v;
}
