// C4 reference: SGEMM, C (M×N) = A (M×K) · B (K×N). float32 in, float32 accumulation (FFMA, no
// TF32), row-major, device pointers. Every host function launches on the default stream and
// returns; the caller synchronises. Every variant handles any M, N, K ≥ 1: tiles that stick out of
// the matrices are filled with zeros in shared memory, and outputs outside C are never written.
#include <cstdint>
#include <cuda_runtime.h>

namespace {

__host__ __device__ int ceil_div(int a, int b) { return (a + b - 1) / b; }

// ---- one thread per element of C ----

constexpr int NAIVE_X = 32, NAIVE_Y = 8;  // a 32×8 block: one warp is one threadIdx.y

// region: uncoalesced
// Lanes of a warp take 32 neighbouring ROWS of C: at each k they read A down a column (32 rows,
// 32 sectors) and B at one address (a broadcast), and they store C down a column.
__global__ void sgemm_uncoalesced_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                         float* __restrict__ C, int M, int N, int K) {
  const int m = blockIdx.x * NAIVE_X + threadIdx.x;  // row of C
  const int n = blockIdx.y * NAIVE_Y + threadIdx.y;  // column of C
  if (m >= M || n >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[(int64_t)m * K + k] * B[(int64_t)k * N + n];
  C[(int64_t)m * N + n] = acc;
}
// endregion: uncoalesced

// region: naive
// Lanes take 32 neighbouring COLUMNS of C: B's row k and C's row m are read and written as
// 128 contiguous bytes, and A[m][k] is one address for the whole warp.
__global__ void sgemm_naive_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                   float* __restrict__ C, int M, int N, int K) {
  const int n = blockIdx.x * NAIVE_X + threadIdx.x;  // column of C
  const int m = blockIdx.y * NAIVE_Y + threadIdx.y;  // row of C
  if (m >= M || n >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[(int64_t)m * K + k] * B[(int64_t)k * N + n];
  C[(int64_t)m * N + n] = acc;
}
// endregion: naive

// ---- shared-memory tiles: each element of A and B read from global memory once per tile ----

constexpr int TILE = 32;  // a 32×32 tile, one thread per element of C: 1024 threads

// region: tiled
__global__ void sgemm_tiled_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                   float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];  // As[row of C][k]
  __shared__ float Bs[TILE][TILE];  // Bs[k][column of C]
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int m = blockIdx.y * TILE + ty;  // row of C
  const int n = blockIdx.x * TILE + tx;  // column of C
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    // Outside A or B the tile holds zeros, which add nothing: this is how K % TILE != 0 is handled.
    As[ty][tx] = (m < M && k0 + tx < K) ? A[(int64_t)m * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && n < N) ? B[(int64_t)(k0 + ty) * N + n] : 0.0f;
    __syncthreads();  // the tile is complete before anyone reads it
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];  // As: a broadcast; Bs: 32 banks
    __syncthreads();  // nobody overwrites the tile while another warp still reads it
  }
  if (m < M && n < N) C[(int64_t)m * N + n] = acc;
}
// endregion: tiled

// ---- register blocking: each thread computes several elements of C from values in registers ----

// region: blocktile-1d
// A 64×64 block tile, 512 threads, each computing TM = 8 rows of one column: one value of Bs feeds
// 8 FMAs, and the block reads each element of A and B once per 64 columns or rows of C.
template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__(BM / TM * BN) sgemm_blocktile_1d_kernel(const float* __restrict__ A,
                                                                      const float* __restrict__ B,
                                                                      float* __restrict__ C, int M, int N, int K) {
  constexpr int THREADS = BM / TM * BN;
  static_assert(BM * BK == THREADS && BK * BN == THREADS, "one element of each tile per thread");
  __shared__ float As[BM][BK];
  __shared__ float Bs[BK][BN];
  const int t = threadIdx.x;
  const int tx = t % BN, ty = t / BN;  // this thread: column tx, rows ty*TM .. ty*TM+TM-1 of the tile
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int am = t / BK, ak = t % BK;  // the element of the A tile this thread loads
  const int bk = t / BN, bn = t % BN;  // and of the B tile
  float acc[TM] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    As[am][ak] = (m0 + am < M && k0 + ak < K) ? A[(int64_t)(m0 + am) * K + k0 + ak] : 0.0f;
    Bs[bk][bn] = (k0 + bk < K && n0 + bn < N) ? B[(int64_t)(k0 + bk) * N + n0 + bn] : 0.0f;
    __syncthreads();
    for (int k = 0; k < BK; ++k) {
      const float b = Bs[k][tx];
      for (int i = 0; i < TM; ++i) acc[i] += As[ty * TM + i][k] * b;
    }
    __syncthreads();
  }
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + ty * TM + i, n = n0 + tx;
    if (m < M && n < N) C[(int64_t)m * N + n] = acc[i];
  }
}
// endregion: blocktile-1d

