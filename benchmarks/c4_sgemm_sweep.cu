// Configurations of solutions/c4_sgemm.cu's register-tile kernel for the H200 tuning sweep
// (benchmarks/h200/c4.sh). Compiled SWEEP_PARTS times with SWEEP_PART = 0 .. SWEEP_PARTS-1, each
// part instantiating every SWEEP_PARTS-th configuration, so nvcc runs the parts in parallel.
// The reference is included inside a namespace of its own per part (sweep_copy_0, sweep_copy_1, ...),
// so that its functions clash neither with the bench's copy nor with the other parts'.
#include <cstdint>
#include <cuda_runtime.h>

#include <string>

#include "c4_sgemm_sweep.h"

#ifndef SWEEP_PART
#define SWEEP_PART 0
#define SWEEP_PARTS 1
#endif
#define SWEEP_CAT2(a, b) a##b
#define SWEEP_CAT(a, b) SWEEP_CAT2(a, b)
#define sweep_copy SWEEP_CAT(sweep_copy_, SWEEP_PART)

namespace sweep_copy {
#include "../solutions/c4_sgemm.cu"

template <class L, int STAGES, int MIN_BLOCKS>
void run(const float* A, const float* B, float* C, int M, int N, int K, int group, int slices) {
  launch_register_tile<L, STAGES, MIN_BLOCKS>(A, B, C, M, N, K, group, slices);
}
}  // namespace sweep_copy

namespace {

template <int ID, int BM, int BN, int BK, int WM, int WN, int LM, int STAGES, int MIN_BLOCKS>
int add() {
  if constexpr (ID % SWEEP_PARTS == SWEEP_PART) {
    using L = sweep_copy::WarpLayout<BM, BN, BK, WM, WN, LM>;
    const std::string name = std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) + "_w" +
                             std::to_string(WM) + "x" + std::to_string(WN) + "_l" + std::to_string(LM) + "x" +
                             std::to_string(32 / LM) + "_s" + std::to_string(STAGES) + "_b" + std::to_string(MIN_BLOCKS);
    sweep_registry().push_back(
        {name, BM, BN, BK, WM, WN, LM, STAGES, MIN_BLOCKS, L::THREADS, sweep_copy::run<L, STAGES, MIN_BLOCKS>});
  }
  return 0;
}

// Block tile BM×BN×BK, warp tile WM×WN, lanes LM×(32/LM), then both one stage and two.
#define SWEEP(ID, BM, BN, BK, WM, WN, LM, MINB)                               \
  const int reg_##ID##_1 = add<2 * ID, BM, BN, BK, WM, WN, LM, 1, MINB>();    \
  const int reg_##ID##_2 = add<2 * ID + 1, BM, BN, BK, WM, WN, LM, 2, MINB>();

#ifdef SWEEP_CANDIDATES
// The light run (LIGHT=1): only sgemm_fast's configurations and their nearest rivals from the first
// run's sweep, each in one stage (s1) or two (s2), 2 blocks per SM (b2) or 1 (b1).
#define ONE(ID, BM, BN, BK, WM, WN, LM, STAGES, MINB) \
  const int reg_##ID = add<ID, BM, BN, BK, WM, WN, LM, STAGES, MINB>();
ONE(0, 128, 128, 16, 32, 64, 4, 2, 2)  // FastLarge
ONE(1, 128, 128, 16, 32, 64, 4, 2, 1)
ONE(2, 128, 128, 16, 32, 64, 4, 1, 2)
ONE(3, 64, 128, 16, 32, 64, 4, 1, 2)   // FastScalar
ONE(4, 128, 64, 16, 64, 32, 8, 1, 2)
ONE(5, 64, 64, 32, 32, 32, 4, 1, 2)    // FastSmall
#else
// 8 warps, 8×8 per thread (the textbook shape), lanes 4×8 or 8×4, BK 8 or 16
SWEEP(0, 128, 128, 8, 32, 64, 4, 2)
SWEEP(1, 128, 128, 16, 32, 64, 4, 2)
SWEEP(2, 128, 128, 8, 64, 32, 8, 2)
SWEEP(3, 128, 128, 16, 64, 32, 8, 2)
SWEEP(4, 128, 128, 8, 32, 64, 4, 1)
// 4 warps, 16×8 per thread: more registers, fewer shared loads per FMA
SWEEP(5, 128, 128, 8, 64, 64, 4, 1)
SWEEP(6, 128, 128, 16, 64, 64, 4, 1)
// 8 warps, 16×8 per thread, a larger block tile
SWEEP(7, 128, 256, 8, 64, 64, 4, 1)
SWEEP(8, 256, 128, 8, 64, 64, 4, 1)
// smaller block tiles: more blocks for shapes with few 128×128 tiles (128×4096×4096)
SWEEP(9, 128, 64, 8, 32, 32, 4, 2)
SWEEP(10, 64, 128, 8, 32, 64, 4, 2)
SWEEP(11, 128, 64, 16, 64, 32, 8, 2)
SWEEP(12, 64, 64, 8, 32, 32, 4, 2)
SWEEP(13, 64, 64, 16, 32, 32, 4, 2)
SWEEP(14, 64, 64, 32, 32, 32, 4, 2)
SWEEP(15, 64, 128, 16, 32, 64, 4, 2)
// BK = 16 with two stages spills under a 128-register cap (2 blocks/SM): the same without the cap
SWEEP(16, 128, 128, 16, 32, 64, 4, 1)
SWEEP(17, 128, 128, 16, 64, 32, 8, 1)
#endif

}  // namespace
