// C3 reference: matrix transpose. x is M×N, y is N×M, both row-major, device pointers.
// Every host function launches on the default stream and returns; the caller synchronises.
#include <cstdint>
#include <cuda_runtime.h>

namespace {

// region: tile-constants
constexpr int TILE = 32;       // a tile is 32×32 elements
constexpr int BLOCK_ROWS = 8;  // a block is 32×8 threads, so each thread moves TILE / BLOCK_ROWS = 4 elements
// endregion: tile-constants

// region: tile-grid
dim3 tile_grid(int M, int N) { return dim3((N + TILE - 1) / TILE, (M + TILE - 1) / TILE); }
// endregion: tile-grid

// The upper bound: the same tiling and the same bytes as a transpose, but y = x (y is M×N here).
// region: copy-kernel
__global__ void copy_tiled_kernel(const float* __restrict__ x, float* __restrict__ y, int M, int N) {
  const int c = blockIdx.x * TILE + threadIdx.x;   // column of x
  const int r0 = blockIdx.y * TILE + threadIdx.y;  // first row of x this thread handles
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int r = r0 + j;
    if (r < M && c < N) y[(int64_t)r * N + c] = x[(int64_t)r * N + c];
  }
}
// endregion: copy-kernel

// Naive: a warp reads 32 neighbours of one row of x (one 128-byte line) but writes them down a
// column of y, M floats apart: 32 sectors per store instead of 4.
// region: naive-kernel
__global__ void transpose_naive_kernel(const float* __restrict__ x, float* __restrict__ y, int M, int N) {
  const int c = blockIdx.x * TILE + threadIdx.x;   // column of x = row of y
  const int r0 = blockIdx.y * TILE + threadIdx.y;  // row of x = column of y
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int r = r0 + j;
    if (r < M && c < N) y[(int64_t)c * M + r] = x[(int64_t)r * N + c];
  }
}
// endregion: naive-kernel

// Where element (row, col) of a 32×32 tile lives in shared memory. The three layouts differ only
// in what a warp hits when it reads one column (stage 2): 32 banks, or one bank 32 times.
// region: layouts
// region: padded-tile
struct PaddedTile {  // [32][33]: each row starts one bank later, so a column spans all 32 banks
  static constexpr int kWords = TILE * (TILE + 1);
  __device__ static int at(int row, int col) { return row * (TILE + 1) + col; }
};
// endregion: padded-tile
// region: unpadded-tile
struct UnpaddedTile {  // [32][32]: every element of a column sits in the same bank (32-way conflict)
  static constexpr int kWords = TILE * TILE;
  __device__ static int at(int row, int col) { return row * TILE + col; }
};
// endregion: unpadded-tile
// region: swizzled-tile
struct SwizzledTile {  // [32][32] with column ^ row: rows permuted across banks, no padding
  static constexpr int kWords = TILE * TILE;
  __device__ static int at(int row, int col) { return row * TILE + (col ^ row); }
};
// endregion: swizzled-tile
// endregion: layouts

// Which tile of x a block handles, (tile_y, tile_x), and so which blocks the GPU runs side by side:
// blocks are started roughly in blockIdx order.
// region: orders
struct RowMajorOrder {  // consecutive blocks are neighbours along a row of x
  __device__ static int tile_x() { return blockIdx.x; }
  __device__ static int tile_y() { return blockIdx.y; }
  static dim3 grid(int tiles_x, int tiles_y) { return dim3(tiles_x, tiles_y); }
};
// region: column-major-order
struct ColumnMajorOrder {  // consecutive blocks are neighbours down a column of x = along a row of y
  __device__ static int tile_x() { return blockIdx.y; }
  __device__ static int tile_y() { return blockIdx.x; }
  static dim3 grid(int tiles_x, int tiles_y) { return dim3(tiles_y, tiles_x); }
};
// endregion: column-major-order
// endregion: orders