// region: blocktile-2d
// A 128×128 block tile, 256 threads, each computing an 8×8 grid of C: 16 shared loads feed 64 FMAs.
// A thread's rows and columns are 16 apart, so at each k a warp reads 16 neighbouring words of Bs
// (all banks, the other half-warp a broadcast) and two words of As.
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(BM / TM * (BN / TN)) sgemm_blocktile_2d_kernel(const float* __restrict__ A,
                                                                              const float* __restrict__ B,
                                                                              float* __restrict__ C, int M, int N,
                                                                              int K) {
  constexpr int TX = BN / TN, TY = BM / TM, THREADS = TX * TY;
  static_assert(BM * BK % THREADS == 0 && BK * BN % THREADS == 0, "whole tiles per pass");
  __shared__ float As[BM][BK];
  __shared__ float Bs[BK][BN];
  const int t = threadIdx.x;
  const int tx = t % TX, ty = t / TX;  // rows ty + TY*i, columns tx + TX*j of the tile
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[TM][TN] = {};
  float a[TM], b[TN];
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = t; e < BM * BK; e += THREADS) {
      const int m = e / BK, k = e % BK;
      As[m][k] = (m0 + m < M && k0 + k < K) ? A[(int64_t)(m0 + m) * K + k0 + k] : 0.0f;
    }
    for (int e = t; e < BK * BN; e += THREADS) {
      const int k = e / BN, n = e % BN;
      Bs[k][n] = (k0 + k < K && n0 + n < N) ? B[(int64_t)(k0 + k) * N + n0 + n] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k) {
      for (int i = 0; i < TM; ++i) a[i] = As[ty + TY * i][k];
      for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx + TX * j];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) {
      const int m = m0 + ty + TY * i, n = n0 + tx + TX * j;
      if (m < M && n < N) C[(int64_t)m * N + n] = acc[i][j];
    }
}
// endregion: blocktile-2d

// ---- float4 loads, a transposed A tile, warp tiles, double buffering: one kernel, configured ----
//
// Each thread computes TMI × TNJ sub-tiles of 4×4 elements of C. At every k it reads TMI float4 of
// the A tile and TNJ float4 of the B tile, so the A tile is stored transposed (As[k][m]): four
// consecutive rows of A for one k are then one float4. Which sub-tiles a thread owns is the
// layout: spread over the whole block tile (BlockLayout) or packed into one warp's tile
// (WarpLayout).

// region: block-layout
// 16×16 threads over a 128×128 tile; thread (ty, tx) owns rows ty*4 + 64*i and columns tx*4 + 64*j.
// A warp is two values of ty: at each k it reads 2 float4 of As and 16 of Bs (256 bytes).
template <int BM_, int BN_, int BK_>
struct BlockLayout {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TMI = 2, TNJ = 2;
  static constexpr int THREADS = (BM / (4 * TMI)) * (BN / (4 * TNJ));
  __device__ static int row(int i) {  // first of the 4 rows of sub-tile i
    constexpr int tx_count = BN / (4 * TNJ);
    return (threadIdx.x / tx_count) * 4 + i * (BM / TMI);
  }
  __device__ static int col(int j) {
    constexpr int tx_count = BN / (4 * TNJ);
    return (threadIdx.x % tx_count) * 4 + j * (BN / TNJ);
  }
};
// endregion: block-layout

