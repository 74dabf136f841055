// Transposes written apart from solutions/c3_transpose.cu, in the style of the CUDA samples and of
// the usual tutorials: the held-out set the time model is checked on (issue 14: copy, naive,
// [32][32], [32][33], XOR swizzle, float4 64×64). Square 8192² only, so no bounds checks, and two
// block shapes: 32×8 threads with four elements each (the samples' TILE_DIM/BLOCK_ROWS) and 32×32
// threads with one element each.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

namespace zoo {

constexpr int T = 32, R = 8;

__global__ void copy_32x8(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
  for (int j = 0; j < T; j += R) out[(int64_t)(y + j) * n + x] = in[(int64_t)(y + j) * n + x];
}

__global__ void naive_32x8(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
  for (int j = 0; j < T; j += R) out[(int64_t)x * n + y + j] = in[(int64_t)(y + j) * n + x];
}

// PAD 0: [32][32] (32-way conflicts on the column read); PAD 1: [32][33].
template <int PAD>
__global__ void tile_32x8(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[T][T + PAD];
  int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
  for (int j = 0; j < T; j += R) tile[threadIdx.y + j][threadIdx.x] = in[(int64_t)(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * T + threadIdx.x;
  y = blockIdx.x * T + threadIdx.y;
  for (int j = 0; j < T; j += R) out[(int64_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void swizzle_32x8(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[T * T];
  int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
  for (int j = 0; j < T; j += R) {
    const int row = threadIdx.y + j;
    tile[row * T + (threadIdx.x ^ row)] = in[(int64_t)(y + j) * n + x];
  }
  __syncthreads();
  x = blockIdx.y * T + threadIdx.x;
  y = blockIdx.x * T + threadIdx.y;
  for (int j = 0; j < T; j += R) {
    const int col = threadIdx.y + j;  // the tile column this thread reads, row threadIdx.x
    out[(int64_t)(y + j) * n + x] = tile[threadIdx.x * T + (col ^ threadIdx.x)];
  }
}

// One element per thread, 32×32 threads.
__global__ void copy_32x32(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
  out[(int64_t)y * n + x] = in[(int64_t)y * n + x];
}

__global__ void naive_32x32(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
  out[(int64_t)x * n + y] = in[(int64_t)y * n + x];
}

template <int PAD>
__global__ void tile_32x32(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[T][T + PAD];
  tile[threadIdx.y][threadIdx.x] = in[(int64_t)(blockIdx.y * T + threadIdx.y) * n + blockIdx.x * T + threadIdx.x];
  __syncthreads();
  out[(int64_t)(blockIdx.x * T + threadIdx.y) * n + blockIdx.y * T + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

// 64×64 tile, 16×16 threads: each thread loads one float4 of each of 4 rows, and stores one float4
// (4 consecutive rows of x = 4 consecutive floats of a row of y) for each of 4 columns. One float
// of padding per row leaves 2-way conflicts on both sides.
__global__ void vec4_64(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[64][64 + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;  // 16 × 16
  const int r0 = blockIdx.y * 64, c0 = blockIdx.x * 64;
  for (int k = 0; k < 4; ++k) {
    const int r = ty + 16 * k;
    const float4 v = *reinterpret_cast<const float4*>(in + (int64_t)(r0 + r) * n + c0 + 4 * tx);
    tile[r][4 * tx + 0] = v.x;
    tile[r][4 * tx + 1] = v.y;
    tile[r][4 * tx + 2] = v.z;
    tile[r][4 * tx + 3] = v.w;
  }
  __syncthreads();
  for (int k = 0; k < 4; ++k) {
    const int c = ty + 16 * k;  // column of the tile = row of out
    float4 v;
    v.x = tile[4 * tx + 0][c];
    v.y = tile[4 * tx + 1][c];
    v.z = tile[4 * tx + 2][c];
    v.w = tile[4 * tx + 3][c];
    *reinterpret_cast<float4*>(out + (int64_t)(c0 + c) * n + r0 + 4 * tx) = v;
  }
}

inline dim3 grid32(int n) { return dim3(n / T, n / T); }

}  // namespace zoo

inline void zoo_copy(const float* x, float* y, int n) { zoo::copy_32x8<<<zoo::grid32(n), dim3(32, 8)>>>(x, y, n); }
inline void zoo_naive(const float* x, float* y, int n) { zoo::naive_32x8<<<zoo::grid32(n), dim3(32, 8)>>>(x, y, n); }
inline void zoo_tile32(const float* x, float* y, int n) { zoo::tile_32x8<0><<<zoo::grid32(n), dim3(32, 8)>>>(x, y, n); }
inline void zoo_tile33(const float* x, float* y, int n) { zoo::tile_32x8<1><<<zoo::grid32(n), dim3(32, 8)>>>(x, y, n); }
inline void zoo_swizzle(const float* x, float* y, int n) { zoo::swizzle_32x8<<<zoo::grid32(n), dim3(32, 8)>>>(x, y, n); }
inline void zoo_vec4_64(const float* x, float* y, int n) { zoo::vec4_64<<<dim3(n / 64, n / 64), dim3(16, 16)>>>(x, y, n); }
inline void zoo_copy_1x(const float* x, float* y, int n) { zoo::copy_32x32<<<zoo::grid32(n), dim3(32, 32)>>>(x, y, n); }
inline void zoo_naive_1x(const float* x, float* y, int n) { zoo::naive_32x32<<<zoo::grid32(n), dim3(32, 32)>>>(x, y, n); }
inline void zoo_tile32_1x(const float* x, float* y, int n) { zoo::tile_32x32<0><<<zoo::grid32(n), dim3(32, 32)>>>(x, y, n); }
inline void zoo_tile33_1x(const float* x, float* y, int n) { zoo::tile_32x32<1><<<zoo::grid32(n), dim3(32, 32)>>>(x, y, n); }
