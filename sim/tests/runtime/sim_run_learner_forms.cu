// What learners of C4 (SGEMM), C5 (softmax) and G1 (HGEMM) write besides the references' own forms:
// libdevice math and fast intrinsics, cub and cooperative-groups reductions, shuffles, atomics, float4
// through __ldg, cuda_pipeline.h's cp.async, wmma with a column-major B, half2 arithmetic. Each result is
// checked on the host; the program prints PROBE OK and exits 0 when all are right (test_sim_run.py).
#include <cstdio>
#include <cmath>
#include <cfloat>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>
#include <cub/cub.cuh>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void math_ops(const float* x, float* y) {
  const int i = threadIdx.x;
  const float v = x[i];
  float r = 0.f;
  r += expf(v) + exp2f(v) + __expf(v) + logf(v + 2.f) + __logf(v + 2.f) + log1pf(v + 1.f);
  r += __fdividef(v, 3.f) + fdividef(v, 7.f) + __frcp_rn(v + 2.f) + __fmaf_rn(v, v, 1.f) + __fmul_rn(v, 3.f);
  r += fmaxf(v, 0.5f) + fminf(v, -0.5f) + max(v, 0.25f) + rsqrtf(v + 2.f) + sqrtf(v + 2.f) + __saturatef(v);
  r += __fsub_rn(v, 1.f) + __fadd_rz(v, 1e-8f) + tanhf(v) + __powf(2.f, v) + ldexpf(v, 3) + copysignf(1.f, v);
  y[i] = r;
}

__global__ void warp_ops(const float* x, float* y, int* imax, float* fsum) {
  const int i = threadIdx.x;
  float v = __ldg(x + i);
  float s = v;
  for (int k = 16; k > 0; k /= 2) s += __shfl_down_sync(0xffffffffu, s, k);
  float u = __shfl_up_sync(0xffffffffu, v, 1);
  float b = __shfl_sync(0xffffffffu, s, 0);
  unsigned ball = __ballot_sync(0xffffffffu, v > 0.f);
  int rm = __reduce_max_sync(0xffffffffu, i);
  __syncwarp();
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  float cgsum = cg::reduce(tile, v, cg::plus<float>());
  float cgmax = cg::reduce(tile, v, cg::greater<float>());
  typedef cub::WarpReduce<float> WR;
  __shared__ typename WR::TempStorage wt;
  float wsum = WR(wt).Sum(v);
  typedef cub::BlockReduce<float, 64> BR;
  __shared__ typename BR::TempStorage bt;
  float bmax = BR(bt).Reduce(v, ::cuda::maximum<>{});
  atomicMax(imax, i);
  atomicAdd(fsum, v);
  y[i] = s + u + b + float(__popc(ball)) + float(rm) + cgsum + cgmax + (i % 32 == 0 ? wsum : 0.f) + (i == 0 ? bmax : 0.f);
}

__global__ void vec_ops(const float4* x, float4* y) {
  const int i = threadIdx.x;
  float4 v = __ldg(x + i);
  __shared__ float4 s[64];
  s[i] = v;
  __syncthreads();
  float4 w = s[63 - i];
  y[i] = make_float4(w.x + 1.f, w.y, w.z, w.w);
}

__global__ void pipeline_ops(const float* x, float* y) {
  __shared__ __align__(16) float s[256];
  const int i = threadIdx.x;
  __pipeline_memcpy_async(&s[4 * i], &x[4 * i], 16);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  y[i] = s[4 * (63 - i)];
}

__global__ void half_ops(const __half* a, const __half* b, float* c) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
  __half2 h = __floats2half2_rn(1.5f, 2.5f);
  h = __hfma2(h, h, h);
  float2 f = __half22float2(__hmul2(h, h));
  if (threadIdx.x == 0) c[256] = f.x + f.y + __half2float(__hadd(a[0], b[0])) + __half2float(__float2half_rn(0.1f));
}

