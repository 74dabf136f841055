// Counter and output validation: cp.async pipelines. Each block streams its part of x (f32) through
// shared memory in tiles of 128 floats, STAGES tiles in flight (2, 3 or 4), and every thread adds up
// the element another thread copied (so the barrier after the wait is needed). Also:
//   ca4 / ca8:  the same with 4- and 8-byte cp.async.ca (one float or two a copy)
//   zfill:      16-byte copies with src-size 0 past the end of x (the tail tile is zero-filled)
// Sums of small integers: exact, so outputs match the GPU bit for bit.
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "check.h"
#include "outputs.h"

constexpr int BLOCKS = 132, THREADS = 128, TILE = 512, TILES = 24;  // 512 floats a tile, 24 tiles a block

__device__ __forceinline__ uint32_t smem(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// BYTES per copy; a thread copies TILE * 4 / THREADS / BYTES pieces of each tile.
template <int STAGES, int BYTES, bool ZFILL>
__global__ void pipeline(const float* __restrict__ x, float* __restrict__ y, int n) {
  __shared__ __align__(16) float buf[STAGES][TILE];
  const int t = threadIdx.x;
  const size_t first = size_t(blockIdx.x) * TILES * TILE;
  constexpr int FLOATS = BYTES / 4, PIECES = TILE / FLOATS / THREADS;
  auto issue = [&](int tile) {
    if (tile < TILES)
      for (int p = 0; p < PIECES; ++p) {
        const int e = (p * THREADS + t) * FLOATS;   // element of the tile
        const size_t g = first + size_t(tile) * TILE + e;
        const uint32_t d = smem(&buf[tile % STAGES][e]);
        if (ZFILL) {
          const int src_size = g < size_t(n) ? BYTES : 0;  // nothing is read past the end
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(x + (g < size_t(n) ? g : 0)), "r"(src_size));
        } else if (BYTES == 16) {
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(x + g));
        } else if (BYTES == 8) {
          asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(d), "l"(x + g));
        } else {
          asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d), "l"(x + g));
        }
      }
    asm volatile("cp.async.commit_group;");
  };
  float acc = 0;
  for (int s = 0; s < STAGES - 1; ++s) issue(s);
  for (int tile = 0; tile < TILES; ++tile) {
    issue(tile + STAGES - 1);
    asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 1));
    __syncthreads();
    const float* b = buf[tile % STAGES];
    for (int k = 0; k < TILE / THREADS; ++k) acc += b[(k * THREADS + t * 5 + 3) % TILE];
    __syncthreads();
  }
  y[blockIdx.x * THREADS + t] = acc;
}

int main() {
  const int n_full = BLOCKS * TILES * TILE, n_short = n_full - 1000 * 4;  // the zero-fill run stops early
  std::vector<float> x(n_full);
  for (int i = 0; i < n_full; ++i) x[i] = float((i * 7 + 3) % 17);
  float *dx, *dy;
  CK(cudaMalloc(&dx, size_t(n_full) * 4));
  CK(cudaMalloc(&dy, BLOCKS * THREADS * 4));
  CK(cudaMemcpy(dx, x.data(), size_t(n_full) * 4, cudaMemcpyHostToDevice));
  std::vector<float> y(BLOCKS * THREADS);
  auto expect = [&](int n) {
    std::vector<float> want(BLOCKS * THREADS);
    for (int b = 0; b < BLOCKS; ++b)
      for (int t = 0; t < THREADS; ++t) {
        double acc = 0;
        for (int tile = 0; tile < TILES; ++tile)
          for (int k = 0; k < TILE / THREADS; ++k) {
            const size_t g = size_t(b) * TILES * TILE + size_t(tile) * TILE + (k * THREADS + t * 5 + 3) % TILE;
            acc += g < size_t(n) ? x[g] : 0.0;
          }
        want[size_t(b) * THREADS + t] = float(acc);
      }
    return want;
  };
  const std::vector<float> want = expect(n_full), want_short = expect(n_short);
#define RUN(name, kernel, n, w)                                                   \
  do {                                                                            \
    CK(cudaMemset(dy, 0xff, BLOCKS * THREADS * 4));                               \
    kernel<<<BLOCKS, THREADS>>>(dx, dy, n);                                       \
    CK(cudaGetLastError());                                                       \
    CK(cudaMemcpy(y.data(), dy, BLOCKS * THREADS * 4, cudaMemcpyDeviceToHost));   \
    if (y != (w)) {                                                               \
      std::printf("%s: wrong sums\n", name);                                      \
      return 1;                                                                   \
    }                                                                             \
    print_result(name, y);                                                        \
  } while (0)
  RUN("stages2_cg16", (pipeline<2, 16, false>), n_full, want);
  RUN("stages3_cg16", (pipeline<3, 16, false>), n_full, want);
  RUN("stages4_cg16", (pipeline<4, 16, false>), n_full, want);
  RUN("stages3_ca8", (pipeline<3, 8, false>), n_full, want);
  RUN("stages3_ca4", (pipeline<3, 4, false>), n_full, want);
  RUN("stages3_zfill", (pipeline<3, 16, true>), n_short, want_short);
  std::printf("cp_async_stages: ok\n");
  return 0;
}