// Stage x's tile through shared memory so that both global sides are row-wise (coalesced).
// region: tile-kernel
template <class Layout, class Order = RowMajorOrder>
__global__ void transpose_tile_kernel(const float* __restrict__ x, float* __restrict__ y, int M, int N) {
  __shared__ float tile[Layout::kWords];
  const int bx = Order::tile_x(), by = Order::tile_y();  // this block moves tile (by, bx) of x

  // region: stage-1
  // Stage 1: read tile (by, bx) of x row by row.
  const int c = bx * TILE + threadIdx.x;   // column of x
  const int r0 = by * TILE + threadIdx.y;  // row of x
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int r = r0 + j;
    if (r < M && c < N) tile[Layout::at(threadIdx.y + j, threadIdx.x)] = x[(int64_t)r * N + c];
  }
  // endregion: stage-1

  // region: barrier
  __syncthreads();  // stage 2 reads what other warps wrote
  // endregion: barrier

  // region: stage-2
  // Stage 2: the same tile is tile (bx, by) of y. Swap the block indices, keep threadIdx.x on
  // the contiguous dimension of y, and read the tile down a column.
  const int yc = by * TILE + threadIdx.x;   // column of y = row of x
  const int yr0 = bx * TILE + threadIdx.y;  // row of y = column of x
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int yr = yr0 + j;
    if (yr < N && yc < M) y[(int64_t)yr * M + yc] = tile[Layout::at(threadIdx.x, threadIdx.y + j)];
  }
  // endregion: stage-2
}
// endregion: tile-kernel

// ---- fast: float4 where rows allow it, and a launch order that keeps y's sectors whole ----

constexpr int VT = 64;  // the float4 kernel's tile is 64×64, 256 threads, 16 elements each

// Shared tile of 64 rows × 16 float4 chunks. Stage 2 reads 4 rows of one column per float4 it
// stores; without the XOR on the chunk index those reads would hit only 8 banks (8-way conflict).
// region: chunk-at
__device__ __forceinline__ int chunk_at(int row, int chunk) { return row * (VT / 4) + (chunk ^ ((row >> 2) & 7)); }
// endregion: chunk-at

// region: vec4-kernel
template <class Order>
__global__ void transpose_vec4_kernel(const float* __restrict__ x, float* __restrict__ y, int M, int N) {
  __shared__ float4 tile[VT * VT / 4];
  const int t = threadIdx.x;
  const int m0 = Order::tile_y() * VT, n0 = Order::tile_x() * VT;

  // region: vec4-stage-1
  // Stage 1: 16 threads cover one 64-float row of x with float4 loads; 16 rows per pass.
  const int q = t % 16;
  for (int row = t / 16; row < VT; row += 16) {
    const int m = m0 + row, n = n0 + 4 * q;
    if (m < M && n < N) tile[chunk_at(row, q)] = *reinterpret_cast<const float4*>(x + (int64_t)m * N + n);
  }
  // endregion: vec4-stage-1
  __syncthreads();

  // region: vec4-stage-2
  // Stage 2: a warp writes 4 rows of y, 8 float4 each (128 contiguous bytes per row); a thread
  // gathers 4 consecutive m of one column of the tile.
  const float* s = reinterpret_cast<const float*>(tile);
  const int p = t % 8;  // which 4 rows of x (m) within a group of 32
  for (int pass = 0; pass < 4; ++pass) {
    const int col = (t / 32) * 4 + (t % 32) / 8 + (pass % 2) * 32;  // column of the tile = row of y
    const int mrow = 4 * (p + 8 * (pass / 2));                      // first of 4 tile rows
    const int n = n0 + col, m = m0 + mrow;
    float4 v;
    v.x = s[4 * chunk_at(mrow + 0, col / 4) + col % 4];
    v.y = s[4 * chunk_at(mrow + 1, col / 4) + col % 4];
    v.z = s[4 * chunk_at(mrow + 2, col / 4) + col % 4];
    v.w = s[4 * chunk_at(mrow + 3, col / 4) + col % 4];
    if (n < N && m < M) *reinterpret_cast<float4*>(y + (int64_t)n * M + m) = v;
  }
  // endregion: vec4-stage-2
}
// endregion: vec4-kernel

// region: rows-aligned
bool rows_are_16B_aligned(const void* x, const void* y, int M, int N) {
  return M % 4 == 0 && N % 4 == 0 && (reinterpret_cast<uintptr_t>(x) % 16) == 0 &&
         (reinterpret_cast<uintptr_t>(y) % 16) == 0;
}
// endregion: rows-aligned

// ---- exercise 1: in-place transpose of a square matrix ----

