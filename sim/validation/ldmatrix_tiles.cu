// Counter and output validation: ldmatrix, stmatrix and movmatrix on shared tiles laid out three
// ways, in 132 blocks of 4 warps, 8 rounds each. A tile is 8 rows of 64 halves (128 bytes a row),
// filled with 16-byte stores; each warp reads it as four 8 x 8 matrices (16-byte chunk j of rows
// 0..7 is matrix j).
//   plain:    chunk c of row r at chunk c: the 8 rows of a matrix share 4 banks (8-way conflicts)
//   swizzled: chunk c of row r at chunk c ^ r (XOR swizzle): no conflicts
//   padded:   rows of 72 halves (144 bytes): no conflicts
// ldsm_*: ldmatrix.x4 (and .x4.trans, .x2, .x1) and sums what it read into one word per lane;
// stsm_*: stmatrix.x4 (sm_90) writes registers to the tile, ldmatrix reads them back;
// movm: movmatrix.trans. Every output must match the GPU bit for bit.
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "check.h"
#include "outputs.h"

constexpr int BLOCKS = 132, WARPS = 4, ROUNDS = 8;
enum Layout { PLAIN, SWIZZLED, PADDED };

template <int L>
__device__ __forceinline__ int pitch() { return L == PADDED ? 72 : 64; }
template <int L>
__device__ __forceinline__ int at(int r, int c) {  // element offset of chunk c of row r
  return r * pitch<L>() + (L == SWIZZLED ? (c ^ r) : c) * 8;
}
__device__ __forceinline__ uint32_t smem(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// NUM matrices (.x1/.x2/.x4), TRANS or not, from a tile of layout L.
template <int L, int NUM, bool TRANS>
__global__ void ldsm(const uint4* __restrict__ in, uint32_t* __restrict__ out) {
  __shared__ __align__(16) unsigned short tile[WARPS][8 * 72];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  uint32_t sum = 0;
  for (int round = 0; round < ROUNDS; ++round) {
    const uint4* src = in + size_t((blockIdx.x * ROUNDS + round) % 64) * 64;  // 64 chunks a tile
    for (int i = lane; i < 64; i += 32) {                                       // STS.128
      const int r = i / 8, c = i % 8;
      *reinterpret_cast<uint4*>(&tile[warp][at<L>(r, c)]) = src[i];
    }
    __syncwarp();
    const uint32_t p = smem(&tile[warp][at<L>(lane % 8, (lane / 8) % NUM)]);
    uint32_t v[4] = {0, 0, 0, 0};
    if (NUM == 4 && !TRANS)
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]) : "r"(p));
    if (NUM == 4 && TRANS)
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]) : "r"(p));
    if (NUM == 2) asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(v[0]), "=r"(v[1]) : "r"(p));
    if (NUM == 1) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(v[0]) : "r"(p));
    for (int j = 0; j < NUM; ++j) sum = sum * 31 + v[j];
    __syncwarp();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// stmatrix.x4 (TRANS or not) into a tile of layout L, then ldmatrix.x4 back.
template <int L, bool TRANS>
__global__ void stsm(const uint32_t* __restrict__ in, uint32_t* __restrict__ out) {
  __shared__ __align__(16) unsigned short tile[WARPS][8 * 72];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  uint32_t sum = 0;
  for (int round = 0; round < ROUNDS; ++round) {
    const uint32_t* src = in + size_t((blockIdx.x * ROUNDS + round) % 64) * 128;
    const uint32_t p = smem(&tile[warp][at<L>(lane % 8, lane / 8)]);
    if (TRANS)
      asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(p), "r"(src[lane]),
                   "r"(src[32 + lane]), "r"(src[64 + lane]), "r"(src[96 + lane]));
    else
      asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(p), "r"(src[lane]),
                   "r"(src[32 + lane]), "r"(src[64 + lane]), "r"(src[96 + lane]));
    __syncwarp();
    uint32_t v[4];
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]) : "r"(p));
    for (int j = 0; j < 4; ++j) sum = sum * 31 + v[j];
    __syncwarp();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

__global__ void movm(const uint32_t* __restrict__ in, uint32_t* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t d;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(d) : "r"(in[i % 8192]));
  out[i] = d;
}

