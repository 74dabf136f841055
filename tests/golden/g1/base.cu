// Problem 84 (G1): C (M×N, float) = A (M×K, half) · B (K×N, half) on the tensor cores.
// Read content/g1.md first. Judge with: python practice/judge.py 84
//
// The tests call the two host functions at the bottom; keep their names and signatures. Pointers
// are device pointers, row-major; launch on the default stream and return. The judged shapes have
// M, N and K multiples of 16, but not of the block tile (128×128×32): handle the partial tiles.
// Optional: define hgemm_fast (same signature) with your best kernel; the speed tier times it.
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

// ---- warm-up: nvcuda::wmma, one warp per 16×16 tile of C ----

constexpr int WMMA_WARPS_M = 2, WMMA_WARPS_N = 4;  // a block of 8 warps covers 32×64 of C

__global__ void hgemm_wmma_kernel(const __half* A, const __half* B, float* C, int M, int N, int K) {
  using namespace nvcuda;
  const int warp = threadIdx.x / 32;
  const int m0 = (blockIdx.y * WMMA_WARPS_M + warp / WMMA_WARPS_N) * 16;  // this warp's 16×16 tile of C
  const int n0 = (blockIdx.x * WMMA_WARPS_N + warp % WMMA_WARPS_N) * 16;
  if (m0 >= M || n0 >= N) return;  // the whole warp leaves: wmma needs all 32 lanes
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(c, 0.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + (int64_t)m0 * K + k, K);
    wmma::load_matrix_sync(b, B + (int64_t)k * N + n0, N);
    wmma::mma_sync(c, a, b, c);
  }
  wmma::store_matrix_sync(C + (int64_t)m0 * N + n0, c, N, wmma::mem_row_major);
}

// ---- the exercise: shared-memory tiles, ldmatrix, mma.sync m16n8k16, XOR swizzle ----

// The PTX, one wrapper per instruction (content/g1.md §3 draws what each lane gets).
__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3,
                                                  uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}
__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

constexpr int BM = 128, BN = 128, BK = 32;           // a block computes a 128×128 tile of C
constexpr int WARPS_M = 2, WARPS_N = 4;              // 8 warps, each a 64×32 piece of it
constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;
constexpr int MI = WM / 16, NI = WN / 8;             // 4 × 4 mma tiles (m16n8) per warp
constexpr int THREADS = 32 * WARPS_M * WARPS_N;
constexpr int A_CHUNKS = BK / 8, B_CHUNKS = BN / 8;  // 16-byte chunks per tile row: 4 and 16

// Where 16-byte chunk c of row r of a tile with `chunks` chunks per row lives, in chunks.
__device__ __forceinline__ int swizzled(int r, int c, int chunks) {
  const int rows_per_line = chunks >= 8 ? 1 : 8 / chunks;
  return r * chunks + (c ^ ((r / rows_per_line) % (chunks >= 8 ? 8 : chunks)));
}

__global__ void __launch_bounds__(THREADS) hgemm_mma_kernel(const __half* A, const __half* B, float* C, int M, int N,
                                                            int K) {
  __shared__ __align__(128) __half sA[BM * BK];
  __shared__ __align__(128) __half sB[BK * BN];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int wm = warp / WARPS_N, wn = warp % WARPS_N;  // this warp's place in the block tile
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[MI][NI][4] = {};

  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int id = threadIdx.x; id < BM * A_CHUNKS; id += THREADS) {
      const int r = id / A_CHUNKS, c = id % A_CHUNKS;
      uint4 v = make_uint4(0, 0, 0, 0);
      if (m0 + r < M && k0 + 8 * c < K) v = *reinterpret_cast<const uint4*>(A + (int64_t)(m0 + r) * K + k0 + 8 * c);
      *reinterpret_cast<uint4*>(sA + 8 * swizzled(r, c, A_CHUNKS)) = v;
    }
    for (int id = threadIdx.x; id < BK * B_CHUNKS; id += THREADS) {
      const int r = id / B_CHUNKS, c = id % B_CHUNKS;
      uint4 v = make_uint4(0, 0, 0, 0);
      if (k0 + r < K && n0 + 8 * c < N) v = *reinterpret_cast<const uint4*>(B + (int64_t)(k0 + r) * N + n0 + 8 * c);
      *reinterpret_cast<uint4*>(sB + 8 * swizzled(r, c, B_CHUNKS)) = v;
    }
    __syncthreads();

    for (int ks = 0; ks < BK; ks += 16) {
      uint32_t a[MI][4], b[NI][2];
#pragma unroll
      for (int mi = 0; mi < MI; ++mi) {
        const int r = wm * WM + mi * 16 + lane % 16;
        ldmatrix_x4(a[mi], smem_addr(sA + 8 * swizzled(r, ks / 8 + lane / 16, A_CHUNKS)));
      }
#pragma unroll
      for (int ni = 0; ni < NI; ni += 2) {
        const int r = ks + lane % 16, c = (wn * WN + ni * 8) / 8 + lane / 16;
        ldmatrix_x4_trans(b[ni][0], b[ni][1], b[ni + 1][0], b[ni + 1][1], smem_addr(sB + 8 * swizzled(r, c, B_CHUNKS)));
      }
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) mma_16816(acc[mi][ni], a[mi], b[ni][0], b[ni][1]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + wm * WM + mi * 16 + lane / 4 + 8 * h;
        const int col = n0 + wn * WN + ni * 8 + 2 * (lane % 4);
        if (row < M && col < N) C[(int64_t)row * N + col] = acc[mi][ni][2 * h];
        if (row < M && col + 1 < N) C[(int64_t)row * N + col + 1] = acc[mi][ni][2 * h + 1];
      }
}