// region: warp-layout
// Warps tile the block tile with WM×WN warp tiles; the 32 lanes of a warp form LM×LN (4×8 or 8×4)
// and own 4×4 sub-tiles spaced 4·LM rows and 4·LN columns apart inside the warp tile. At each k a
// 4×8 warp reads 4 float4 of As (64 bytes) and 8 of Bs (128 bytes) per sub-tile row or column: a
// smaller footprint in shared memory per FMA than BlockLayout's.
template <int BM_, int BN_, int BK_, int WM, int WN, int LM>
struct WarpLayout {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, LN = 32 / LM;
  static constexpr int TMI = WM / (4 * LM), TNJ = WN / (4 * LN);
  static constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
  static_assert(BM % WM == 0 && BN % WN == 0 && TMI >= 1 && TNJ >= 1 && WM % (4 * LM) == 0 && WN % (4 * LN) == 0,
                "warp tiles must cover the block tile with whole 4×4 sub-tiles");
  __device__ static int row(int i) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return (warp / (BN / WN)) * WM + i * 4 * LM + (lane / LN) * 4;
  }
  __device__ static int col(int j) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return (warp % (BN / WN)) * WN + j * 4 * LN + (lane % LN) * 4;
  }
};
// endregion: warp-layout

// region: swizzle
// The A tile arrives as float4 along k (4 consecutive k of one row m) and is stored transposed, one
// float per row k of As. BK/4 threads share a row m, so a warp stores R = 128/BK rows m for each
// of BK/4 groups of k: without a swizzle the groups land in the same R banks (a BK/4-way conflict,
// C3's lesson again). XOR-ing m with (k/4)·R moves each group to its own R banks. The XOR only
// touches bits 2..4 of m, so 4 consecutive m stay one aligned float4 for the compute loop's reads.
template <int BK>
__device__ __forceinline__ int swizzled_m(int k, int m) {
  static_assert(BK == 4 || BK == 8 || BK == 16 || BK == 32, "R = 128/BK must be a multiple of 4");
  return m ^ ((k >> 2) * (128 / BK));
}
// endregion: swizzle

// One stage of shared memory: the transposed A tile and the B tile.
template <int BM, int BN, int BK>
struct Stage {
  float As[BK][BM];
  float Bs[BK][BN];
};

// region: tile-loader
// The global-to-shared copy of one BM×BK tile of A and one BK×BN tile of B, split in two halves so
// that the loads can be issued early (into registers) and stored later (double buffering). With
// kVec, each thread moves float4s (needs K % 4 == 0, N % 4 == 0 and 16-byte aligned pointers);
// otherwise four floats, each checked against the matrix edges. Outside A or B it loads zeros.
template <int BM, int BN, int BK, int THREADS, bool kVec>
struct TileLoader {
  // A float4 "unit" is 4 consecutive k of one row of A, or 4 consecutive n of one row of B.
  // Thread t moves units t, t + THREADS, ...; when a tile has fewer units than the block has
  // threads, the last threads move none.
  static constexpr int A_UNITS = BM * BK / 4, B_UNITS = BK * BN / 4;
  static constexpr int A_PASSES = (A_UNITS + THREADS - 1) / THREADS, B_PASSES = (B_UNITS + THREADS - 1) / THREADS;
  static_assert(A_UNITS % THREADS == 0 || THREADS % A_UNITS == 0, "whole passes over the A tile");
  static_assert(B_UNITS % THREADS == 0 || THREADS % B_UNITS == 0, "whole passes over the B tile");
  float4 a[A_PASSES], b[B_PASSES];

  __device__ static bool moves(int unit, int units) { return units >= THREADS || unit < units; }

