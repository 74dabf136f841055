// Tuning configurations of the G1 reference's pipelined kernel, in five groups; each group is this
// file compiled with -DG1_SWEEP_GROUP=0..4 (benchmarks/h200/g1.sh builds them in parallel).
// The solution file is included with its contract functions renamed, so the five objects and the
// bench's own copy link side by side.
#include "g1_bench.h"

#define G1_CAT2(a, b) a##b
#define G1_CAT(a, b) G1_CAT2(a, b)
#define hgemm_wmma G1_CAT(g1_sweep_wmma_, G1_SWEEP_GROUP)
#define hgemm_mma G1_CAT(g1_sweep_mma_, G1_SWEEP_GROUP)
#define hgemm_fast G1_CAT(g1_sweep_fast_, G1_SWEEP_GROUP)
#define hgemm_mma_unswizzled G1_CAT(g1_sweep_mma_unswizzled_, G1_SWEEP_GROUP)
#define hgemm_cp_async G1_CAT(g1_sweep_cp_async_, G1_SWEEP_GROUP)
#define hgemm_multistage G1_CAT(g1_sweep_multistage_, G1_SWEEP_GROUP)
#include "../solutions/g1_hgemm.cu"

namespace {

template <int BM_, int BN_, int BK_, int WM_, int WN_, int S_, int G_, bool PF_>
void add(std::vector<SweepConfig>& out, const char* name) {
  using P = Pipeline<BM_, BN_, BK_, WM_, WN_, S_, G_, PF_>;
  out.push_back({name, [](const __half* A, const __half* B, float* C, int M, int N, int K) {
                   launch_pipelined<P, true>(A, B, C, M, N, K);
                 },
                 P::kSmemBytes, P::kThreads});
}

}  // namespace

// Block tile BMxBNxBK, warps WMxWN, S stages, block order in groups of G tile rows; P: the next
// tile's first fragments load during the last k-step (1) or after the barrier (0).
#define CFG(bm, bn, bk, wm, wn, s, g, p) \
  add<bm, bn, bk, wm, wn, s, g, p>(out, #bm "x" #bn "x" #bk "_w" #wm "x" #wn "_s" #s "_g" #g "_p" #p);

#if G1_SWEEP_GROUP == 0
// 128×256 blocks of 8 warps (64×64 warp tiles): stages and block order.
void g1_sweep_group_0(std::vector<SweepConfig>& out) {
  CFG(128, 256, 32, 2, 4, 3, 1, 0)
  CFG(128, 256, 32, 2, 4, 3, 8, 0)
  CFG(128, 256, 32, 2, 4, 4, 1, 0)
  CFG(128, 256, 32, 2, 4, 4, 8, 0)
  CFG(128, 256, 32, 2, 4, 5, 8, 0)
  CFG(128, 256, 32, 2, 4, 4, 16, 0)
}
#elif G1_SWEEP_GROUP == 1
// The same warp tile, the other way round (256×128), and BK = 64 (128-byte rows).
void g1_sweep_group_1(std::vector<SweepConfig>& out) {
  CFG(256, 128, 32, 4, 2, 4, 8, 0)
  CFG(256, 128, 32, 4, 2, 3, 8, 0)
  CFG(128, 256, 64, 2, 4, 3, 8, 0)
  CFG(256, 128, 64, 4, 2, 3, 8, 0)
  CFG(128, 256, 64, 2, 4, 2, 8, 0)
}
#elif G1_SWEEP_GROUP == 2
// 128×128 blocks: 4 warps of 64×64 (two blocks per SM) or 8 warps of 64×32.
void g1_sweep_group_2(std::vector<SweepConfig>& out) {
  CFG(128, 128, 32, 2, 2, 3, 8, 0)
  CFG(128, 128, 32, 2, 2, 4, 8, 0)
  CFG(128, 128, 32, 2, 2, 5, 8, 0)
  CFG(128, 128, 64, 2, 2, 3, 8, 0)
  CFG(128, 128, 32, 2, 4, 4, 8, 0)
  CFG(128, 128, 32, 2, 4, 2, 1, 0)
}
#elif G1_SWEEP_GROUP == 3
// Smaller and thinner tiles, for the small shape (4096×2048×1024: 256 blocks of 128×256 is under two waves).
void g1_sweep_group_3(std::vector<SweepConfig>& out) {
  CFG(64, 128, 32, 2, 2, 4, 8, 0)
  CFG(128, 64, 32, 2, 2, 4, 8, 0)
  CFG(64, 256, 32, 1, 4, 4, 8, 0)
  CFG(256, 128, 32, 4, 2, 5, 8, 0)
  CFG(128, 128, 32, 2, 2, 4, 8, 1)
}
#elif G1_SWEEP_GROUP == 4
// Fragments of the next tile loaded during the last k-step, on the likeliest winners.
void g1_sweep_group_4(std::vector<SweepConfig>& out) {
  CFG(128, 256, 32, 2, 4, 3, 8, 1)
  CFG(128, 256, 32, 2, 4, 4, 8, 1)
  CFG(256, 128, 32, 4, 2, 4, 8, 1)
  CFG(128, 256, 64, 2, 4, 3, 8, 1)
  CFG(256, 128, 64, 4, 2, 3, 8, 1)
}
#else
#error "G1_SWEEP_GROUP must be 0 to 4"
#endif