// hgemm_fast: the same tiles, two buffers filled by cp.async while the other is computed.
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}

__device__ void load_async(__half* sA, __half* sB, const __half* A, const __half* B, int M, int N, int K, int m0,
                           int n0, int k0) {
  for (int id = threadIdx.x; id < BM * A_CHUNKS; id += THREADS) {
    const int r = id / A_CHUNKS, c = id % A_CHUNKS;
    const bool in = m0 + r < M && k0 + 8 * c < K;
    cp_async_16(smem_addr(sA + 8 * swizzled(r, c, A_CHUNKS)), in ? A + (int64_t)(m0 + r) * K + k0 + 8 * c : A, in ? 16 : 0);
  }
  for (int id = threadIdx.x; id < BK * B_CHUNKS; id += THREADS) {
    const int r = id / B_CHUNKS, c = id % B_CHUNKS;
    const bool in = k0 + r < K && n0 + 8 * c < N;
    cp_async_16(smem_addr(sB + 8 * swizzled(r, c, B_CHUNKS)), in ? B + (int64_t)(k0 + r) * N + n0 + 8 * c : B, in ? 16 : 0);
  }
  asm volatile("cp.async.commit_group;\n" ::);
}

__global__ void __launch_bounds__(THREADS) hgemm_fast_kernel(const __half* A, const __half* B, float* C, int M, int N,
                                                             int K) {
  __shared__ __align__(128) __half sA[2][BM * BK];
  __shared__ __align__(128) __half sB[2][BK * BN];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int wm = warp / WARPS_N, wn = warp % WARPS_N;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tiles = (K + BK - 1) / BK;
  float acc[MI][NI][4] = {};
  load_async(sA[0], sB[0], A, B, M, N, K, m0, n0, 0);
  for (int kt = 0; kt < tiles; ++kt) {
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads();
    if (kt + 1 < tiles) load_async(sA[(kt + 1) % 2], sB[(kt + 1) % 2], A, B, M, N, K, m0, n0, (kt + 1) * BK);
    const __half* tA = sA[kt % 2];
    const __half* tB = sB[kt % 2];
#pragma unroll
    for (int ks = 0; ks < BK; ks += 16) {
      uint32_t a[MI][4], b[NI][2];
#pragma unroll
      for (int mi = 0; mi < MI; ++mi) {
        const int r = wm * WM + mi * 16 + lane % 16;
        ldmatrix_x4(a[mi], smem_addr(tA + 8 * swizzled(r, ks / 8 + lane / 16, A_CHUNKS)));
      }
#pragma unroll
      for (int ni = 0; ni < NI; ni += 2) {
        const int r = ks + lane % 16, c = (wn * WN + ni * 8) / 8 + lane / 16;
        ldmatrix_x4_trans(b[ni][0], b[ni][1], b[ni + 1][0], b[ni + 1][1], smem_addr(tB + 8 * swizzled(r, c, B_CHUNKS)));
      }
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) mma_16816(acc[mi][ni], a[mi], b[ni][0], b[ni][1]);
    }
  }
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + wm * WM + mi * 16 + lane / 4 + 8 * h;
        const int col = n0 + wn * WN + ni * 8 + 2 * (lane % 4);
        if (row < M && col < N) C[(int64_t)row * N + col] = acc[mi][ni][2 * h];
        if (row < M && col + 1 < N) C[(int64_t)row * N + col + 1] = acc[mi][ni][2 * h + 1];
      }
}

void hgemm_fast(const __half* A, const __half* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0) return;
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  hgemm_fast_kernel<<<grid, THREADS>>>(A, B, C, M, N, K);
}

void hgemm_wmma(const __half* A, const __half* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0) return;
  const dim3 grid((N + 16 * WMMA_WARPS_N - 1) / (16 * WMMA_WARPS_N), (M + 16 * WMMA_WARPS_M - 1) / (16 * WMMA_WARPS_M));
  hgemm_wmma_kernel<<<grid, 32 * WMMA_WARPS_M * WMMA_WARPS_N>>>(A, B, C, M, N, K);
}

void hgemm_mma(const __half* A, const __half* B, float* C, int M, int N, int K) {
  if (M <= 0 || N <= 0) return;
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  hgemm_mma_kernel<<<grid, THREADS>>>(A, B, C, M, N, K);
}