  __device__ void load(const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K, int m0,
                       int n0, int k0) {
#pragma unroll
    for (int p = 0; p < A_PASSES; ++p) {
      const int u = threadIdx.x + p * THREADS;
      const int m = m0 + u / (BK / 4), k = k0 + (u % (BK / 4)) * 4;
      const bool in = moves(u, A_UNITS) && m < M;
      const float* src = A + (int64_t)m * K + k;
      if (kVec) {
        a[p] = (in && k < K) ? *reinterpret_cast<const float4*>(src) : make_float4(0, 0, 0, 0);
      } else {
        a[p].x = (in && k + 0 < K) ? src[0] : 0.0f;
        a[p].y = (in && k + 1 < K) ? src[1] : 0.0f;
        a[p].z = (in && k + 2 < K) ? src[2] : 0.0f;
        a[p].w = (in && k + 3 < K) ? src[3] : 0.0f;
      }
    }
#pragma unroll
    for (int p = 0; p < B_PASSES; ++p) {
      const int u = threadIdx.x + p * THREADS;
      const int k = k0 + u / (BN / 4), n = n0 + (u % (BN / 4)) * 4;
      const bool in = moves(u, B_UNITS) && k < K;
      const float* src = B + (int64_t)k * N + n;
      if (kVec) {
        b[p] = (in && n < N) ? *reinterpret_cast<const float4*>(src) : make_float4(0, 0, 0, 0);
      } else {
        b[p].x = (in && n + 0 < N) ? src[0] : 0.0f;
        b[p].y = (in && n + 1 < N) ? src[1] : 0.0f;
        b[p].z = (in && n + 2 < N) ? src[2] : 0.0f;
        b[p].w = (in && n + 3 < N) ? src[3] : 0.0f;
      }
    }
  }

  __device__ void store(Stage<BM, BN, BK>& s) const {
#pragma unroll
    for (int p = 0; p < A_PASSES; ++p) {
      const int u = threadIdx.x + p * THREADS;
      if (!moves(u, A_UNITS)) continue;
      const int m = u / (BK / 4), k = (u % (BK / 4)) * 4;
      s.As[k + 0][swizzled_m<BK>(k, m)] = a[p].x;
      s.As[k + 1][swizzled_m<BK>(k, m)] = a[p].y;
      s.As[k + 2][swizzled_m<BK>(k, m)] = a[p].z;
      s.As[k + 3][swizzled_m<BK>(k, m)] = a[p].w;
    }
#pragma unroll
    for (int p = 0; p < B_PASSES; ++p) {
      const int u = threadIdx.x + p * THREADS;
      if (moves(u, B_UNITS)) *reinterpret_cast<float4*>(&s.Bs[u / (BN / 4)][(u % (BN / 4)) * 4]) = b[p];
    }
  }
};
// endregion: tile-loader

// Which tile of C a block computes. Consecutive blocks run at the same time; taking them GROUP
// tile-rows at a time (down, then across) keeps the rows of A and the columns of B they share in L2.
__device__ __forceinline__ void tile_of_block(int tiles_m, int tiles_n, int group, int& tm, int& tn) {
  const int id = blockIdx.x, per_group = group * tiles_n;
  const int first = (id / per_group) * group;
  const int rows = min(tiles_m - first, group);
  tm = first + (id % per_group) % rows;
  tn = (id % per_group) / rows;
}

