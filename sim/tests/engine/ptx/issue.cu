// Kernels whose SASS issues more or fewer shared-memory instructions than their PTX has
// (sim/engine/issue.cpp): a predicated if-body every warp issues, and a pair ptxas merges.
extern "C" __global__ void strided_index_loop(const float* __restrict__ x, float* __restrict__ partials) {
  __shared__ float s[256];
  const unsigned tid = threadIdx.x;
  s[tid] = x[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned st = 1; st < blockDim.x; st *= 2) {
    const unsigned idx = 2 * st * tid;
    if (idx < blockDim.x) s[idx] += s[idx + st];  // predicated: all 8 warps issue every round
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = s[0];  // @P EXIT: only warp 0 goes on
}

extern "C" __global__ void strided_unrolled(const float* __restrict__ x, float* __restrict__ partials) {
  __shared__ float s[256];
  const unsigned t = threadIdx.x;
  s[t] = x[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned d = 1; d < 256; d *= 2) {
    const unsigned k = 2 * d * t;
    if (k < 256) s[k] += s[k + d];  // d = 1: s[2t] and s[2t + 1] are one LDS.64
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = s[0];
}
