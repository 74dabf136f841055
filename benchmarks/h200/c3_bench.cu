// C3 on a GPU (content/c3.md §7, §8.2): is the scalar copy kernel limited by the order of its own
// writes? And what does the diagonal block order of the partition-camping era do here? Times, at
// 4113×8197, 8192×8192 and 8193×8191, the copy kernel and the [32][33] transpose in three block
// orders each (row-major as launched by copy_tiled / transpose_tiled, column-major, diagonal),
// against cudaMemcpy in the same run; every result is checked element by element (output poisoned).
// The transposes are the reference's transpose_tile_kernel with another Order; the copies are
// copy_tiled_kernel's body with the same Order.
// `./c3_bench profile`: two launches of each variant at 4113×8197, for Nsight Compute.
// `./c3_bench counters`: transpose_naive, transpose_tiled_unpadded and transpose_tiled once each at
// M = 1024, N = 2048, the shape of the counter tables in content/c3.md (for ncu; see §12 there).
//   nvcc -O3 -arch=sm_90 -std=c++17 benchmarks/h200/c3_bench.cu -o c3_bench && ./c3_bench [profile|counters]
#include <cstring>
#include "../../solutions/c3_transpose.cu"
#include "bench_util.h"

namespace {

// Ruetsch and Micikevicius's diagonal reordering ("Optimizing Matrix Transpose in CUDA", 2009):
// consecutive blocks take tiles along a diagonal, so they spread over many columns of tiles.
struct DiagonalOrder {
  __device__ static int tile_y() {
    const int bid = blockIdx.x + gridDim.x * blockIdx.y;
    return bid % gridDim.y;
  }
  __device__ static int tile_x() {
    const int bid = blockIdx.x + gridDim.x * blockIdx.y;
    return (bid / gridDim.y + bid % gridDim.y) % gridDim.x;
  }
  static dim3 grid(int tiles_x, int tiles_y) { return dim3(tiles_x, tiles_y); }
};

template <class Order>
__global__ void copy_order_kernel(const float* __restrict__ x, float* __restrict__ y, int M, int N) {
  const int c = Order::tile_x() * TILE + threadIdx.x;
  const int r0 = Order::tile_y() * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int r = r0 + j;
    if (r < M && c < N) y[(int64_t)r * N + c] = x[(int64_t)r * N + c];
  }
}

template <class Order>
void copy_in(const float* x, float* y, int M, int N) {
  const int tx = (N + TILE - 1) / TILE, ty = (M + TILE - 1) / TILE;
  copy_order_kernel<Order><<<Order::grid(tx, ty), dim3(TILE, BLOCK_ROWS)>>>(x, y, M, N);
}

template <class Order>
void transpose_in(const float* x, float* y, int M, int N) {
  const int tx = (N + TILE - 1) / TILE, ty = (M + TILE - 1) / TILE;
  transpose_tile_kernel<PaddedTile, Order><<<Order::grid(tx, ty), dim3(TILE, BLOCK_ROWS)>>>(x, y, M, N);
}

}  // namespace

int main(int argc, char** argv) {
  using Fn = void (*)(const float*, float*, int, int);
  struct Variant { const char* name; Fn fn; bool transposes; };
  const Variant variants[] = {
      {"copy_tiled (row-major)", copy_tiled, false},
      {"copy, column-major order", copy_in<ColumnMajorOrder>, false},
      {"copy, diagonal order", copy_in<DiagonalOrder>, false},
      {"transpose_tiled [32][33] (row-major)", transpose_tiled, true},
      {"[32][33], column-major order", transpose_in<ColumnMajorOrder>, true},
      {"[32][33], diagonal order", transpose_in<DiagonalOrder>, true},
  };
  if (argc > 1 && std::strcmp(argv[1], "counters") == 0) {
    const int M = 1024, N = 2048;
    const auto hx = bench::random_floats((size_t)M * N, 3u);
    float *x = bench::to_device(hx), *y = nullptr;
    CK(cudaMalloc(&y, (size_t)M * N * sizeof(float)));
    transpose_naive(x, y, M, N);
    transpose_tiled_unpadded(x, y, M, N);
    transpose_tiled(x, y, M, N);
    CK(cudaDeviceSynchronize());
    std::printf("ran transpose_naive, transpose_tiled_unpadded, transpose_tiled at %dx%d\n", M, N);
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "profile") == 0) {  // one launch of each at 4113×8197, twice
    const int M = 4113, N = 8197;
    const auto hx = bench::random_floats((size_t)M * N, 5u);
    float *x = bench::to_device(hx), *y = nullptr;
    CK(cudaMalloc(&y, (size_t)M * N * sizeof(float)));
    for (int rep = 0; rep < 2; ++rep)
      for (const Variant& v : variants) v.fn(x, y, M, N);
    CK(cudaDeviceSynchronize());
    std::printf("profiled two launches of each variant at %dx%d\n", M, N);
    return 0;
  }
  int failures = 0;
  const int shapes[][2] = {{4113, 8197}, {8192, 8192}, {8193, 8191}};
  std::printf("shape,variant,ms,GB/s,pct_memcpy,pct_copy_tiled,mismatches\n");
  for (const auto& s : shapes) {
    const int M = s[0], N = s[1];
    const size_t n = (size_t)M * N;
    const auto hx = bench::random_floats(n, 1000u + M);
    float *x = bench::to_device(hx), *y = nullptr;
    CK(cudaMalloc(&y, n * sizeof(float)));
    const double bytes = 2.0 * n * sizeof(float);
    const float memcpy_ms = bench::median_ms([&] { cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice); });
    const double memcpy_gbps = bench::gbps(bytes, memcpy_ms);
    std::printf("%dx%d,cudaMemcpy D2D,%.4f,%.0f,100.0,,\n", M, N, memcpy_ms, memcpy_gbps);
    double copy_gbps = 0;
    for (const Variant& v : variants) {
      bench::poison(y, n);
      v.fn(x, y, M, N);
      CK(cudaDeviceSynchronize());
      const auto hy = bench::to_host(y, n);
      long long bad = 0;
      for (int r = 0; r < M; ++r)
        for (int c = 0; c < N; ++c) {
          const float want = hx[(size_t)r * N + c];
          const float got = v.transposes ? hy[(size_t)c * M + r] : hy[(size_t)r * N + c];
          bad += !(want == got);
        }
      failures += bad > 0;
      const float ms = bench::median_ms([&] { v.fn(x, y, M, N); });
      const double g = bench::gbps(bytes, ms);
      if (copy_gbps == 0) copy_gbps = g;
      std::printf("%dx%d,%s,%.4f,%.0f,%.1f,%.1f,%lld\n", M, N, v.name, ms, g, 100.0 * g / memcpy_gbps,
                  100.0 * g / copy_gbps, bad);
    }
    cudaFree(x);
    cudaFree(y);
  }
  std::printf("failures,%d\n", failures);
  return failures ? 1 : 0;
}