// gridDim.y > 1 splits K: slice blockIdx.y sums its share of the tiles along K and adds its partial C
// with atomicAdd into a C the host zeroed (for shapes with too few tiles of C to fill the GPU).
template <class L, int STAGES, int MIN_BLOCKS, bool kVec>
__global__ void __launch_bounds__(L::THREADS, MIN_BLOCKS)
    sgemm_register_tile_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                               int M, int N, int K, int group) {
  constexpr int BM = L::BM, BN = L::BN, BK = L::BK, TMI = L::TMI, TNJ = L::TNJ;
  static_assert(STAGES == 1 || STAGES == 2, "one stage, or two (double buffering)");
  static_assert(BM % 32 == 0, "the swizzle permutes m within groups of 32");
  __shared__ __align__(16) Stage<BM, BN, BK> stage[STAGES];
  int tm, tn;
  tile_of_block(ceil_div(M, BM), ceil_div(N, BN), group, tm, tn);
  const int m0 = tm * BM, n0 = tn * BN;

  float acc[TMI * 4][TNJ * 4] = {};
  TileLoader<BM, BN, BK, L::THREADS, kVec> loader;
  const int all_tiles = ceil_div(K, BK), per_slice = ceil_div(all_tiles, gridDim.y);
  const int first = blockIdx.y * per_slice, tiles = min(all_tiles - first, per_slice);
  if (tiles <= 0) return;  // a slice past the end of K (whole block: no barrier is skipped by part of it)
  const int k_begin = first * BK;

  // region: register-tile-compute
  auto compute = [&](const Stage<BM, BN, BK>& s) {
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TMI * 4], b[TNJ * 4];
#pragma unroll
      for (int i = 0; i < TMI; ++i)
        *reinterpret_cast<float4*>(&a[4 * i]) = *reinterpret_cast<const float4*>(&s.As[k][swizzled_m<BK>(k, L::row(i))]);
#pragma unroll
      for (int j = 0; j < TNJ; ++j)
        *reinterpret_cast<float4*>(&b[4 * j]) = *reinterpret_cast<const float4*>(&s.Bs[k][L::col(j)]);
#pragma unroll
      for (int r = 0; r < TMI * 4; ++r)
#pragma unroll
        for (int c = 0; c < TNJ * 4; ++c) acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
    }
  };
  // endregion: register-tile-compute

  // region: double-buffering
  if (STAGES == 1) {
    for (int t = 0; t < tiles; ++t) {
      loader.load(A, B, M, N, K, m0, n0, k_begin + t * BK);
      loader.store(stage[0]);
      __syncthreads();
      compute(stage[0]);
      __syncthreads();
    }
  } else {
    // Double buffering: tile t+1's global loads are in flight while tile t is computed, and it is
    // stored into the other stage. One barrier per tile suffices: a thread writing stage (t+1)%2
    // has passed the barrier that every thread reached after computing on it (tile t-1).
    loader.load(A, B, M, N, K, m0, n0, k_begin);
    loader.store(stage[0]);
    __syncthreads();
    for (int t = 0; t < tiles; ++t) {
      // Unconditional, so that ptxas keeps the loads above the compute: past the end of K the
      // loader reads nothing (zeros), and the last round's values are never stored.
      loader.load(A, B, M, N, K, m0, n0, k_begin + (t + 1) * BK);
      compute(stage[t % STAGES]);
      if (t + 1 < tiles) loader.store(stage[(t + 1) % STAGES]);
      __syncthreads();
    }
  }
  // endregion: double-buffering

#pragma unroll
  for (int i = 0; i < TMI; ++i)
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int m = m0 + L::row(i) + r;
      if (m >= M) continue;
#pragma unroll
      for (int j = 0; j < TNJ; ++j) {
        const int n = n0 + L::col(j);
        float* dst = C + (int64_t)m * N + n;
        const float* v = &acc[4 * i + r][4 * j];
        if (gridDim.y > 1) {
#pragma unroll
          for (int c = 0; c < 4; ++c)
            if (n + c < N) atomicAdd(dst + c, v[c]);
        } else if (kVec) {  // N % 4 == 0: the float4 is wholly inside or wholly outside
          if (n < N) *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
        } else {
#pragma unroll
          for (int c = 0; c < 4; ++c)
            if (n + c < N) dst[c] = v[c];
        }
      }
    }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// float4 loads and stores are legal when every row of A, B and C starts on 16 bytes.
bool vector_ok(const float* A, const float* B, const float* C, int N, int K) {
  return K % 4 == 0 && N % 4 == 0 && aligned16(A) && aligned16(B) && aligned16(C);
}

// One configuration of the register-tile kernel, launched for any shape: `group` tile-rows per
// band of the launch order, K split into `slices`.
template <class L, int STAGES, int MIN_BLOCKS = 1>
void launch_register_tile(const float* A, const float* B, float* C, int M, int N, int K, int group = 1,
                          int slices = 1) {
  slices = max(1, min(slices, ceil_div(K, L::BK)));
  if (slices > 1) cudaMemsetAsync(C, 0, sizeof(float) * M * N);  // the slices add into C
  const dim3 grid(ceil_div(M, L::BM) * ceil_div(N, L::BN), slices);
  if (vector_ok(A, B, C, N, K))
    sgemm_register_tile_kernel<L, STAGES, MIN_BLOCKS, true><<<grid, L::THREADS>>>(A, B, C, M, N, K, group);
  else
    sgemm_register_tile_kernel<L, STAGES, MIN_BLOCKS, false><<<grid, L::THREADS>>>(A, B, C, M, N, K, group);
}