// Block (bx, by) with by <= bx swaps tiles (by, bx) and (bx, by); the diagonal tile is transposed
// alone. Both tiles are read before either is written, and no two blocks touch the same tile.
// region: inplace-kernel
__global__ void transpose_inplace_kernel(float* __restrict__ a, int n) {
  if (blockIdx.y > blockIdx.x) return;  // the lower triangle is handled by its mirror block
  __shared__ float upper[TILE][TILE + 1];
  __shared__ float lower[TILE][TILE + 1];
  const bool diagonal = blockIdx.x == blockIdx.y;
  const int ur = blockIdx.y * TILE, uc = blockIdx.x * TILE;  // origin of the upper tile

  for (int j = threadIdx.y; j < TILE; j += BLOCK_ROWS) {
    int r = ur + j, c = uc + threadIdx.x;  // upper tile, row-wise
    if (r < n && c < n) upper[j][threadIdx.x] = a[(int64_t)r * n + c];
    r = uc + j, c = ur + threadIdx.x;      // its mirror, row-wise
    if (!diagonal && r < n && c < n) lower[j][threadIdx.x] = a[(int64_t)r * n + c];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < TILE; j += BLOCK_ROWS) {
    int r = ur + j, c = uc + threadIdx.x;  // the upper tile gets the mirror, transposed
    if (r < n && c < n) a[(int64_t)r * n + c] = diagonal ? upper[threadIdx.x][j] : lower[threadIdx.x][j];
    r = uc + j, c = ur + threadIdx.x;      // the mirror gets the upper tile, transposed
    if (!diagonal && r < n && c < n) a[(int64_t)r * n + c] = upper[threadIdx.x][j];
  }
}
// endregion: inplace-kernel

}  // namespace

// ---- the contract: what the tests call ----

// region: contract
void transpose_naive(const float* x, float* y, int M, int N) {
  if (M <= 0 || N <= 0) return;
  transpose_naive_kernel<<<tile_grid(M, N), dim3(TILE, BLOCK_ROWS)>>>(x, y, M, N);
}

void transpose_tiled(const float* x, float* y, int M, int N) {
  if (M <= 0 || N <= 0) return;
  transpose_tile_kernel<PaddedTile><<<tile_grid(M, N), dim3(TILE, BLOCK_ROWS)>>>(x, y, M, N);
}
// endregion: contract

// ---- the variants the chapter discusses, each behind its own host function ----

// region: copy-tiled
void copy_tiled(const float* x, float* y, int M, int N) {
  if (M <= 0 || N <= 0) return;
  copy_tiled_kernel<<<tile_grid(M, N), dim3(TILE, BLOCK_ROWS)>>>(x, y, M, N);
}
// endregion: copy-tiled

// region: tile-variants
void transpose_tiled_unpadded(const float* x, float* y, int M, int N) {
  if (M <= 0 || N <= 0) return;
  transpose_tile_kernel<UnpaddedTile><<<tile_grid(M, N), dim3(TILE, BLOCK_ROWS)>>>(x, y, M, N);
}

void transpose_tiled_swizzled(const float* x, float* y, int M, int N) {
  if (M <= 0 || N <= 0) return;
  transpose_tile_kernel<SwizzledTile><<<tile_grid(M, N), dim3(TILE, BLOCK_ROWS)>>>(x, y, M, N);
}
// endregion: tile-variants

// region: transpose-fast
// When M is not a multiple of 8, rows of y start inside a 32-byte sector, so every tile's store
// to a row of y shares its first and last sector with the tiles beside it in that row. Launched
// column-major, the blocks that run side by side write a few rows of y end to end, as a copy does;
// on an H200 that order takes 4113x8197 from 68% to 98% of the copy kernel (content/c3.md 8.2; the
// measurements are in benchmarks/). Why row-major order costs that much is not settled.
void transpose_fast(const float* x, float* y, int M, int N) {
  if (M <= 0 || N <= 0) return;
  const bool vec4 = rows_are_16B_aligned(x, y, M, N);
  const int tile = vec4 ? VT : TILE;
  const int tiles_x = (N + tile - 1) / tile, tiles_y = (M + tile - 1) / tile;
  if (tiles_x > 65535) {  // grid.y cannot hold that many: keep the row-major order
    transpose_tile_kernel<PaddedTile><<<tile_grid(M, N), dim3(TILE, BLOCK_ROWS)>>>(x, y, M, N);
  } else if (vec4) {
    transpose_vec4_kernel<ColumnMajorOrder><<<ColumnMajorOrder::grid(tiles_x, tiles_y), 256>>>(x, y, M, N);
  } else {
    transpose_tile_kernel<PaddedTile, ColumnMajorOrder>
        <<<ColumnMajorOrder::grid(tiles_x, tiles_y), dim3(TILE, BLOCK_ROWS)>>>(x, y, M, N);
  }
}
// endregion: transpose-fast

// region: inplace-host
void transpose_inplace_square(float* a, int n) {
  if (n <= 0) return;
  const int tiles = (n + TILE - 1) / TILE;
  transpose_inplace_kernel<<<dim3(tiles, tiles), dim3(TILE, BLOCK_ROWS)>>>(a, n);
}
// endregion: inplace-host