int main() {
  float hx[256], *x, *y, *fs; int* im;
  for (int i = 0; i < 256; ++i) hx[i] = (i % 17) / 17.f - 0.4f;
  cudaMalloc(&x, 1024); cudaMalloc(&y, 1024); cudaMalloc(&fs, 4); cudaMalloc(&im, 4);
  cudaMemset(fs, 0, 4); cudaMemset(im, 0, 4);
  cudaMemcpy(x, hx, 1024, cudaMemcpyHostToDevice);
  int bad = 0;
  auto check = [&](const char* what) {
    cudaError_t e = cudaDeviceSynchronize();
    printf("%-10s %s\n", what, cudaGetErrorString(e));
    if (e != cudaSuccess) { ++bad; cudaDeviceReset(); }
  };
  math_ops<<<1, 64>>>(x, y); check("math");
  float hy[64]; cudaMemcpy(hy, y, 256, cudaMemcpyDeviceToHost);
  double worst = 0;
  for (int i = 0; i < 64; ++i) {
    double v = hx[i];
    double r = exp(v) + exp2(v) + exp(v) + log(v + 2) + log(v + 2) + log1p(v + 1) + v / 3 + v / 7 + 1 / (v + 2) + (v * v + 1) + v * 3
             + fmax(v, 0.5) + fmin(v, -0.5) + fmax(v, 0.25) + 1 / sqrt(v + 2) + sqrt(v + 2) + fmin(fmax(v, 0.0), 1.0)
             + (v - 1) + (v + 1e-8) + tanh(v) + pow(2.0, v) + ldexp(v, 3) + copysign(1.0, v);
    worst = fmax(worst, fabs(hy[i] - r));
  }
  printf("math worst abs error %.3g\n", worst); if (worst > 1e-4) ++bad;
  warp_ops<<<1, 64>>>(x, y, im, fs); check("warp");
  float w0; cudaMemcpy(&w0, y, 4, cudaMemcpyDeviceToHost);
  double s0 = 0, mx = -1e30, m0 = -1e30, s64 = 0; for (int i = 0; i < 32; ++i) { s0 += hx[i]; m0 = fmax(m0, hx[i]); }
  for (int i = 0; i < 64; ++i) { mx = fmax(mx, hx[i]); s64 += hx[i]; }
  double want0 = s0 + hx[0] + s0 + 0 + 31 + s0 + m0 + s0 + mx;  // u: lane 0 keeps its own value
  int pos = 0; for (int i = 0; i < 32; ++i) pos += hx[i] > 0; want0 += pos;
  float fsum; int imax; cudaMemcpy(&fsum, fs, 4, cudaMemcpyDeviceToHost); cudaMemcpy(&imax, im, 4, cudaMemcpyDeviceToHost);
  printf("warp lane0 %.6f want %.6f, atomicMax %d, atomicAdd %.5f want %.5f\n", w0, want0, imax, fsum, s64);
  if (fabs(w0 - want0) > 1e-4 || imax != 63 || fabs(fsum - s64) > 1e-4) ++bad;
  vec_ops<<<1, 64>>>((const float4*)x, (float4*)y); check("vec4");
  float hv[256]; cudaMemcpy(hv, y, 1024, cudaMemcpyDeviceToHost);
  if (hv[0] != hx[252] + 1.f || hv[1] != hx[253]) { printf("vec4 wrong\n"); ++bad; }
  pipeline_ops<<<1, 64>>>(x, y); check("pipeline");
  cudaMemcpy(hy, y, 256, cudaMemcpyDeviceToHost);
  if (hy[0] != hx[252]) { printf("pipeline wrong\n"); ++bad; }
  __half ha[256], hb[256]; for (int i = 0; i < 256; ++i) { ha[i] = __float2half(float(i % 5)); hb[i] = __float2half(float(i % 3)); }
  __half *da, *db; float* dc; cudaMalloc(&da, 512); cudaMalloc(&db, 512); cudaMalloc(&dc, 257 * 4);
  cudaMemcpy(da, ha, 512, cudaMemcpyHostToDevice); cudaMemcpy(db, hb, 512, cudaMemcpyHostToDevice);
  half_ops<<<1, 32>>>(da, db, dc); check("half");
  float hc[257]; cudaMemcpy(hc, dc, 257 * 4, cudaMemcpyDeviceToHost);
  double c01 = 0; for (int k = 0; k < 16; ++k) c01 += float(k % 5) * float((1 * 16 + k) % 3);  // B col-major: b[k][n] at n*16+k
  printf("wmma C[0][1] %.1f want %.1f; half extra %.4f\n", hc[1], c01, hc[256]);
  if (hc[1] != c01) ++bad;
  printf("%s\n", bad ? "PROBE FAILED" : "PROBE OK");
  return bad;
}