// The ladder's configurations. The ladder's rungs cap registers at 128 (two blocks of 256 threads
// per SM), so that each rung differs from the last by its one step.
using VectorizedLayout = BlockLayout<128, 128, 8>;
using WarpTiled = WarpLayout<128, 128, 8, 32, 64, 4>;  // 8 warps of 32×64, lanes 4×8, 8×8 per thread
// sgemm_fast's, from the H200 tuning sweep (benchmarks/h200/c4.sh, first run): the best at 4096³ and
// 4096×2048×1024 with float4 (86.5% and 98.3% of cuBLAS), the best without float4 at 4095×2047×1023
// (78.2%), and the best for 128×4096×4096 (54.6% before split K).
using FastLarge = WarpLayout<128, 128, 16, 32, 64, 4>;   // 2 stages, 2 blocks per SM
using FastScalar = WarpLayout<64, 128, 16, 32, 64, 4>;   // 1 stage, 2 blocks per SM
using FastSmall = WarpLayout<64, 64, 32, 32, 32, 4>;     // 1 stage, 2 blocks per SM, K split
constexpr int FAST_GROUP = 8;

int sm_count() {
  static int count = 0;
  if (count == 0) {
    int dev = 0;
    cudaGetDevice(&dev);
    if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || count <= 0) count = 1;
  }
  return count;
}

}  // namespace

// ---- the contract: what the tests call ----

// region: launch-naive
void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  dim3 grid(ceil_div(N, NAIVE_X), ceil_div(M, NAIVE_Y));
  sgemm_naive_kernel<<<grid, dim3(NAIVE_X, NAIVE_Y)>>>(A, B, C, M, N, K);
}
// endregion: launch-naive

// region: launch-tiled
void sgemm_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  dim3 grid(ceil_div(N, TILE), ceil_div(M, TILE));
  sgemm_tiled_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, M, N, K);
}
// endregion: launch-tiled

// The learner's best: the tuned configurations of the register-tile kernel. Rows that float4 cannot
// read (K or N not a multiple of 4) take a narrower tile; small problems (fewer tiles of 128×128 than
// two per SM) take 64×64 tiles, and K is split until every SM has two blocks.
void sgemm_fast(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  const int large_tiles = ceil_div(M, FastLarge::BM) * ceil_div(N, FastLarge::BN);
  if (large_tiles >= 2 * sm_count() && vector_ok(A, B, C, N, K)) {
    launch_register_tile<FastLarge, 2, 2>(A, B, C, M, N, K, FAST_GROUP);
  } else if (large_tiles >= 2 * sm_count()) {
    launch_register_tile<FastScalar, 1, 2>(A, B, C, M, N, K, FAST_GROUP);
  } else {
    const int small_tiles = ceil_div(M, FastSmall::BM) * ceil_div(N, FastSmall::BN);
    const int slices = max(1, min(2 * sm_count() / small_tiles, K / 256));  // a slice keeps ≥ 256 of K
    launch_register_tile<FastSmall, 1, 2>(A, B, C, M, N, K, FAST_GROUP, slices);
  }
}

// ---- the ladder the chapter measures, each step behind its own host function ----

void sgemm_uncoalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  dim3 grid(ceil_div(M, NAIVE_X), ceil_div(N, NAIVE_Y));
  sgemm_uncoalesced_kernel<<<grid, dim3(NAIVE_X, NAIVE_Y)>>>(A, B, C, M, N, K);
}

void sgemm_blocktile_1d(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
  sgemm_blocktile_1d_kernel<BM, BN, BK, TM><<<dim3(ceil_div(N, BN), ceil_div(M, BM)), BM / TM * BN>>>(A, B, C, M, N, K);
}

void sgemm_blocktile_2d(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  sgemm_blocktile_2d_kernel<BM, BN, BK, TM, TN>
      <<<dim3(ceil_div(N, BN), ceil_div(M, BM)), (BM / TM) * (BN / TN)>>>(A, B, C, M, N, K);
}

void sgemm_vectorized(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  launch_register_tile<VectorizedLayout, 1, 2>(A, B, C, M, N, K);
}

void sgemm_warptile(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  launch_register_tile<WarpTiled, 1, 2>(A, B, C, M, N, K);
}

void sgemm_double_buffered(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  launch_register_tile<WarpTiled, 2, 2>(A, B, C, M, N, K);
}
