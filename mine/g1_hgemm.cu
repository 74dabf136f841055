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
  // TODO: (about 9 lines) fragments a (matrix_a, row_major), b (matrix_b, row_major) and an
  // accumulator c of float, filled with 0; for k = 0, 16, ...: load_matrix_sync the 16×16 pieces
  // of A at (m0, k) and of B at (k, n0) (leading dimensions K and N), mma_sync; then
  // store_matrix_sync c to C at (m0, n0), row-major, leading dimension N.
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
  // TODO: (1-3 lines) return r * chunks + c is correct but conflicts (4-way on A, 8-way on B):
  // XOR c with the row's position among the rows that share one 128-byte line of banks.
  return r * chunks + c;
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
    // TODO: (about 12 lines) copy the 128×32 tile of A at (m0, k0) and the 32×128 tile of B at
    // (k0, n0) into sA and sB, one 16-byte chunk (uint4, 8 halves) per thread per pass, chunk c
    // of row r stored at sA + 8 * swizzled(r, c, A_CHUNKS). Chunks outside A or B are zeros.

    // TODO: wait until every warp's chunks are in shared memory.

    for (int ks = 0; ks < BK; ks += 16) {
      uint32_t a[MI][4], b[NI][2];
      // TODO: (about 10 lines) one ldmatrix_x4 per mi for the 16×16 piece of A at row
      // wm * WM + mi * 16, column ks: lane i points at row (i % 16), chunk ks / 8 + i / 16.
      // One ldmatrix_x4_trans per pair of n8 tiles of B (k rows ks.., columns wn * WN + ni * 8..)
      // into b[ni][0], b[ni][1], b[ni + 1][0], b[ni + 1][1].
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) mma_16816(acc[mi][ni], a[mi], b[ni][0], b[ni][1]);
    }
    // TODO: wait until every warp is done with sA and sB before the next tile overwrites them.
  }

  // TODO: (about 8 lines) lane i holds rows i/4 and i/4 + 8, columns 2(i%4) and 2(i%4) + 1 of each
  // 16×8 tile acc[mi][ni] (at row m0 + wm * WM + mi * 16, column n0 + wn * WN + ni * 8 of C):
  // store the four values that are inside C.
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