int main() {
  const int threads = WARPS * 32, n = BLOCKS * threads;
  std::vector<uint32_t> words(64 * 256);  // 64 tiles of 8 x 64 halves
  for (size_t i = 0; i < words.size(); ++i) words[i] = uint32_t(i * 2654435761u);
  uint32_t *din, *dout;
  CK(cudaMalloc(&din, words.size() * 4));
  CK(cudaMalloc(&dout, n * 4));
  CK(cudaMemcpy(din, words.data(), words.size() * 4, cudaMemcpyHostToDevice));
  std::vector<uint32_t> out(n);
  // The host's view of every kernel, from the PTX ISA's fragment layouts (g = lane / 4, t = lane % 4).
  auto half_of = [](uint32_t w, int h) { return (w >> (16 * h)) & 0xffffu; };
  auto chunk_word = [&](int tile, int r, int c, int t) { return words[size_t(tile) * 256 + (r * 8 + c) * 4 + t]; };
  auto expect_ldsm = [&](int num, bool trans) {
    std::vector<uint32_t> want(n);
    for (int b = 0; b < BLOCKS; ++b)
      for (int lane = 0; lane < threads; ++lane) {
        const int l = lane % 32, g = l / 4, t = l % 4;
        uint32_t sum = 0;
        for (int round = 0; round < ROUNDS; ++round) {
          const int tile = (b * ROUNDS + round) % 64;
          for (int j = 0; j < num; ++j) {
            uint32_t v;
            if (!trans) v = chunk_word(tile, g, j, t);
            else v = half_of(chunk_word(tile, 2 * t, j, g / 2), g % 2) | half_of(chunk_word(tile, 2 * t + 1, j, g / 2), g % 2) << 16;
            sum = sum * 31 + v;
          }
        }
        want[size_t(b) * threads + lane] = sum;
      }
    return want;
  };
  auto expect_stsm = [&](bool trans) {
    std::vector<uint32_t> want(n);
    for (int b = 0; b < BLOCKS; ++b)
      for (int lane = 0; lane < threads; ++lane) {
        const int l = lane % 32, g = l / 4, t = l % 4;
        uint32_t sum = 0;
        for (int round = 0; round < ROUNDS; ++round) {
          const uint32_t* src = words.data() + size_t((b * ROUNDS + round) % 64) * 128;
          for (int j = 0; j < 4; ++j) {
            uint32_t v = src[32 * j + l];
            if (trans)
              v = half_of(src[32 * j + 4 * (2 * t) + g / 2], g % 2) | half_of(src[32 * j + 4 * (2 * t + 1) + g / 2], g % 2) << 16;
            sum = sum * 31 + v;
          }
        }
        want[size_t(b) * threads + lane] = sum;
      }
    return want;
  };
  std::vector<uint32_t> want_movm(n);
  for (int i = 0; i < n; ++i) {
    const int base = i / 32 * 32, l = i % 32, g = l / 4, t = l % 4;
    auto w = [&](int r, int c) { return half_of(words[size_t(base + 4 * r + c / 2) % 8192], c % 2); };
    want_movm[size_t(i)] = w(2 * t, g) | w(2 * t + 1, g) << 16;
  }
#define RUN(name, kernel, arg, want)                                  \
  do {                                                                \
    CK(cudaMemset(dout, 0xff, n * 4));                                \
    kernel<<<BLOCKS, threads>>>(arg, dout);                           \
    CK(cudaGetLastError());                                           \
    CK(cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost));  \
    if (out != (want)) {                                              \
      std::printf("%s: wrong result\n", name);                        \
      return 1;                                                       \
    }                                                                 \
    print_result(name, out);                                          \
  } while (0)
  const uint4* in4 = reinterpret_cast<const uint4*>(din);
  RUN("ldsm_x4_plain", (ldsm<PLAIN, 4, false>), in4, expect_ldsm(4, false));
  RUN("ldsm_x4_swizzled", (ldsm<SWIZZLED, 4, false>), in4, expect_ldsm(4, false));
  RUN("ldsm_x4_padded", (ldsm<PADDED, 4, false>), in4, expect_ldsm(4, false));
  RUN("ldsm_x4_trans_plain", (ldsm<PLAIN, 4, true>), in4, expect_ldsm(4, true));
  RUN("ldsm_x4_trans_swizzled", (ldsm<SWIZZLED, 4, true>), in4, expect_ldsm(4, true));
  RUN("ldsm_x2_plain", (ldsm<PLAIN, 2, false>), in4, expect_ldsm(2, false));
  RUN("ldsm_x1_plain", (ldsm<PLAIN, 1, false>), in4, expect_ldsm(1, false));
  RUN("stsm_x4_plain", (stsm<PLAIN, false>), din, expect_stsm(false));
  RUN("stsm_x4_swizzled", (stsm<SWIZZLED, false>), din, expect_stsm(false));
  RUN("stsm_x4_trans_padded", (stsm<PADDED, true>), din, expect_stsm(true));
  RUN("movm", movm, din, want_movm);
  std::printf("ldmatrix_tiles: ok\n");
  return 0;
}
